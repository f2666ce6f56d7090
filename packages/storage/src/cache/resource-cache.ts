// One resource's watch cache: a single inner watch feeding the current objects (by key) and a
// window of recent events, from which watches and current lists are served.
import type { ListResult, Storage, StoredObject, Watch, WatchEvent, WatchSink } from '../interface.js';
import { EventQueue } from '../event-queue.js';
import { firstIndex } from '../sorted.js';

export interface ResourceCacheSettings {
  /** Events younger than this are always kept (unless `maxHistoryEvents` is reached). */
  historyWindowMs: number;
  /** The most events kept, however young. */
  maxHistoryEvents: number;
  /** Events a watcher may have unread before it is ended. */
  watcherBufferSize: number;
  /** Page size of the (re)list that fills the cache. */
  listPageSize: number;
  /**
   * A busy resource with `dispatchFullAtWatchers` watchers or more hands events to its watchers at
   * most this often, each watcher taking all that came meanwhile at once; with fewer watchers the
   * interval shrinks in proportion (0: every event at once). A quiet one hands each event on at once.
   */
  dispatchIntervalMs: number;
  dispatchFullAtWatchers: number;
  onError: (error: unknown, what: string) => void;
}

interface HistoryEntry {
  event: WatchEvent;
  at: number;
}

class CacheWatcher {
  /** Runs wait here for an iteration, unless a sink takes them (Watch.subscribe). */
  readonly queue = new EventQueue<WatchEvent>({ highWaterMark: Number.MAX_SAFE_INTEGER });
  private sink: WatchSink | undefined;
  /** Watchers with the same key and recursion see the same events of a run. */
  readonly shareKey: string;

  constructor(
    readonly key: string,
    readonly recursive: boolean,
    /** Only events above this revision are delivered. */
    readonly after: number,
  ) {
    this.shareKey = `${recursive ? 'r' : 'k'}${key}`;
  }

  matches(key: string): boolean {
    return this.recursive ? key.startsWith(this.key) : key === this.key;
  }

  /** Events handed over and not yet read. */
  get backlog(): number {
    return this.sink ? this.sink.backlog : this.queue.length;
  }

  deliver(run: WatchEvent[]): void {
    if (this.sink) this.sink.push(run);
    else this.queue.pushAll(run);
  }

  end(): void {
    if (this.sink) this.sink.end();
    else this.queue.end();
  }

  /** From now on runs go to `sink`; what waits already goes now. */
  subscribe(sink: WatchSink): void {
    if (this.sink) throw new Error('a watch delivers to one sink');
    const waiting = this.queue.takeAll();
    const ended = this.queue.closed;
    this.sink = sink;
    if (waiting.length) sink.push(waiting);
    if (ended) sink.end();
  }
}


const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class ResourceCache {
  /** Current objects by key (as the store returns them: resourceVersion set). Never mutated. */
  private objects = new Map<string, StoredObject>();
  /** The keys of `objects` in order; null when it must be rebuilt. */
  private sorted: string[] | null = null;
  private history: HistoryEntry[] = [];
  private historyHead = 0;
  /** The cache holds the state at this revision and every event after `windowStart`. */
  private revisionValue = 0;
  private windowStart = 0;
  private readonly watchers = new Set<CacheWatcher>();
  private waiters: { revision: number; resolve: (reached: boolean) => void }[] = [];
  /** Applied events not yet handed to the watchers, and the revision of the last one handed on. */
  private undispatched: WatchEvent[] = [];
  private dispatchedRevision = 0;
  private lastDispatch = -Infinity;
  private dispatchTimer: NodeJS.Timeout | undefined;
  /** A progress notification that came while events were waiting to be handed over. */
  private pendingProgress = 0;
  private lastProgressRequest = 0;
  private inner: Watch | undefined;
  private readyValue = false;
  private stopped = false;
  /** Inner watches opened so far (the first one and one per rebuild). */
  innerWatches = 0;
  /** Rebuilds after the inner watch failed. */
  rebuilds = 0;
  /** Events applied from the inner watch. */
  eventsReceived = 0;
  /** Events handed to watchers, one per watcher that took each. */
  eventsDispatched = 0;
  /** Lists answered from this cache. */
  listsServed = 0;

  constructor(
    private readonly storage: Storage,
    readonly prefix: string,
    private readonly settings: ResourceCacheSettings,
  ) {}

  get ready(): boolean {
    return this.readyValue && !this.stopped;
  }

  get revision(): number {
    return this.revisionValue;
  }

  /** The oldest revision a watch may start after. */
  get oldestRevision(): number {
    return this.windowStart;
  }

  get size(): number {
    return this.objects.size;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  get historyLength(): number {
    return this.history.length - this.historyHead;
  }

  /** Lists the resource and starts the inner watch; rejects when either fails. */
  async start(): Promise<void> {
    const objects = new Map<string, StoredObject>();
    let token = '';
    let revision = 0;
    do {
      const page: ListResult = await this.storage.list(this.prefix, { limit: this.settings.listPageSize, continue: token });
      if (!page.keys || page.keys.length !== page.items.length) {
        throw new Error('the inner storage does not report the keys of listed items; it cannot be cached');
      }
      for (let i = 0; i < page.items.length; i++) objects.set(page.keys[i]!, page.items[i]!);
      revision = page.revision;
      token = page.continue;
    } while (token);
    if (this.stopped) return;
    const watch = await this.storage.watch(this.prefix, {
      recursive: true,
      revision,
      onProgress: (progress) => this.onProgress(progress),
    });
    this.innerWatches++;
    if (this.stopped) {
      watch.stop();
      return;
    }
    this.objects = objects;
    this.sorted = null;
    this.history = [];
    this.historyHead = 0;
    this.revisionValue = revision;
    this.dispatchedRevision = revision;
    this.undispatched = [];
    this.windowStart = revision;
    this.inner = watch;
    this.readyValue = true;
    void this.consume(watch);
  }

  private async consume(watch: Watch): Promise<void> {
    try {
      for await (const event of watch) this.apply(event);
      if (this.stopped || watch !== this.inner) return;
      this.settings.onError(new Error('the inner watch ended'), `watch cache ${this.prefix}`);
    } catch (error) {
      if (this.stopped || watch !== this.inner) return;
      this.settings.onError(error, `watch cache ${this.prefix}`);
    }
    void this.rebuild();
  }

  /** Re-lists after the inner watch failed: the watchers that may have missed events are ended. */
  private async rebuild(): Promise<void> {
    this.readyValue = false;
    this.inner?.stop();
    this.inner = undefined;
    this.rebuilds++;
    for (const watcher of this.watchers) watcher.end();
    this.watchers.clear();
    let delay = 100;
    while (!this.stopped) {
      try {
        await this.start();
        return;
      } catch (error) {
        this.settings.onError(error, `watch cache ${this.prefix}: re-list`);
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  private apply(event: WatchEvent): void {
    const key = event.key;
    if (key === undefined) throw new Error('the inner watch does not report keys; it cannot be cached');
    if (event.type === 'DELETED') {
      if (this.objects.delete(key)) this.sorted = null;
    } else {
      if (!this.objects.has(key)) this.sorted = null;
      this.objects.set(key, event.object);
    }
    this.revisionValue = Math.max(this.revisionValue, event.revision);
    const now = Date.now();
    this.history.push({ event, at: now });
    this.trim(now);
    this.eventsReceived++;
    this.undispatched.push(event);
    this.scheduleDispatch();
    this.wake();
  }

  private trim(now: number): void {
    const { maxHistoryEvents, historyWindowMs } = this.settings;
    let head = this.historyHead;
    while (head < this.history.length) {
      const entry = this.history[head]!;
      if (this.history.length - head <= maxHistoryEvents && now - entry.at <= historyWindowMs) break;
      this.windowStart = entry.event.revision;
      head++;
    }
    if (head > 1024 && head * 2 > this.history.length) {
      this.history = this.history.slice(head);
      head = 0;
    }
    this.historyHead = head;
  }

  /**
   * Hands events on at once when the last hand-over is an interval old, else when it will be: with
   * a thousand watchers, each wake-up of each watcher's pipeline (queue, selector, encoder, socket
   * write) costs more than the events it carries, so a busy resource pays it once per interval.
   */
  private scheduleDispatch(): void {
    if (this.dispatchTimer) return;
    // A hand-over costs in proportion to the watchers: so does the wait between two.
    const share = Math.min(1, this.watchers.size / this.settings.dispatchFullAtWatchers);
    const wait = this.lastDispatch + this.settings.dispatchIntervalMs * share - performance.now();
    if (wait <= 0) {
      this.dispatch();
      return;
    }
    this.dispatchTimer = setTimeout(() => {
      this.dispatchTimer = undefined;
      this.dispatch();
    }, wait);
  }

  private dispatch(): void {
    const events = this.undispatched;
    if (events.length === 0) return;
    this.undispatched = [];
    this.lastDispatch = performance.now();
    this.dispatchedRevision = Math.max(events[events.length - 1]!.revision, this.pendingProgress);
    const firstRevision = events[0]!.revision;
    // Watchers of the same key that started before the run take the same events: one filter each.
    const byKey = new Map<string, WatchEvent[]>();
    for (const watcher of this.watchers) {
      let matching: WatchEvent[];
      if (watcher.after < firstRevision) {
        let filtered = byKey.get(watcher.shareKey);
        if (!filtered) byKey.set(watcher.shareKey, (filtered = events.filter((event) => watcher.matches(event.key!))));
        matching = filtered;
      } else matching = events.filter((event) => event.revision > watcher.after && watcher.matches(event.key!));
      if (matching.length === 0) continue;
      if (watcher.backlog >= this.settings.watcherBufferSize) {
        // Too slow: a full buffer still unread from earlier runs. End it (it resumes from its last
        // revision) rather than hold the others back. A run itself may be larger than the buffer:
        // it holds one interval's events, which a watcher that keeps up takes at once.
        watcher.end();
        this.watchers.delete(watcher);
        continue;
      }
      watcher.deliver(matching);
      this.eventsDispatched += matching.length;
    }
  }

  private onProgress(revision: number): void {
    if (revision <= this.revisionValue) return;
    this.revisionValue = revision;
    // Every event up to `revision` has been applied: once handed over, the watchers have it all.
    if (this.undispatched.length === 0) this.dispatchedRevision = Math.max(this.dispatchedRevision, revision);
    else this.pendingProgress = revision;
    this.wake();
  }

  /** Asks the store how far the inner watch is, at most once a second however many ask. */
  private requestProgress(): void {
    const now = Date.now();
    if (now - this.lastProgressRequest < 1000) return;
    this.lastProgressRequest = now;
    this.inner?.requestProgress?.();
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const waiting: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (this.revisionValue >= waiter.revision) waiter.resolve(true);
      else waiting.push(waiter);
    }
    this.waiters = waiting;
  }

  /**
   * Resolves true once the cache has reached `revision`, false after `timeoutMs` or when not ready.
   * `eventExpected`: an event of this resource at `revision` is known to exist (this process wrote
   * it), so the cache will reach it without a progress notification.
   */
  waitFor(revision: number, timeoutMs: number, eventExpected = false): Promise<boolean> {
    if (!this.ready) return Promise.resolve(false);
    if (this.revisionValue >= revision) return Promise.resolve(true);
    // Without progress notifications the cache cannot learn that it is current unless this
    // resource was the last written: the caller reads from the store instead.
    if (!eventExpected && !this.inner?.requestProgress) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        revision,
        resolve: (reached: boolean): void => {
          clearTimeout(timer);
          resolve(reached && this.ready);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.waiters.push(waiter);
      // Nothing may be written to this resource for a while: ask the store how far the watch is.
      if (!eventExpected) this.inner?.requestProgress?.();
    });
  }

  /** The current object at `key` (shared: not to be mutated). */
  get(key: string): StoredObject | undefined {
    return this.objects.get(key);
  }

  /** The current objects below `prefix`, in key order. */
  list(prefix: string, filter?: (object: StoredObject) => boolean): { items: StoredObject[]; keys: string[]; revision: number } {
    if (!this.sorted) this.sorted = [...this.objects.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const sorted = this.sorted;
    const items: StoredObject[] = [];
    const keys: string[] = [];
    for (let i = firstIndex(sorted, (key) => key >= prefix); i < sorted.length; i++) {
      const key = sorted[i]!;
      if (!key.startsWith(prefix)) break;
      const object = this.objects.get(key)!;
      if (filter && !filter(object)) continue;
      items.push(object);
      keys.push(key);
    }
    return { items, keys, revision: this.revisionValue };
  }

  /**
   * A watch of `key` (or every key below it) for the events after `after`, or undefined when the
   * cache cannot serve it (not ready, or `after` is older than its window).
   */
  watch(key: string, recursive: boolean, after: number): Watch | undefined {
    if (!this.ready || after < this.windowStart) return undefined;
    const watcher = new CacheWatcher(key, recursive, after);
    if (after < this.dispatchedRevision) {
      // What the watchers have been handed; the rest comes with the next hand-over.
      const from = firstIndex(this.history, (entry) => entry.event.revision > after, this.historyHead);
      for (let i = from; i < this.history.length; i++) {
        const event = this.history[i]!.event;
        if (event.revision > this.dispatchedRevision) break;
        if (watcher.matches(event.key!)) watcher.queue.push(event);
      }
    }
    this.watchers.add(watcher);
    const stop = (): void => {
      this.watchers.delete(watcher);
      watcher.queue.discard();
    };
    async function* events(): AsyncGenerator<WatchEvent> {
      try {
        yield* watcher.queue;
      } finally {
        // A consumer that leaves the loop is done with the watch.
        stop();
      }
    }
    return {
      [Symbol.asyncIterator]: () => events(),
      // A consumer that leaves the loop is done with the watch.
      batches: () => watcher.queue.batches({ onDone: stop }),
      stop,
      // What this watcher has been handed, all of it, once it has read what is queued: with
      // progress notifications, past its last event.
      progressRevision: () => (watcher.backlog === 0 ? Math.max(watcher.after, this.dispatchedRevision) : undefined),
      subscribe: (sink) => watcher.subscribe(sink),
      ...(this.inner?.requestProgress && { requestProgress: () => this.requestProgress() }),
    };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.dispatchTimer);
    this.dispatchTimer = undefined;
    this.readyValue = false;
    this.inner?.stop();
    this.inner = undefined;
    for (const watcher of this.watchers) watcher.end();
    this.watchers.clear();
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }
}
