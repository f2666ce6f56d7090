// The client's own request rate limit (client-go's token bucket for rest.Config QPS and Burst): a
// request waits for a token; tokens come back at `qps` a second, at most `burst` kept.

export interface TokenBucketOptions {
  /** Tokens a second; at or below 0, no limit. */
  qps: number;
  /** The most tokens kept, so the most requests sent at once after a quiet spell; at least 1. */
  burst: number;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly burst: number;

  constructor(
    private readonly options: TokenBucketOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.burst = Math.max(1, options.burst);
    this.tokens = this.burst;
    this.last = now();
  }

  /** Whether the bucket limits anything. */
  get limited(): boolean {
    return this.options.qps > 0;
  }

  /**
   * Takes a token: resolves at once while tokens are left, else when the next one is due. Tokens
   * go negative while requests wait, so that each waiter is given its own slot in order.
   */
  async take(signal?: AbortSignal): Promise<void> {
    const waitMs = this.reserve();
    if (waitMs <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, waitMs);
      function done(): void {
        signal?.removeEventListener('abort', abort);
        resolve();
      }
      function abort(): void {
        clearTimeout(timer);
        reject(signal!.reason);
      }
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /** Reserves a token; the milliseconds until it is due (0: now). */
  reserve(): number {
    if (!this.limited) return 0;
    const at = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((at - this.last) * this.options.qps) / 1000);
    this.last = at;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.options.qps;
  }
}
