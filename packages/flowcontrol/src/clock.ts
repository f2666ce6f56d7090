// The only time this package knows: a clock the caller gives, so that tests run on simulated time.

export interface Clock {
  /** Monotonic milliseconds (fractions allowed), as performance.now(). */
  now(): number;
  /** Calls fn once, ms from now; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}
