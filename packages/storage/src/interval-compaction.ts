// Compaction on a timer for the embedded backends (etcd's replicas coordinate theirs: etcd/compactor.ts).
import type { KV } from './kv.js';

/**
 * Every `intervalMs`, compacts at the revision seen one interval earlier, so that at least an
 * interval of history is kept. The timer does not hold the process open; stop it with clearInterval.
 */
export function startIntervalCompaction(
  kv: KV,
  intervalMs: number,
  onError: (error: unknown, what: string) => void,
): NodeJS.Timeout {
  let seenLastTick = 0;
  const timer = setInterval(() => {
    const target = seenLastTick;
    kv.currentRevision().then(
      (revision) => (seenLastTick = revision),
      (error: unknown) => onError(error, 'compaction'),
    );
    if (target > 0) kv.compact(target).catch((error: unknown) => onError(error, 'compaction'));
  }, intervalMs);
  timer.unref();
  return timer;
}
