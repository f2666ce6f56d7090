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
   * A busy resource with `dispatchFullAtWatchers` watchers or more hands events to each watcher at
   * most this often, the watcher taking all that came meanwhile at once; with fewer watchers the
   * interval shrinks in proportion (0: every event at once). A quiet one hands each event on at once.
   */
  dispatchIntervalMs: number;
  dispatchFullAtWatchers: number;
  /**
   * Watchers handed their runs in one turn of the event loop. The watchers are served in turn, a
   * slice at a time, the slices spread evenly over the interval (see `tick`).
   */
  dispatchSliceWatchers: number;
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
  /** Every event of its key up to this revision has been handed over. */
  handed: number;

  constructor(
    readonly key: string,
    readonly recursive: boolean,
    /** Only events above this revision are delivered. */
    after: number,
  ) {
    this.shareKey = `${recursive ? 'r' : 'k'}${key}`;
    this.handed = after;
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
  /** In the order they are served: a watcher handed a run goes to the back. */
  private readonly watchers = new Set<CacheWatcher>();
  private waiters: { revision: number; resolve: (reached: boolean) => void }[] = [];
  /** The revision of the newest event in the history (the listed revision before the first). */
  private lastEventRevision = 0;
  /** Hand-overs allowed now (see `tick`), as of `creditAt` (performance.now()). */
  private credit = 0;
  private creditAt = -Infinity;
  private tickTimer: NodeJS.Timeout | undefined;
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
    this.lastEventRevision = revision;
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
    this.lastEventRevision = event.revision;
    this.trim(now);
    this.eventsReceived++;
    this.scheduleTick();
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

  /** Serves watchers now if there is credit for one, else once there is (see `tick`). */
  private scheduleTick(): void {
    if (this.tickTimer === undefined) this.tick();
  }

  /**
   * Hands the watchers that are behind what came since their last run each their run at once, as
   * many as the credit allows. A hand-over to a watcher costs far more than the events it carries
   * (its pipeline wakes, its socket is written): with a thousand watchers a busy resource pays it
   * once per watcher per interval. So hand-overs accrue as credit, `watchers` per interval, and
   * the watchers are served in turn as it comes: each waits at most about an interval, and their
   * writes are spread over it (a slice at most per turn of the event loop) instead of coming in
   * one burst for all of them, which the last would wait out too. Credit left unspent while the
   * resource is quiet (a run for each watcher, a slice at most) serves its next event at once.
   */
  private tick(): void {
    const now = performance.now();
    const watcherCount = this.watchers.size;
    if (watcherCount === 0) return;
    // Credit is kept for a slice at most, and for no more than one run to each watcher.
    const slice = Math.min(this.settings.dispatchSliceWatchers, watcherCount);
    const intervalMs = this.settings.dispatchIntervalMs * Math.min(1, watcherCount / this.settings.dispatchFullAtWatchers);
    const perMs = watcherCount / intervalMs;
    this.credit = perMs === Infinity ? slice : Math.min(slice, this.credit + (now - this.creditAt) * perMs);
    this.creditAt = now;
    const allowed = Math.floor(this.credit);
    const latest = this.lastEventRevision;
    // Watchers of the same key handed the same revision take the same run: one filter each.
    const runs = new Map<string, { handed: number; run: WatchEvent[] }[]>();
    const served: CacheWatcher[] = [];
    let behind = false;
    for (const watcher of this.watchers) {
      if (watcher.handed >= latest) continue;
      if (served.length >= allowed) {
        behind = true;
        break;
      }
      if (watcher.handed < this.windowStart) {
        // Its events have left the window unhanded (only a process stalled for the whole window
        // gets here): end it, as one too slow; it resumes from its last revision.
        this.endWatcher(watcher);
        continue;
      }
      const run = this.runAfter(watcher, runs);
      watcher.handed = latest;
      if (run.length === 0) continue;
      if (watcher.backlog >= this.settings.watcherBufferSize) {
        // Too slow: a full buffer still unread from earlier runs. End it (it resumes from its last
        // revision) rather than hold the others back. A run itself may be larger than the buffer:
        // it holds one interval's events, which a watcher that keeps up takes at once.
        this.endWatcher(watcher);
        continue;
      }
      served.push(watcher);
      watcher.deliver(run);
      this.eventsDispatched += run.length;
    }
    this.credit -= served.length;
    for (const watcher of served) {
      // To the back of the line (unless it ended meanwhile).
      if (this.watchers.delete(watcher)) this.watchers.add(watcher);
    }
    if (!behind) return;
    // The rest on a later turn, after the I/O at hand, once there is credit for one more.
    this.tickTimer = setTimeout(
      () => {
        this.tickTimer = undefined;
        this.tick();
      },
      Math.max(0, (1 - this.credit) / perMs),
    );
  }

  /** The events after the watcher's last run that it watches (shared with its like in `runs`). */
  private runAfter(watcher: CacheWatcher, runs: Map<string, { handed: number; run: WatchEvent[] }[]>): WatchEvent[] {
    let alike = runs.get(watcher.shareKey);
    if (!alike) runs.set(watcher.shareKey, (alike = []));
    for (const entry of alike) if (entry.handed === watcher.handed) return entry.run;
    const run: WatchEvent[] = [];
    for (let i = firstIndex(this.history, (entry) => entry.event.revision > watcher.handed, this.historyHead); i < this.history.length; i++) {
      const event = this.history[i]!.event;
      if (watcher.matches(event.key!)) run.push(event);
    }
    alike.push({ handed: watcher.handed, run });
    return run;
  }

  private endWatcher(watcher: CacheWatcher): void {
    watcher.end();
    this.watchers.delete(watcher);
  }

  private onProgress(revision: number): void {
    if (revision <= this.revisionValue) return;
    // Every event up to `revision` has been applied: a watcher handed the last of them has it all.
    this.revisionValue = revision;
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
    if (after < this.lastEventRevision) {
      // What the history holds after `after` waits for it at once; the rest comes in its turn.
      const from = firstIndex(this.history, (entry) => entry.event.revision > after, this.historyHead);
      for (let i = from; i < this.history.length; i++) {
        const event = this.history[i]!.event;
        if (watcher.matches(event.key!)) watcher.queue.push(event);
      }
      watcher.handed = this.lastEventRevision;
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
      progressRevision: () => {
        if (watcher.backlog > 0) return undefined;
        return watcher.handed >= this.lastEventRevision ? Math.max(watcher.handed, this.revisionValue) : watcher.handed;
      },
      subscribe: (sink) => watcher.subscribe(sink),
      ...(this.inner?.requestProgress && { requestProgress: () => this.requestProgress() }),
    };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.tickTimer);
    this.tickTimer = undefined;
    this.readyValue = false;
    this.inner?.stop();
    this.inner = undefined;
    for (const watcher of this.watchers) watcher.end();
    this.watchers.clear();
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }
}
