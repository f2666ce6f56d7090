// Requests in flight, and the long-running ones among them (watches, streams), for graceful
// shutdown: wait for the short ones, end the long-running ones.
import type { AnyResponse } from './http-server.js';

export class RequestTracker {
  private readonly inFlight = new Set<AnyResponse>();
  /** Long-running responses and how to end each cleanly. */
  private readonly longRunning = new Map<AnyResponse, () => void>();
  private readonly changed = new Set<() => void>();

  /** Counts a request until its response closes (finished or aborted). */
  track(res: AnyResponse): void {
    this.inFlight.add(res);
    res.once('close', () => {
      this.inFlight.delete(res);
      this.longRunning.delete(res);
      this.notify();
    });
  }

  /**
   * Marks a response as long-running: shutdown does not wait for it but calls `end`, which must end
   * the response cleanly (for a watch: stop it and end the body stream). Returns an unregister
   * function for a stream that ends on its own.
   */
  registerLongRunning(res: AnyResponse, end: () => void): () => void {
    this.longRunning.set(res, end);
    this.notify();
    return () => {
      this.longRunning.delete(res);
    };
  }

  /** In-flight requests that are not long-running. */
  get pending(): number {
    let n = 0;
    for (const res of this.inFlight) if (!this.longRunning.has(res)) n++;
    return n;
  }

  get total(): number {
    return this.inFlight.size;
  }

  /** Resolves true once `count()` is zero, or false after `timeoutMs`. */
  async waitFor(count: () => number, timeoutMs: number): Promise<boolean> {
    if (count() === 0) return true;
    return new Promise<boolean>((resolve) => {
      const done = (result: boolean): void => {
        clearTimeout(timer);
        this.changed.delete(onChange);
        resolve(result);
      };
      const onChange = (): void => {
        if (count() === 0) done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.changed.add(onChange);
    });
  }

  /** Ends every long-running response; returns how many there were. */
  endLongRunning(): number {
    const ends = [...this.longRunning.values()];
    this.longRunning.clear();
    for (const end of ends) end();
    return ends.length;
  }

  private notify(): void {
    for (const listener of [...this.changed]) listener();
  }
}
