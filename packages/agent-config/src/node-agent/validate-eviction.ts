// Validation of eviction thresholds: known signals, quantities or percentages, and a grace period for every soft threshold.
import { invalid, notSupported, parseDuration, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import { path, quantity, type ValidationContext } from './validate-helpers.js';

const EVICTION_SIGNALS = [
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
];

export function validateEviction({ config: c }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  thresholds(errors, 'evictionHard', c.evictionHard, true);
  thresholds(errors, 'evictionSoft', c.evictionSoft, true);
  thresholds(errors, 'evictionMinimumReclaim', c.evictionMinimumReclaim, false);

  const gracePeriods = c.evictionSoftGracePeriod ?? {};
  for (const [signal, value] of Object.entries(gracePeriods)) {
    const at = path('evictionSoftGracePeriod').key(signal);
    if (!signalKnown(errors, at, signal)) continue;
    try {
      if (parseDuration(value) < 0) errors.push(invalid(at, value, 'must not be negative'));
    } catch (error) {
      errors.push(invalid(at, value, (error as Error).message));
    }
  }
  for (const signal of Object.keys(c.evictionSoft ?? {})) {
    if (!Object.hasOwn(gracePeriods, signal)) {
      errors.push(required(path('evictionSoftGracePeriod').key(signal), 'a grace period is required for each soft eviction threshold'));
    }
  }
  return errors;
}

function signalKnown(errors: FieldError[], at: FieldPath, signal: string): boolean {
  if (EVICTION_SIGNALS.includes(signal)) return true;
  errors.push(notSupported(at, signal, EVICTION_SIGNALS));
  return false;
}

/** Thresholds are a percentage (0% to 100%) or a quantity: positive for thresholds, not negative for minimum reclaims. */
function thresholds(errors: FieldError[], field: string, values: Record<string, string> | undefined, positive: boolean): void {
  for (const [signal, value] of Object.entries(values ?? {})) {
    const at = path(field).key(signal);
    if (!signalKnown(errors, at, signal)) continue;
    if (value.endsWith('%')) {
      const percent = Number(value.slice(0, -1));
      if (value.length === 1 || Number.isNaN(percent)) errors.push(invalid(at, value, 'not a percentage'));
      else if (percent < 0 || percent > 100) errors.push(invalid(at, value, 'percentage must be between 0% and 100%'));
      continue;
    }
    const amount = quantity(errors, at, value);
    if (!amount) continue;
    if (positive && amount.sign() <= 0) errors.push(invalid(at, value, 'must be positive'));
    else if (amount.sign() < 0) errors.push(invalid(at, value, 'must not be negative'));
  }
}
