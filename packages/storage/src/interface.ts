// The Storage interface: what an API server needs of a versioned key-value store.
//
// Objects are plain JSON values with a `metadata` object. A backend stores them without
// `metadata.resourceVersion` and sets that field on every object it returns, from the revision at
// which the object was last modified. Revisions are positive integers that grow with every write to
// the store (etcd's mod_revision); resourceVersion strings are their decimal form.

export interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface StoredObject {
  metadata?: ObjectMetaLike;
  [field: string]: unknown;
}

/** Conditions that the current stored object must meet for an update or delete to go ahead. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface GetOptions {
  /** Read the key as it was at this revision (0 or absent: the current state). */
  revision?: number;
  /**
   * Any state at or after this revision will do, so a cache may answer without a round trip to the
   * store (0: any state at all, as resourceVersion=0 asks). Absent: a consistent read.
   */
  notOlderThan?: number;
  /** The caller will not change what it gets, so a cache may hand out its own copy. */
  readOnly?: boolean;
}

export interface ListOptions {
  /**
   * Read at this revision (0 or absent: the current revision). Ignored when `continue` is given,
   * since the token carries the revision of the first chunk.
   */
  revision?: number;
  /** Most items to return; 0 or absent: no limit. */
  limit?: number;
  /**
   * As GetOptions.notOlderThan, for an unpaged list. With 0 (any state) and a limit, a store may
   * return the whole list, unpaged: the watch cache does, as upstream's.
   */
  notOlderThan?: number;
  /** A token from a previous chunk's `continue`. */
  continue?: string;
  /** Only items for which this returns true are returned and counted against `limit`. */
  filter?: (object: StoredObject) => boolean;
}

export interface ListResult<T extends StoredObject = StoredObject> {
  items: T[];
  /** The revision the whole (paged) list was read at. */
  revision: number;
  /** Token for the next chunk; empty when the list is complete. */
  continue: string;
  /** Items left after this chunk, when known (never with a filter, never on the last chunk). */
  remainingItemCount?: number;
  /** The storage key of each item, parallel to `items`, when the backend reports them. */
  keys?: string[];
}

/**
 * Computes the next state of an object from the current one. Throwing aborts the update with that
 * error. Returning the current object unchanged (deep-equal after encoding) writes nothing.
 */
export type UpdateFunction<T extends StoredObject> = (current: T | null) => T | Promise<T>;

/**
 * How long a written object lives: after `ttl` seconds the store deletes it (watchers see a DELETED
 * event, as for any delete), unless it was written again meanwhile; each write sets its own time to
 * live (upstream's storage.Interface passes a ttl to Create and GuaranteedUpdate, which Events use).
 * 0 or absent: the object lives until deleted. A store may keep an object a little longer than
 * asked (etcd's leases are shared by writes close together), never shorter.
 */
export interface TTLOptions {
  ttl?: number;
}

export type CreateOptions = TTLOptions;

export interface UpdateOptions extends TTLOptions {
  preconditions?: Preconditions;
  /** When the key does not exist, call the update function with null instead of failing. */
  ignoreNotFound?: boolean;
}

export interface DeleteOptions<T extends StoredObject = StoredObject> {
  preconditions?: Preconditions;
  /** Checked against the current object just before the delete; throw to refuse. */
  validateDeletion?: (current: T) => void | Promise<void>;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent<T extends StoredObject = StoredObject> {
  type: WatchEventType;
  /** The new state; for DELETED, the last state before deletion at the delete's revision. */
  object: T;
  /** The state before this event (MODIFIED and DELETED). */
  previous?: T;
  revision: number;
  /** The storage key of the object, when the backend knows it (KVStorage always sets it). */
  key?: string;
}

export interface WatchOptions {
  /**
   * Deliver the events that come after this revision. Absent or 0: from now on. A revision older
   * than the compacted one ends the watch at once with a Gone error.
   */
  revision?: number;
  /** Watch every key below `key` (a prefix) rather than one key. */
  recursive?: boolean;
  /**
   * Called with a revision R, in order with the events, once every event up to R has been yielded
   * (a progress notification, as asked for with `Watch.requestProgress`).
   */
  onProgress?: (revision: number) => void;
}

/**
 * A stream of events in revision order, each exactly once. A failure (for example a revision
 * compacted while the watch was catching up) ends the iteration by throwing a StorageError.
 */
export interface Watch<T extends StoredObject = StoredObject> extends AsyncIterable<WatchEvent<T>> {
  /** Stops the watch; a pending iteration ends normally. Safe to call more than once. */
  stop(): void;
  /**
   * Asks the backend to report progress: `WatchOptions.onProgress` is then called with the
   * store's revision once the watch has delivered everything up to it. Backends may ignore this.
   */
  requestProgress?(): void;
  /**
   * The same events in runs of whatever has arrived since the last run (for fan-out: one wake-up
   * per run). A watch is read either this way or one event at a time, not both.
   */
  batches?(): AsyncIterable<WatchEvent<T>[]>;
  /**
   * Hands each run to `sink` the moment it comes, instead of queueing it for an iteration (the
   * watch cache offers this): a consumer that keeps a queue of its own saves a queue and a round of
   * promises per run, which a thousand watchers multiply. Runs waiting already go to it at once.
   * A watch is read this way or by iteration, not both.
   */
  subscribe?(sink: WatchSink<T>): void;
  /**
   * The revision up to which the reader has been handed every event of this watch, when it has
   * read all that is queued (undefined otherwise). Progress notifications carry it past the last
   * event: what a bookmark may say.
   */
  progressRevision?(): number | undefined;
}

/** Where a subscribed watch delivers (Watch.subscribe). */
export interface WatchSink<T extends StoredObject = StoredObject> {
  /** A run of events, in order. The array may be shared with other watchers: neither keep nor change it (its events are shared too). */
  push(run: WatchEvent<T>[]): void;
  /** The watch has ended (the store stopped it, or the reader fell too far behind); no more runs come. */
  end(): void;
  /** Events handed over and not yet read: the store ends a watch whose backlog stays too long. */
  readonly backlog: number;
}

export interface Storage {
  /**
   * Stores a new object; AlreadyExists when the key is taken. Returns the stored object, with its
   * resourceVersion: a new object and metadata, whose other values may be `object`'s own, which the
   * caller hands over and must not change afterwards. `object` must be plain JSON data.
   */
  create<T extends StoredObject>(key: string, object: T, options?: CreateOptions): Promise<T>;
  /** NotFound when absent; TooLargeResourceVersion or Gone for a revision out of range. */
  get<T extends StoredObject>(key: string, options?: GetOptions): Promise<T>;
  /** The objects whose keys start with `prefix` (which should end in "/"), in key order. */
  list<T extends StoredObject>(prefix: string, options?: ListOptions): Promise<ListResult<T>>;
  /** Read, modify, compare-and-swap, retrying on concurrent change. */
  guaranteedUpdate<T extends StoredObject>(key: string, update: UpdateFunction<T>, options?: UpdateOptions): Promise<T>;
  /** Deletes the key, returning the object as it was. NotFound when absent. */
  delete<T extends StoredObject>(key: string, options?: DeleteOptions<T>): Promise<T>;
  /** Resolves once the watch's start is fixed: every later write is delivered. */
  watch<T extends StoredObject>(key: string, options?: WatchOptions): Promise<Watch<T>>;
  /** The store's current revision (of the last write anywhere in it). */
  currentRevision(): Promise<number>;
  /** Drops history before `revision`: reads and watches from older revisions then fail with Gone. */
  compact(revision: number): Promise<void>;
  /** Resolves when the backend answers; rejects with the reason when it does not. */
  checkHealth(): Promise<void>;
  close(): Promise<void>;
  /**
   * Drops what is kept for the objects below `prefix` (a watch cache and its watch on the store):
   * their resource is no longer served. Their watchers end. Optional: plain backends keep nothing.
   */
  release?(prefix: string): void;
}
