// Validation of graceful node shutdown: the two grace periods, their feature gate, and the per-priority list that excludes them.
import { forbidden, formatDuration, invalid, required, type FieldError } from '@plat/apimachinery';
import { path, requireGates, type ValidationContext } from './validate-helpers.js';

const SECOND = 1000;

export function validateShutdown({ config: c, gates }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  const period = c.shutdownGracePeriod ?? 0;
  const critical = c.shutdownGracePeriodCriticalPods ?? 0;
  if (period !== 0 || critical !== 0) requireGates(errors, gates, path(period !== 0 ? 'shutdownGracePeriod' : 'shutdownGracePeriodCriticalPods'), 'GracefulNodeShutdown');
  for (const [field, value] of [['shutdownGracePeriod', period], ['shutdownGracePeriodCriticalPods', critical]] as const) {
    if (value < 0 || (value > 0 && value < SECOND)) errors.push(invalid(path(field), formatDuration(value), 'must be either zero or otherwise >= 1s'));
  }
  if (critical > 0 && critical >= period) {
    errors.push(invalid(path('shutdownGracePeriodCriticalPods'), formatDuration(critical), `must be less than shutdownGracePeriod (${formatDuration(period)})`));
  }

  const byPriority = c.shutdownGracePeriodByPodPriority ?? [];
  if (byPriority.length) {
    requireGates(errors, gates, path('shutdownGracePeriodByPodPriority'), 'GracefulNodeShutdown', 'GracefulNodeShutdownBasedOnPodPriority');
    if (period !== 0 || critical !== 0) {
      errors.push(forbidden(path('shutdownGracePeriodByPodPriority'), 'must be empty when shutdownGracePeriod or shutdownGracePeriodCriticalPods is set'));
    }
  }
  byPriority.forEach((entry, i) => {
    const at = path('shutdownGracePeriodByPodPriority').index(i);
    if (entry.priority === undefined) errors.push(required(at.child('priority')));
    if (entry.shutdownGracePeriodSeconds === undefined) errors.push(required(at.child('shutdownGracePeriodSeconds')));
    else if (entry.shutdownGracePeriodSeconds < 0) errors.push(invalid(at.child('shutdownGracePeriodSeconds'), entry.shutdownGracePeriodSeconds, 'must not be negative'));
  });
  return errors;
}
