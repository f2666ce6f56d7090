// Informers: a local cache of one resource kept current by list-then-watch (client-go's reflector
// and shared informer). The watch resumes from the list's resourceVersion with bookmarks; a 410 or
// a broken stream means listing again, and the cache is reconciled with the new list.
import { StatusError, isStatusError } from '@plat/apimachinery';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { silentLogger, type Logger } from './logger.js';
import type { ResourceClient } from './resource.js';
import { objectKey, type KubeObject, type ResourceRef } from './types.js';
import { WatchBrokenError, type WatchStream } from './watch.js';
import { NetworkError } from './rest.js';

export interface ResourceEventHandler<T extends KubeObject> {
  /** A new object; `isInInitialList` while the informer fills its cache for the first time. */
  onAdd?(object: T, isInInitialList: boolean): void;
  onUpdate?(oldObject: T, newObject: T): void;
  /** The object's last state: its final one from a watch, or the last seen when a re-list lost it. */
  onDelete?(object: T): void;
}

export interface InformerOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size of the lists; default 500. */
  pageSize?: number;
  /** The server ends each watch after between this and twice this; default 300 s (client-go's). */
  minWatchTimeoutSeconds?: number;
  /** Between failed list-and-watch rounds; default 800 ms doubling to 30 s, with jitter. */
  backoff?: BackoffOptions;
  logger?: Logger;
}

/** Why a watch ended: it expired (410, list again) or the server ended it (watch again). */
type WatchOutcome = 'expired' | 'ended';

/**
 * A watch that could not start for now is tried again from the same resourceVersion: the server
 * could not be reached (restarting, say), or was busy (429, 503, 504); client-go retries refused
 * connections and 429s alike.
 */
function watchRetriable(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  return isStatusError(error) && [429, 503, 504].includes(error.code);
}

export class Informer<T extends KubeObject = KubeObject> {
  private items = new Map<string, T>();
  private readonly handlers: ResourceEventHandler<T>[] = [];
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];
  private resourceVersion = '';
  /** Lists made so far: the first, and one after each 410 or failed watch. */
  lists = 0;
  private controller?: AbortController;
  private running?: Promise<void>;
  private stream?: WatchStream<T>;
  private readonly logger: Logger;

  constructor(
    readonly resource: ResourceClient<T>,
    private readonly options: InformerOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
  }

  get ref(): ResourceRef {
    return this.resource.ref;
  }

  /** Handlers added after the first sync are told of every cached object as an add. */
  addEventHandler(handler: ResourceEventHandler<T>): void {
    this.handlers.push(handler);
    if (this.synced) for (const object of this.items.values()) this.call(handler, 'onAdd', () => handler.onAdd?.(object, true));
  }

  /** The cached object of a key ("namespace/name" or "name"). Treat it as read-only. */
  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** The version the cache is current at: the last list's, event's or bookmark's. */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Resolves true once the first list is in the cache, false if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Starts listing and watching; idempotent. */
  start(): void {
    if (this.running) return;
    this.controller = new AbortController();
    this.running = this.run(this.controller.signal);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    this.stream?.stop();
    await this.running;
    this.running = undefined;
  }

  private call(handler: ResourceEventHandler<T>, what: string, invoke: () => void): void {
    try {
      invoke();
    } catch (err) {
      this.logger.error({ err, resource: this.ref.resource, handler: what }, 'informer event handler failed');
    }
  }

  private added(object: T, initial: boolean): void {
    for (const handler of this.handlers) this.call(handler, 'onAdd', () => handler.onAdd?.(object, initial));
  }

  private updated(old: T, object: T): void {
    for (const handler of this.handlers) this.call(handler, 'onUpdate', () => handler.onUpdate?.(old, object));
  }

  private deleted(object: T): void {
    for (const handler of this.handlers) this.call(handler, 'onDelete', () => handler.onDelete?.(object));
  }

  private upsert(object: T): void {
    const key = objectKey(object);
    const old = this.items.get(key);
    this.items.set(key, object);
    if (old) this.updated(old, object);
    else this.added(object, false);
  }

  private remove(object: T): void {
    this.items.delete(objectKey(object));
    this.deleted(object);
  }

  /** The cache becomes the list: what is new is added, what changed updated, what is gone deleted. */
  private replace(list: readonly T[]): void {
    const initial = !this.synced;
    const previous = this.items;
    const next = new Map<string, T>();
    for (const object of list) next.set(objectKey(object), object);
    this.items = next;
    for (const [key, object] of next) {
      const old = previous.get(key);
      if (!old) this.added(object, initial);
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) this.updated(old, object);
    }
    for (const [key, old] of previous) if (!next.has(key)) this.deleted(old);
    if (!this.synced) {
      this.synced = true;
      for (const wake of this.syncWaiters.splice(0)) wake();
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff(this.options.backoff ?? { initialMs: 800, maxMs: 30_000, jitter: 1, resetAfterMs: 120_000 });
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.logger.warn({ err, resource: this.ref.resource }, 'list and watch failed; listing again after a backoff');
        await sleep(backoff.step(), signal);
      }
    }
  }

  /**
   * Lists, then watches until the watch expires (returns: list again) or fails otherwise (throws:
   * list again after a backoff). As client-go's reflector, a watch that breaks (the connection cut,
   * the server restarting) or cannot start for now (refused, 429, 503) is started again from the
   * last resourceVersion, without a list: only a 410 (that version is out of the server's window)
   * costs one.
   */
  private async listAndWatch(signal: AbortSignal): Promise<void> {
    const { labelSelector, fieldSelector } = this.options;
    const list = await this.resource.listAll({ labelSelector, fieldSelector, pageSize: this.options.pageSize ?? 500 });
    this.lists++;
    if (signal.aborted) return;
    this.replace(list.items);
    this.resourceVersion = list.metadata.resourceVersion ?? '';
    const minTimeout = this.options.minWatchTimeoutSeconds ?? 300;
    const backoff = new Backoff(this.options.backoff ?? { initialMs: 800, maxMs: 30_000, jitter: 1, resetAfterMs: 120_000 });
    while (!signal.aborted) {
      let stream: WatchStream<T>;
      try {
        stream = await this.resource.watch({
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: Math.floor(minTimeout * (1 + Math.random())),
          labelSelector,
          fieldSelector,
        });
      } catch (error) {
        if (isStatusError(error) && error.code === 410) return;
        if (!watchRetriable(error)) throw error;
        this.logger.debug({ err: error, resource: this.ref.resource }, 'watch not started; trying again from the same resourceVersion');
        await sleep(backoff.step(), signal);
        continue;
      }
      this.stream = stream;
      if (signal.aborted) {
        stream.stop();
        return;
      }
      let outcome: WatchOutcome;
      try {
        outcome = await this.consume(stream);
      } catch (error) {
        if (!(error instanceof WatchBrokenError)) throw error;
        this.logger.debug({ err: error, resource: this.ref.resource, resourceVersion: this.resourceVersion }, 'watch broke; watching again');
        await sleep(backoff.step(), signal);
        continue;
      }
      if (outcome === 'expired') {
        this.logger.debug({ resource: this.ref.resource, resourceVersion: this.resourceVersion }, 'watch expired; listing again');
        return;
      }
    }
  }

  private async consume(stream: WatchStream<T>): Promise<WatchOutcome> {
    for await (const event of stream) {
      if (event.type === 'ERROR') {
        if (event.object.code === 410) return 'expired';
        throw new StatusError(event.object);
      }
      const object = event.object;
      if (event.type === 'ADDED' || event.type === 'MODIFIED') this.upsert(object);
      else if (event.type === 'DELETED') this.remove(object);
      if (object.metadata?.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
    }
    return 'ended';
  }
}
