// A rate-limited work queue of keys (client-go's workqueue): a key is queued at most once, is never
// processed by two workers at once, and a key that failed comes back after a per-key exponential
// delay, bounded overall by a token bucket.
import { silentLogger, type Logger } from './logger.js';

/** How long an item waits before it is retried. */
export interface RateLimiter<K> {
  when(item: K): number;
  forget(item: K): void;
  numRequeues(item: K): number;
}

/** base * 2^failures, capped (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialRateLimiter<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  when(item: K): number {
    const failures = this.failures.get(item) ?? 0;
    this.failures.set(item, failures + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** failures);
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/** A token bucket over all items: `qps` tokens a second, at most `burst` saved (client-go's BucketRateLimiter). */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  when(): number {
    const at = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((at - this.last) / 1000) * this.qps);
    this.last = at;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** The longest of several limiters' delays. */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  private readonly limiters: RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(item: K): number {
    return Math.max(...this.limiters.map((limiter) => limiter.when(item)));
  }

  forget(item: K): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: K): number {
    return Math.max(...this.limiters.map((limiter) => limiter.numRequeues(item)));
  }
}

/** client-go's DefaultControllerRateLimiter: 5 ms doubling per failure up to 1000 s, and 10 qps with a burst of 100. */
export const defaultControllerRateLimiter = <K>(): RateLimiter<K> =>
  new MaxOfRateLimiter<K>(new ItemExponentialRateLimiter<K>(5, 1_000_000), new BucketRateLimiter<K>(10, 100));

/**
 * What a queue reports as it works, as client-go's workqueue metrics count it. An interface, so that
 * this package depends on no metrics library: the application counts with whatever it uses.
 */
export interface WorkQueueMetrics {
  /** An item was added that was not already waiting (client-go's adds; depth grows by one). */
  add(): void;
  /** A worker took an item, which had waited `waitedMs` since it was added (depth shrinks by one). */
  get(waitedMs: number): void;
  /** A worker finished an item it had held for `workedMs`. */
  done(workedMs: number): void;
  /** An item was scheduled to come back later: addAfter, addRateLimited (client-go's retries). */
  retry(): void;
}

/** The metrics of one queue, by its name (client-go's MetricsProvider). */
export type WorkQueueMetricsProvider = (name: string) => WorkQueueMetrics;

export interface WorkQueueOptions<K> {
  /** The queue's name, as its metrics are labelled (client-go's QueueConfig.Name). */
  name?: string;
  /** Default: defaultControllerRateLimiter. */
  rateLimiter?: RateLimiter<K>;
  /** Where the queue reports; without it, nothing is timed or counted. */
  metrics?: WorkQueueMetricsProvider;
}

export class RateLimitingQueue<K = string> {
  readonly name: string;
  readonly rateLimiter: RateLimiter<K>;
  private readonly queue: K[] = [];
  /** Items waiting to be processed: queued, or to be queued again when their processing is done. */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiting = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private readonly getters: ((item: K | undefined) => void)[] = [];
  private shutdown = false;
  private readonly metrics?: WorkQueueMetrics;
  /** With metrics only: when each dirty item was added, and when each item being processed was taken. */
  private readonly addedAt = new Map<K, number>();
  private readonly takenAt = new Map<K, number>();

  constructor(options: WorkQueueOptions<K> = {}) {
    this.name = options.name ?? '';
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>();
    this.metrics = options.metrics?.(this.name);
  }

  /** Queues the item unless it is queued already; an item being processed is queued again when done. */
  add(item: K): void {
    if (this.shutdown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.metrics) {
      this.metrics.add();
      this.addedAt.set(item, performance.now());
    }
    if (this.processing.has(item)) return;
    const getter = this.getters.shift();
    if (getter) getter(this.take(item));
    else this.queue.push(item);
  }

  /** Moves a dirty item to processing, for a worker. */
  private take(item: K): K {
    this.dirty.delete(item);
    this.processing.add(item);
    if (this.metrics) {
      const now = performance.now();
      this.metrics.get(now - (this.addedAt.get(item) ?? now));
      this.addedAt.delete(item);
      this.takenAt.set(item, now);
    }
    return item;
  }

  /** Queues the item after `ms`; of several pending delays for one item, the earliest wins. */
  addAfter(item: K, ms: number): void {
    if (this.shutdown) return;
    this.metrics?.retry();
    if (ms <= 0) return this.add(item);
    const at = Date.now() + ms;
    const pending = this.waiting.get(item);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, ms);
    this.waiting.set(item, { at, timer });
  }

  /** Queues the item after its rate limiter's delay: for retrying a failure. */
  addRateLimited(item: K): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** The item succeeded: its failures are forgotten. */
  forget(item: K): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: K): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** The next item, once there is one; undefined after shutDown. Call done(item) when finished. */
  get(): Promise<K | undefined> {
    if (this.shutdown) return Promise.resolve(undefined);
    const item = this.queue.shift();
    if (item !== undefined) return Promise.resolve(this.take(item));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Processing of the item is over; if it was added meanwhile, it is queued again. */
  done(item: K): void {
    this.processing.delete(item);
    if (this.metrics) {
      const takenAt = this.takenAt.get(item);
      if (takenAt !== undefined) this.metrics.done(performance.now() - takenAt);
      this.takenAt.delete(item);
    }
    if (!this.dirty.has(item) || this.shutdown) return;
    const getter = this.getters.shift();
    if (getter) getter(this.take(item));
    else this.queue.push(item);
  }

  /** Items queued and not yet handed out. */
  len(): number {
    return this.queue.length;
  }

  /** Stops handing out items: waiting getters get undefined; delayed adds are dropped. */
  shutDown(): void {
    this.shutdown = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    for (const getter of this.getters.splice(0)) getter(undefined);
  }

  get isShuttingDown(): boolean {
    return this.shutdown;
  }
}

/** Thrown by a reconcile that wants its key retried (rate-limited) without it counting as a failure to log. */
export class Requeue extends Error {
  override readonly name = 'Requeue';
}

/**
 * Runs `workers` loops that take keys from the queue and reconcile them: success forgets the key's
 * failures, an error queues it again rate-limited. Resolves when the queue shuts down and the
 * loops have finished their current keys.
 */
export async function runWorkers<K>(
  queue: RateLimitingQueue<K>,
  workers: number,
  reconcile: (item: K) => Promise<void>,
  logger: Logger = silentLogger,
  name = 'controller',
): Promise<void> {
  const loop = async (): Promise<void> => {
    for (let item = await queue.get(); item !== undefined; item = await queue.get()) {
      try {
        await reconcile(item);
        queue.forget(item);
      } catch (err) {
        const fields = { err, controller: name, key: String(item), requeues: queue.numRequeues(item) };
        if (err instanceof Requeue) logger.debug(fields, 'retrying');
        else logger.warn(fields, 'sync failed; retrying');
        queue.addRateLimited(item);
      } finally {
        queue.done(item);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
}
