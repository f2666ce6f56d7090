// Exponential backoff with jitter, as client-go's wait.Backoff and the reflector's backoff manager:
// each step doubles the delay up to a cap; a quiet period resets it.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Each delay is multiplied by this; default 2. */
  factor?: number;
  /** A delay d becomes d + random * jitter * d; default 0. */
  jitter?: number;
  /** After this long without a step, the next step starts again from initialMs; default: never. */
  resetAfterMs?: number;
}

export class Backoff {
  private current: number;
  private lastStep = 0;

  constructor(
    private readonly options: BackoffOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.current = options.initialMs;
  }

  /** The next delay. */
  step(): number {
    const { initialMs, maxMs, factor = 2, jitter = 0, resetAfterMs } = this.options;
    const at = this.now();
    if (resetAfterMs !== undefined && this.lastStep && at - this.lastStep > resetAfterMs) this.current = initialMs;
    this.lastStep = at;
    const delay = this.current;
    this.current = Math.min(maxMs, this.current * factor);
    return jitter > 0 ? delay + Math.random() * jitter * delay : delay;
  }

  reset(): void {
    this.current = this.options.initialMs;
    this.lastStep = 0;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** client-go's wait.Jitter: duration + random * factor * duration. */
export const jitter = (ms: number, factor: number): number => ms + Math.random() * factor * ms;
