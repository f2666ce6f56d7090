// One resource's watch cache: a single inner watch feeding its state and window of events
// (event-window.ts), from which watches and current lists are served; the dispatcher hands the
// events to the watchers (dispatcher.ts). This file owns the inner watch, its rebuilds, readiness,
// and how far the cache is known to be (events and progress notifications).
import type { ListResult, Storage, StoredObject, Watch, WatchEvent } from '../interface.js';
import { gone, isStorageError } from '../errors.js';
import { CacheWatcher } from './cache-watcher.js';
import { Dispatcher, type DispatchSettings } from './dispatcher.js';
import { EventWindow, type EventWindowSettings } from './event-window.js';

export interface ResourceCacheSettings extends EventWindowSettings, DispatchSettings {
  /** Page size of the (re)list that fills the cache. */
  listPageSize: number;
  /**
   * How many revisions before its list a new cache fills its window with, from the store's history
   * (what compaction left of it): a client resuming a watch after this replica restarted is then
   * inside the window, not sent to list again. 0: the window starts at the list.
   */
  historyRevisions: number;
  onError: (error: unknown, what: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class ResourceCache {
  private readonly window: EventWindow;
  private readonly dispatcher: Dispatcher;
  private waiters: { revision: number; resolve: (reached: boolean) => void }[] = [];
  /** Watches from revisions being filled in, waiting for the window to have them. */
  private fillWaiters: (() => void)[] = [];
  /** The revision the cache was listed at while its window is filled in from before it (else 0). */
  private fillingUntil = 0;
  /** The revision the window is being filled from (meaningful while `fillingUntil` is set). */
  private fillFrom = 0;
  private readyWaiters: (() => void)[] = [];
  /** Ready at least once (as an informer's HasSynced: a rebuild later does not undo it). */
  synced = false;
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

  /**
   * Lists the resource and starts the inner watch; rejects when either fails. The watch starts
   * `historyRevisions` before the list where the store still has them: the events up to the list
   * fill the window's history (see `apply`), so that a watch from before this cache existed can
   * be served from it.
   */
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
    this.window.reset(objects, revision);
    const fillFrom = Math.max(0, revision - this.settings.historyRevisions);
    await this.openInner(fillFrom < revision ? fillFrom : revision, revision);
  }

  /** Starts the inner watch after `after`; with `after` below the listed revision, filling the window. */
  private async openInner(after: number, listed: number): Promise<void> {
    let watch: Watch;
    try {
      watch = await this.storage.watch(this.prefix, {
        recursive: true,
        // 0 would mean "from now".
        revision: Math.max(after, 1),
        onProgress: (progress) => this.onProgress(progress),
      });
    } catch (error) {
      if (after < listed && isStorageError(error, 'Gone')) return this.openInner(this.fillStartAfterGone(error.revision, listed), listed);
      throw error;
    }
    this.innerWatches++;
    if (this.stopped) {
      watch.stop();
      return;
    }
    if (after < listed) {
      this.window.beginFill(after);
      this.fillingUntil = listed;
      this.fillFrom = after;
    } else if (this.fillingUntil > 0) {
      // No history left to fill with (compacted): what waited for it finds the window as it is.
      this.fillingUntil = 0;
      for (const wake of this.fillWaiters.splice(0)) wake();
    }
    this.inner = watch;
    this.readyValue = true;
    this.synced = true;
    // Where the store answers progress requests safely, a filling that no event follows ends now.
    if (this.fillingUntil > 0) watch.requestProgress?.();
    const waiting = this.readyWaiters;
    this.readyWaiters = [];
    for (const wake of waiting) wake();
    void this.consume(watch);
  }

  /** Where to fill from once the store says history before `oldest` is compacted. */
  private fillStartAfterGone(oldest: number, listed: number): number {
    return oldest > 0 && oldest < listed ? oldest : listed;
  }

  private async consume(watch: Watch): Promise<void> {
    try {
      for await (const event of watch) this.apply(event);
      if (this.stopped || watch !== this.inner) return;
      this.settings.onError(new Error('the inner watch ended'), `watch cache ${this.prefix}`);
    } catch (error) {
      if (this.stopped || watch !== this.inner) return;
      if (this.fillingUntil > 0 && isStorageError(error, 'Gone')) {
        // Compaction took the start of the history asked for: fill from what is left (or not at
        // all). Nothing after the list has been applied yet, so the state stands as listed; watches
        // waiting for the filling go on waiting.
        const listed = this.fillingUntil;
        this.inner = undefined;
        // Not counted: the store refused it before it served anything.
        this.innerWatches--;
        this.window.clearHistory(listed);
        try {
          await this.openInner(this.fillStartAfterGone(error.revision, listed), listed);
          return;
        } catch (retryError) {
          this.settings.onError(retryError, `watch cache ${this.prefix}`);
        }
      } else this.settings.onError(error, `watch cache ${this.prefix}`);
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
    // A filling cut short: what waited for it finds the cache not ready, and is served otherwise.
    this.fillingUntil = 0;
    for (const wake of this.fillWaiters.splice(0)) wake();
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
    if (this.fillingUntil > 0) {
      if (event.revision <= this.fillingUntil) {
        this.window.backfill(event);
        return;
      }
      this.fillDone();
    }
    this.window.apply(event);
    this.eventsReceived++;
    this.dispatcher.schedule();
    this.wake();
  }

  /** The window holds every event since it was asked to fill from. */
  private fillDone(): void {
    this.fillingUntil = 0;
    this.window.filled();
    const waiting = this.fillWaiters;
    this.fillWaiters = [];
    for (const wake of waiting) wake();
  }

  /** Whether past events are still being filled into the window. */
  get filling(): boolean {
    return this.fillingUntil > 0;
  }

  private onProgress(revision: number): void {
    if (this.fillingUntil > 0 && revision >= this.fillingUntil) this.fillDone();
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

  /** How many current objects there are below `prefix`. */
  count(prefix: string): number {
    return this.window.count(prefix);
  }

  /** Up to `count` current objects below `prefix`, spread through them (shared: not to be mutated). */
  sample(prefix: string, count: number): StoredObject[] {
    return this.window.sample(prefix, count);
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
   * Resolves once the cache is ready (true), or false after `timeoutMs` or once stopped. A cache
   * that is re-listing after its inner watch failed is not ready meanwhile.
   */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return this.waitOn(this.readyWaiters, timeoutMs).then(() => this.ready);
  }

  /**
   * Whether a watch from `after` needs the window's filling to finish first: `after` is older than
   * the listed revision, and not older than where the filling started.
   */
  waitsForFill(after: number): boolean {
    return this.fillingUntil > 0 && after < this.window.start && after >= this.fillFrom;
  }

  /** Resolves once the window's past events are all in, or after `timeoutMs`. */
  whenFilled(timeoutMs: number): Promise<void> {
    if (this.fillingUntil === 0) return Promise.resolve();
    return this.waitOn(this.fillWaiters, timeoutMs);
  }

  private waitOn(list: (() => void)[], timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = list.indexOf(wake);
        if (index >= 0) list.splice(index, 1);
        resolve();
      }, timeoutMs);
      timer.unref();
      list.push(wake);
    });
  }

  /**
   * A watch of `key` (or every key below it) for the events after `after`; undefined when the
   * cache is not ready. Gone when `after` is older than its window, as upstream's watch cache
   * answers: the client lists again rather than opening a watch on the store for itself.
   */
  watch(key: string, recursive: boolean, after: number): Watch | undefined {
    if (!this.ready) return undefined;
    // Upstream's "too old resource version: <asked> (<oldest it could serve>)", through the
    // iteration as a store's watch from compacted history reports it.
    if (after < this.window.start) return failedWatch(gone(after, this.window.start + 1));
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
    for (const wake of [...this.readyWaiters.splice(0), ...this.fillWaiters.splice(0)]) wake();
  }
}

/** A watch whose iteration fails at once with `error` (a start older than the window: Gone). */
function failedWatch(error: Error): Watch {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(error),
      return: () => Promise.resolve({ done: true as const, value: undefined }),
    }),
    stop: () => {},
  };
}
