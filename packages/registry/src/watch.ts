// Watches as the API serves them (conventions 4.7 and 6): initial state as synthetic ADDED events
// where the resourceVersion asks for it, selector filtering in which an object that stops matching
// is reported DELETED, bookmarks, and a compacted start reported as an ERROR event carrying 410.
import { StatusError, newInternalError, newResourceExpired } from '@plat/apimachinery';
import { EventQueue, isStorageError, type StorageError, type Watch, type WatchEvent as StorageWatchEvent } from '@plat/storage';
import { deepCopy } from '@plat/merge';
import type { KubeObject } from './definition.js';
import type { ResourceStore } from './resource-store.js';
import type { ListQueryWithSelectors } from './requests.js';
import { buildPredicate, type Predicate } from './predicate.js';
import { parseResourceVersion, storeRevision, validateListQuery } from './resource-version.js';
import { toStatusError } from './errors.js';
import type { StoredForm } from './stored-form.js';

export type ApiWatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ApiWatchEvent {
  type: ApiWatchEventType;
  object: unknown;
}

export interface WatchQuery extends ListQueryWithSelectors {
  allowWatchBookmarks?: boolean;
}

export interface WatchSettings {
  /** How often a watch that asked for bookmarks gets one. */
  bookmarkIntervalMs: number;
  /**
   * When the server will end the watch (its timeoutSeconds), from now. A watch that asked for
   * bookmarks gets one 2 s before, as from upstream's watch cache, so that its client resumes
   * from a current resourceVersion rather than from its last event, which may be compacted away.
   */
  timeoutMs?: number;
  /**
   * Events a client may fall behind by before its watch is closed (it then resumes from its last
   * resourceVersion), so that one slow client cannot hold unbounded memory. Default 10,000.
   */
  maxBufferedEvents?: number;
}

const DEFAULT_MAX_BUFFERED_EVENTS = 10_000;
/** How long before the server ends a watch its last bookmark goes out. */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;

export interface ApiWatch extends AsyncIterable<ApiWatchEvent> {
  stop(): void;
  /**
   * Ends the watch cleanly, the server going away: what is queued is still read, then, for a watch
   * that asked for bookmarks, a last one carrying how far it got, so that its client resumes from
   * there on another replica (or this one restarted) rather than from its last event.
   */
  finish(): void;
  /**
   * The same events in runs of whatever is ready, each run gathered after the event loop's current
   * I/O (so that a writer can send a run in one write). Read this way or one event at a time.
   * `direct`, when given, is offered each run that comes while the iteration waits, at once: it
   * returns true when it has taken the run (written it), false to leave it to the iteration (see
   * EventQueue.batches). Watchers without a selector that are handed the same run of the watch
   * cache are offered the same array, so a writer can encode it once for all of them.
   */
  batches(direct?: (run: readonly ApiWatchEvent[]) => boolean): AsyncIterable<ApiWatchEvent[]>;
}

export async function startWatch<T extends KubeObject>(
  store: ResourceStore<T>,
  namespace: string,
  query: WatchQuery,
  settings: WatchSettings,
): Promise<ApiWatch> {
  const resource = store.resource;
  const form = store.form;
  validateListQuery({ ...query, watch: true }, store.context.domain, store.features.watchList);
  const predicate: Predicate<T> = buildPredicate(resource, query.labelSelector, query.fieldSelector);
  const rv = query.resourceVersion ?? '';
  const requested = rv ? parseResourceVersion(rv) : 0n;
  // Initial state is sent for an unset or "0" version, or when sendInitialEvents asks for it.
  const initialEvents = query.sendInitialEvents ?? (rv === '' || rv === '0');
  const queue = new EventQueue<ApiWatchEvent>({ highWaterMark: 1_000_000 });
  const bookmark = (revision: bigint, annotations?: Record<string, string>): ApiWatchEvent => ({
    type: 'BOOKMARK',
    object: {
      kind: resource.kind,
      apiVersion: resource.apiVersion,
      metadata: { resourceVersion: String(revision), ...(annotations && { annotations }) },
    },
  });

  // Revisions as bigints: a watch may start from one past any a store reaches, named exactly.
  let startRevision: bigint;
  if (initialEvents) {
    // "Start at Any" (resourceVersion=0) may begin from the cache's state as it is; a requested
    // revision is a floor; otherwise the state is the current one: the store's revision now is the
    // floor, so that the watch cache, where there is one, serves it once it has caught up (upstream
    // 1.28 reads it from etcd, to the same effect). Its objects are then the cache's, shared, and a
    // watcher that reads them slowly holds references, not a copy of the resource.
    const floor = requested > 0n ? requested : rv === '' ? BigInt(await store.storage.currentRevision()) : 0n;
    const list = await store.list(namespace, {
      ...(rv === '0' && { resourceVersion: '0' }),
      ...(floor > 0n && { resourceVersion: String(floor), resourceVersionMatch: 'NotOlderThan' }),
      ...(query.labelSelector && { labelSelector: query.labelSelector }),
      ...(query.fieldSelector && { fieldSelector: query.fieldSelector }),
    });
    for (const item of list.items) queue.push({ type: 'ADDED', object: typedItem(item, resource.apiVersion, resource.kind) });
    startRevision = BigInt(list.metadata.resourceVersion ?? 0);
    if (query.sendInitialEvents && query.allowWatchBookmarks) {
      queue.push(bookmark(startRevision, { [`${store.context.domain}/initial-events-end`]: 'true' }));
    }
  } else {
    startRevision = requested > 0n ? requested : BigInt(await store.storage.currentRevision());
  }

  const key = predicate.name !== undefined ? resource.key(namespace, predicate.name) : resource.prefix(namespace);
  // A start in compacted history is reported as upstream's watch cache does: the watch is accepted,
  // and its one event is an ERROR carrying 410 Expired. `revision` is the oldest one kept, so the
  // oldest resourceVersion a watch can start from (and see every event after) is the one before it.
  const tooOld = (gone: StorageError): StatusError =>
    newResourceExpired(`too old resource version: ${startRevision} (${Math.max(gone.revision - 1, 0)})`);
  let source: Watch<T>;
  try {
    source = await store.storage.watch<T>(key, { recursive: predicate.name === undefined, revision: storeRevision(startRevision) });
  } catch (error) {
    if (!isStorageError(error, 'Gone')) throw toStatusError(error, { groupResource: resource.groupResource });
    queue.push({ type: 'ERROR', object: tooOld(error).status });
    queue.end();
    return {
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
      batches: (direct) => queue.batches({ coalesce: true, direct }),
      stop: () => queue.discard(),
      finish: () => queue.end(),
    };
  }

  let lastRevision = startRevision;
  /** Events handed over by the storage and still being converted: not queued yet, nor passed. */
  let converting = 0;
  /** How far the watch has got: its last event, or the store's progress past it (none past runs still converting). */
  const reached = (): bigint => {
    const progress = converting > 0 ? 0n : BigInt(source.progressRevision?.() ?? 0);
    return progress > lastRevision ? progress : lastRevision;
  };
  // A bookmark says how far this watch has got: past its last event when the store reports progress
  // (the watch cache, from etcd's progress notifications), which is asked for the next one.
  const deadline = settings.timeoutMs === undefined ? Infinity : Date.now() + settings.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let bookmarking = query.allowWatchBookmarks === true;
  const stopBookmarks = (): void => {
    bookmarking = false;
    clearTimeout(timer);
  };
  const scheduleBookmark = (): void => {
    if (!bookmarking) return;
    const now = Date.now();
    const beforeEnd = deadline - PRE_TIMEOUT_BOOKMARK_MS;
    // The one before the end is the last, counted by itself and not by the clock: a timer may fire
    // a millisecond before Date.now() reaches its time (libuv's loop time lags), and a second one
    // would follow.
    const last = now + settings.bookmarkIntervalMs >= beforeEnd;
    const at = last ? beforeEnd : now + settings.bookmarkIntervalMs;
    if (at <= now) return; // no time for it
    timer = setTimeout(() => {
      queue.push(bookmark(reached()));
      source.requestProgress?.();
      if (!last) scheduleBookmark();
    }, at - now);
    timer.unref();
  };
  scheduleBookmark();
  const stop = (): void => {
    stopBookmarks();
    source.stop();
    queue.discard();
  };
  const finish = (): void => {
    if (converting > 0) {
      // Runs still converting are queued first, and the last bookmark says how far they go: the
      // store's progress is not to be trusted past what it was stopped with.
      source.stop();
      conversions = conversions.then(() => {
        if (bookmarking && !queue.closed) queue.push(bookmark(lastRevision));
        stopBookmarks();
        queue.end();
      });
      return;
    }
    if (bookmarking && !queue.closed) queue.push(bookmark(reached()));
    stopBookmarks();
    source.stop();
    queue.end();
  };

  const maxBuffered = settings.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
  /** Queues a run (as this version serves it) as API events; false when the reader is too far behind (the watch is then stopped). */
  const take = (run: readonly StorageWatchEvent<T>[]): boolean => {
    if (run.length === 0) return true;
    const outs = apiEvents(run, predicate);
    lastRevision = BigInt(run[run.length - 1]!.revision);
    if (queue.length + outs.length > maxBuffered) {
      // Too far behind: what fits goes, then the stream ends; the client watches again from what
      // it has seen.
      queue.pushAll(outs.slice(0, maxBuffered - queue.length));
      stopBookmarks();
      source.stop();
      return false;
    }
    queue.pushAll(outs);
    return true;
  };
  /**
   * A conversion that failed ends the watch with an ERROR event carrying a 500, as upstream's watch
   * ends on an object it cannot decode.
   */
  const conversionFailed = (error: unknown): void => {
    stopBookmarks();
    source.stop();
    const status = toStatusError(error, { groupResource: resource.groupResource });
    queue.push({ type: 'ERROR', object: (status instanceof StatusError ? status : newInternalError(error)).status });
    queue.end();
  };
  /**
   * Runs being converted, in order: each is queued once it is converted and the one before it is
   * queued. Watchers of one version share each run's conversion (servedRun).
   */
  let conversions: Promise<void> = Promise.resolve();
  /**
   * Takes a storage run: at once where this version serves stored objects as they are, else once
   * converted (then the promise of its being queued).
   */
  const takeStored = (run: readonly StorageWatchEvent<T>[]): Promise<void> | undefined => {
    if (!form) {
      if (!take(run)) queue.end();
      return undefined;
    }
    if (run.length === 0 || queue.closed) return undefined;
    converting += run.length;
    const served = servedRun(form, run);
    return (conversions = conversions.then(async () => {
      let events: readonly StorageWatchEvent<T>[];
      try {
        events = await served;
      } catch (error) {
        conversionFailed(error);
        return;
      } finally {
        converting -= run.length;
      }
      if (!queue.closed && !take(events)) queue.end();
    }));
  };
  if (source.subscribe) {
    // The watch cache hands each run over as it dispatches: straight into this watch's queue (once
    // converted, where this version converts).
    source.subscribe({
      push: (run) => void takeStored(run),
      // What is still converting is queued before the end.
      end: () => {
        if (converting > 0) conversions = conversions.then(() => queue.end());
        else queue.end();
      },
      get backlog() {
        return queue.length + converting;
      },
    });
  } else {
    void (async () => {
      try {
        for await (const run of eventRuns(source)) {
          const queued = takeStored(run);
          if (queued) await queued;
          if (queue.closed) break;
        }
        queue.end();
      } catch (error) {
        stopBookmarks();
        const status = isStorageError(error, 'Gone') ? tooOld(error) : toStatusError(error, { groupResource: resource.groupResource });
        if (status instanceof StatusError) queue.push({ type: 'ERROR', object: status.status });
        queue.end();
      }
    })();
  }

  return { [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](), batches: (direct) => queue.batches({ coalesce: true, direct }), stop, finish };
}

/**
 * A listed item as an initial ADDED event carries it: with its apiVersion and kind, one object per
 * item (the watch cache's, shared) for as long as the item lives, so that watchers that start
 * together hand the writer the same objects, and each is encoded once for all of them rather than
 * once for each (fifty watchers of 60 ConfigMaps of 900 KB held 4 MB of encodings each).
 */
const typedItems = new WeakMap<object, { apiVersion?: unknown; kind?: unknown }>();

function typedItem(item: object, apiVersion: string, kind: string): object {
  let typed = typedItems.get(item);
  if (typed?.apiVersion !== apiVersion || typed.kind !== kind) {
    typed = { apiVersion, kind, ...item };
    typedItems.set(item, typed);
  }
  return typed;
}

/**
 * A storage watch as runs of events: its own runs when it has them (the watch cache), taken
 * directly (a generator delegating to them would cost each run another round of promises), else
 * one by one.
 */
function eventRuns<T extends KubeObject>(source: Watch<T>): AsyncIterable<StorageWatchEvent<T>[]> {
  return source.batches?.() ?? oneByOne(source);
}

async function* oneByOne<T extends KubeObject>(source: Watch<T>): AsyncGenerator<StorageWatchEvent<T>[]> {
  for await (const event of source) yield [event];
}

/**
 * A storage run as one of its kind's versions serves it, converted in one call (its objects and
 * their previous states together): made once per version, so that the watchers of that version
 * are handed one array (and the same events) in turn.
 */
const servedRuns = new WeakMap<StoredForm<KubeObject>, WeakMap<object, Promise<StorageWatchEvent<KubeObject>[]>>>();

function servedRun<T extends KubeObject>(form: StoredForm<T>, run: readonly StorageWatchEvent<T>[]): Promise<StorageWatchEvent<T>[]> {
  const generic = form as unknown as StoredForm<KubeObject>;
  let runs = servedRuns.get(generic);
  if (!runs) servedRuns.set(generic, (runs = new WeakMap()));
  let served = runs.get(run) as Promise<StorageWatchEvent<T>[]> | undefined;
  if (!served) {
    // The run's events are read now: the array is the storage's, not to be kept.
    const events = [...run];
    const stored = events.flatMap((event) => (event.previous ? [event.object, event.previous] : [event.object]));
    served = form.served(stored).then((objects) => {
      let next = 0;
      return events.map((event) => ({
        ...event,
        object: objects[next++]!,
        ...(event.previous && { previous: objects[next++]! }),
      }));
    });
    runs.set(run, served as unknown as Promise<StorageWatchEvent<KubeObject>[]>);
  }
  return served;
}

/**
 * Without a selector every watcher sees a storage event as the same API event; the watch cache
 * hands the same storage event to all of them, so it is made once (and so encoded once).
 */
const unfiltered = new WeakMap<object, ApiWatchEvent | null>();

/**
 * The last storage run made into API events without a selector, and what it became: the watch
 * cache hands the watchers of a key one run array in turn, and each of them gets one array back.
 */
let lastUnfiltered: { run: readonly object[]; events: readonly ApiWatchEvent[] } | undefined;
/**
 * The same for every run still referenced: converted runs reach their watchers when their
 * conversion is done, the watchers of one version interleaved with those of another.
 */
const unfilteredRuns = new WeakMap<readonly object[], readonly ApiWatchEvent[]>();

/** A storage run as this watcher's API events (never to be changed: it may be shared). */
function apiEvents<T extends KubeObject>(run: readonly StorageWatchEvent<T>[], predicate: Predicate<T>): readonly ApiWatchEvent[] {
  if (!predicate.filter) {
    if (lastUnfiltered?.run === run) return lastUnfiltered.events;
    const made = unfilteredRuns.get(run);
    if (made) {
      lastUnfiltered = { run, events: made };
      return made;
    }
  }
  const events: ApiWatchEvent[] = [];
  for (const event of run) {
    const out = toApiEvent(event, predicate);
    if (out) events.push(out);
  }
  if (!predicate.filter) {
    lastUnfiltered = { run, events };
    unfilteredRuns.set(run, events);
  }
  return events;
}

function toApiEvent<T extends KubeObject>(event: StorageWatchEvent<T>, predicate: Predicate<T>): ApiWatchEvent | undefined {
  if (predicate.filter) return selectorTransition(event, predicate);
  let shared = unfiltered.get(event);
  if (shared === undefined) {
    shared = selectorTransition(event, predicate) ?? null;
    unfiltered.set(event, shared);
  }
  return shared ?? undefined;
}

/** Selector transitions: what a client filtering on the selector should see of this change. */
function selectorTransition<T extends KubeObject>(event: StorageWatchEvent<T>, predicate: Predicate<T>): ApiWatchEvent | undefined {
  const matches = (object: T | undefined): boolean => !!object && (!predicate.filter || predicate.filter(object));
  const now = event.type !== 'DELETED' && matches(event.object);
  const before = event.type === 'ADDED' ? false : matches(event.previous ?? (event.type === 'DELETED' ? event.object : undefined));
  if (event.type === 'DELETED') return before || matches(event.object) ? { type: 'DELETED', object: event.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: event.object };
  if (now) return { type: 'ADDED', object: event.object };
  if (before) {
    // No longer selected: to this watcher the object is gone, as it was last seen, at this revision.
    const gone = deepCopy(event.previous!);
    gone.metadata.resourceVersion = String(event.revision);
    return { type: 'DELETED', object: gone };
  }
  return undefined;
}
