// One resource's watch cache: a single inner watch feeding its state and window of events
// (event-window.ts), from which watches and current lists are served; the dispatcher hands the
// events to the watchers (dispatcher.ts). This file owns the inner watch, its rebuilds, readiness,
// and how far the cache is known to be (events and progress notifications).
import type { ListResult, Storage, StoredObject, Watch, WatchEvent } from '../interface.js';
import { CacheWatcher } from './cache-watcher.js';
import { Dispatcher, type DispatchSettings } from './dispatcher.js';
import { EventWindow, type EventWindowSettings } from './event-window.js';

export interface ResourceCacheSettings extends EventWindowSettings, DispatchSettings {
  /** Page size of the (re)list that fills the cache. */
  listPageSize: number;
  onError: (error: unknown, what: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class ResourceCache {
  private readonly window: EventWindow;
  private readonly dispatcher: Dispatcher;
  private waiters: { revision: number; resolve: (reached: boolean) => void }[] = [];
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
  /** Lists answered from this cache. */
  listsServed = 0;

  constructor(
    private readonly storage: Storage,
    readonly prefix: string,
    private readonly settings: ResourceCacheSettings,
  ) {
    this.window = new EventWindow(settings);
    this.dispatcher = new Dispatcher(this.window, settings);
  }

  get ready(): boolean {
    return this.readyValue && !this.stopped;
  }

  get revision(): number {
    return this.window.revision;
  }

  /** The oldest revision a watch may start after. */
  get oldestRevision(): number {
    return this.window.start;
  }

  get size(): number {
    return this.window.size;
  }

  get watcherCount(): number {
    return this.dispatcher.watchers.size;
  }

  get historyLength(): number {
    return this.window.length;
  }

  /** Events handed to watchers, one per watcher that took each. */
  get eventsDispatched(): number {
    return this.dispatcher.eventsDispatched;
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
    this.window.reset(objects, revision);
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
    this.dispatcher.endAll();
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
    this.window.apply(event);
    this.eventsReceived++;
    this.dispatcher.schedule();
    this.wake();
  }

  private onProgress(revision: number): void {
    if (revision <= this.window.revision) return;
    // Every event up to `revision` has been applied: a watcher handed the last of them has it all.
    this.window.revision = revision;
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
      if (this.window.revision >= waiter.revision) waiter.resolve(true);
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
    if (this.window.revision >= revision) return Promise.resolve(true);
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
    return this.window.get(key);
  }

  /** The current objects below `prefix`, in key order. */
  list(prefix: string, filter?: (object: StoredObject) => boolean): { items: StoredObject[]; keys: string[]; revision: number } {
    return this.window.list(prefix, filter);
  }

  /**
   * A watch of `key` (or every key below it) for the events after `after`, or undefined when the
   * cache cannot serve it (not ready, or `after` is older than its window).
   */
  watch(key: string, recursive: boolean, after: number): Watch | undefined {
    if (!this.ready || after < this.window.start) return undefined;
    const watcher = new CacheWatcher(key, recursive, after);
    if (after < this.window.lastEventRevision) {
      // What the window holds after `after` waits for it at once; the rest comes in its turn.
      watcher.queue.pushAll(this.window.eventsAfter(after, (key) => watcher.matches(key)));
      watcher.handed = this.window.lastEventRevision;
    }
    const watchers = this.dispatcher.watchers;
    watchers.add(watcher);
    const stop = (): void => {
      watchers.delete(watcher);
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
        return watcher.handed >= this.window.lastEventRevision ? Math.max(watcher.handed, this.window.revision) : watcher.handed;
      },
      subscribe: (sink) => watcher.subscribe(sink),
      ...(this.inner?.requestProgress && { requestProgress: () => this.requestProgress() }),
    };
  }

  stop(): void {
    this.stopped = true;
    this.dispatcher.stop();
    this.readyValue = false;
    this.inner?.stop();
    this.inner = undefined;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }
}
