// What a delete leaves behind for the garbage collector: the finalizers a propagation policy asks
// for (upstream's deletionFinalizersForGarbageCollection).
import type { KubeObject } from './definition.js';
import type { PropagationPolicy } from './requests.js';

const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * The finalizers a delete with `policy` leaves the object with, or undefined when they do not
 * change: Orphan adds `orphan`, Foreground `foregroundDeletion`, Background neither; without a
 * policy, a finalizer already there decides.
 */
export function propagationFinalizers(object: KubeObject, policy: PropagationPolicy | undefined): string[] | undefined {
  const current = object.metadata.finalizers ?? [];
  const existing = current.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
  const orphan = policy ? policy === 'Orphan' : existing === ORPHAN_FINALIZER;
  const foreground = policy ? policy === 'Foreground' : existing === FOREGROUND_FINALIZER;
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const same = new Set(next).size === new Set(current).size && next.every((f) => current.includes(f));
  return same ? undefined : next;
}
