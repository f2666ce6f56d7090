// Validation of rates, bursts and counts: API and registry QPS, pods per node, lease, status images, open files, iptables bits.
import { invalid, type FieldError } from '@plat/apimachinery';
import { inRange, notNegative, path, type ValidationContext } from './validate-helpers.js';

export function validateLimits({ config: c }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  notNegative(errors, path('registryPullQPS'), c.registryPullQPS);
  notNegative(errors, path('registryBurst'), c.registryBurst);
  notNegative(errors, path('eventRecordQPS'), c.eventRecordQPS);
  notNegative(errors, path('eventBurst'), c.eventBurst);
  notNegative(errors, path('platAPIQPS'), c.platAPIQPS);
  notNegative(errors, path('platAPIBurst'), c.platAPIBurst);
  inRange(errors, path('oomScoreAdj'), c.oomScoreAdj, -1000, 1000);
  if ((c.nodeLeaseDurationSeconds ?? 0) <= 0) errors.push(invalid(path('nodeLeaseDurationSeconds'), c.nodeLeaseDurationSeconds ?? 0, 'must be greater than 0'));
  notNegative(errors, path('maxPods'), c.maxPods);
  notNegative(errors, path('podsPerCore'), c.podsPerCore);
  // podsPerCore 0 means no limit, and a negative maxPods has its own error: neither is compared.
  const podsPerCore = c.podsPerCore ?? 0;
  const maxPods = c.maxPods ?? 0;
  if (podsPerCore > 0 && maxPods >= 0 && podsPerCore > maxPods) {
    errors.push(invalid(path('podsPerCore'), podsPerCore, `must not be greater than maxPods (${maxPods})`));
  }
  if ((c.nodeStatusMaxImages ?? 0) < -1) errors.push(invalid(path('nodeStatusMaxImages'), c.nodeStatusMaxImages, 'must be -1 or greater'));
  notNegative(errors, path('maxOpenFiles'), c.maxOpenFiles);
  inRange(errors, path('iptablesMasqueradeBit'), c.iptablesMasqueradeBit, 0, 31);
  inRange(errors, path('iptablesDropBit'), c.iptablesDropBit, 0, 31);
  return errors;
}
