// How long a watch runs, as upstream's watch handler decides it from timeoutSeconds (an int64), and
// a timer that keeps such a time: node's setTimeout takes at most 2^31-1 ms (24.8 days) and fires
// at once past it.

/** The longest delay setTimeout keeps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The watch's time in milliseconds. Upstream computes time.Duration(timeoutSeconds) * time.Second,
 * int64 nanoseconds that wrap past 292 years as Go's arithmetic does; a zero result (or no
 * parameter) takes `fallbackMs` (the spread around --min-request-timeout), a negative one ends the
 * watch at once.
 */
export function watchTimeoutMs(timeoutSeconds: bigint | undefined, fallbackMs: number): number {
  const nanoseconds = timeoutSeconds === undefined ? 0n : BigInt.asIntN(64, timeoutSeconds * 1_000_000_000n);
  if (nanoseconds === 0n) return fallbackMs;
  return nanoseconds < 0n ? 0 : Number(nanoseconds) / 1e6;
}

/** Calls `fire` after `ms` (however long), unless the returned function cancels it first. */
export function longTimeout(fire: () => void, ms: number): () => void {
  const due = Date.now() + ms;
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = due - Date.now();
    timer = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fire, Math.max(0, left));
  };
  arm();
  return () => clearTimeout(timer);
}
