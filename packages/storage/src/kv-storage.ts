// KVStorage: the Storage interface (interface.ts) built from a backend's KV primitives (kv.ts), so
// that the etcd, SQLite and memory backends share one implementation of encoding, paging,
// preconditions, retries and watch events. Objects of the API are served by the registry's
// ResourceStore, over a Storage such as this one.
import { isDeepStrictEqual } from 'node:util';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Storage,
  StoredObject,
  UpdateFunction,
  UpdateOptions,
  Watch,
  WatchEvent,
  WatchOptions,
} from './interface.js';
import { type KV, type KVEvent, type StoredValue, type WatchHandle, keyEnd, prefixEnd } from './kv.js';
import { StorageError, alreadyExists, goneContinuing, isStorageError, notFound } from './errors.js';
import { decodeObject, encodeObject } from './codec.js';
import type { ResourceTransformers } from './value/resource-transformers.js';
import type { ValueTransformer } from './value/transformer.js';
import { identityTransformer } from './value/identity.js';
import { LATEST_REVISION, decodeContinue, encodeContinue } from './continue-token.js';
import { checkPreconditions } from './preconditions.js';
import { EventQueue } from './event-queue.js';

/** A progress notification in a watch's queue. */
interface ProgressMark {
  progress: number;
}

/** Largest page read from the backend when a filter makes it read past `limit`. */
const MAX_FILTERED_PAGE = 10_000;

export class KVStorage implements Storage {
  /**
   * @param prefix prepended to every key; the KV sees full keys.
   * @param transformers what each resource's values go through on their way to the KV and back
   *   (encryption at rest); without, every value is stored as its JSON text.
   */
  constructor(
    protected readonly kv: KV,
    private readonly prefix = '',
    private readonly transformers?: ResourceTransformers,
  ) {}

  /** The value to store for an object encoded as `json` at `key`. */
  private seal(json: string, key: string): StoredValue {
    const transformer = this.transformers?.forKey(key);
    if (!transformer) return json;
    const fullKey = this.prefix + key;
    try {
      return transformer.toStorage(Buffer.from(json), Buffer.from(fullKey));
    } catch (error) {
      throw transformFailed(fullKey, error);
    }
  }

  /** The encoded object a stored value holds, and whether it is due to be written again. */
  private plain(value: StoredValue, key: string): { data: StoredValue; stale: boolean } {
    const configured = this.transformers?.forKey(key);
    // Text is JSON this store wrote untransformed; with no transformer for the resource it is the
    // answer as it is. Otherwise it goes through the transformers like any bytes, so that a value
    // written before encryption was configured is read by identity (and is stale) or refused.
    if (typeof value === 'string' && !configured) return { data: value, stale: false };
    const transformer: ValueTransformer = configured ?? identityTransformer;
    try {
      return transformer.fromStorage(typeof value === 'string' ? Buffer.from(value) : value, Buffer.from(this.prefix + key));
    } catch (error) {
      throw transformFailed(this.prefix + key, error);
    }
  }

  private decode<T extends StoredObject>(value: StoredValue, revision: number, key: string): T {
    return decodeObject<T>(this.plain(value, key).data, revision, key);
  }

  async create<T extends StoredObject>(key: string, object: T, options: CreateOptions = {}): Promise<T> {
    const value = this.seal(encodeObject(object, key), key);
    const result = await this.kv.compareAndPut(this.prefix + key, 0, value, options.ttl ?? 0);
    if (!result.succeeded) throw alreadyExists(key);
    // What was stored is `object` as encoded: rather than decode `value` again, the result is the
    // object itself under a new top level and metadata (see Storage.create).
    return { ...object, metadata: { ...object.metadata, resourceVersion: String(result.revision) } };
  }

  async get<T extends StoredObject>(key: string, options: GetOptions = {}): Promise<T> {
    const kv = await this.kv.get(this.prefix + key, options.revision ?? 0);
    if (!kv) throw notFound(key);
    return this.decode<T>(kv.value, kv.modRevision, key);
  }

  async list<T extends StoredObject>(prefix: string, options: ListOptions = {}): Promise<ListResult<T>> {
    const fullPrefix = this.prefix + prefix;
    let revision = options.revision ?? 0;
    let start = fullPrefix;
    if (options.continue) {
      ({ revision, startKey: start } = decodeContinue(options.continue, fullPrefix));
    }
    const end = prefixEnd(fullPrefix);
    const limit = options.limit ?? 0;
    const filter = options.filter;
    let pageSize = limit;
    const items: T[] = [];
    const keys: string[] = [];
    let lastKey = '';
    const resumeKey = start;
    for (;;) {
      const page = await this.kv.range({ start, end, revision, limit: pageSize }).catch((error: unknown) => {
        // The token's revision is compacted: offer one that resumes from the same key at the latest.
        if (options.continue && isStorageError(error, 'Gone')) {
          throw goneContinuing(error, encodeContinue(LATEST_REVISION, resumeKey, fullPrefix));
        }
        throw error;
      });
      revision = page.revision;
      for (let i = 0; i < page.kvs.length; i++) {
        const kv = page.kvs[i]!;
        const object = this.decode<T>(kv.value, kv.modRevision, kv.key.slice(this.prefix.length));
        if (filter && !filter(object)) continue;
        if (limit > 0 && items.length === limit) {
          // One matching item beyond the limit: there is more to read.
          return { items, keys, revision, continue: encodeContinue(revision, keyEnd(lastKey), fullPrefix) };
        }
        items.push(object);
        keys.push(kv.key.slice(this.prefix.length));
        lastKey = kv.key;
      }
      const more = page.remaining > 0;
      if (limit > 0 && items.length === limit && more) {
        const remainingItemCount = filter ? undefined : page.remaining;
        const token = encodeContinue(revision, keyEnd(lastKey), fullPrefix);
        return { items, keys, revision, continue: token, ...(remainingItemCount !== undefined && { remainingItemCount }) };
      }
      if (!more) return { items, keys, revision, continue: '' };
      start = keyEnd(page.kvs[page.kvs.length - 1]!.key);
      if (pageSize > 0) pageSize = Math.min(pageSize * 2, MAX_FILTERED_PAGE);
    }
  }

  async guaranteedUpdate<T extends StoredObject>(
    key: string,
    update: UpdateFunction<T>,
    options: UpdateOptions = {},
  ): Promise<T> {
    const fullKey = this.prefix + key;
    let current = await this.kv.get(fullKey, 0);
    for (;;) {
      if (!current && !options.ignoreNotFound) throw notFound(key);
      const stored = current ? this.plain(current.value, key) : null;
      const existing = current && stored ? decodeObject<T>(stored.data, current.modRevision, key) : null;
      if (existing) checkPreconditions(key, options.preconditions, existing);
      const next = await update(existing);
      const json = encodeObject(next, key);
      // Nothing changed: no write, no new revision, no event (as upstream), unless the value was
      // read through an older key or provider: then it is stored again, in the writing one. The
      // same content with its keys in another order is the same length, and only then worth
      // parsing to compare.
      if (current && existing && !stored!.stale && sameContent(json, stored!.data)) return existing;
      const value = this.seal(json, key);
      const result = await this.kv.compareAndPut(fullKey, current?.modRevision ?? 0, value, options.ttl ?? 0);
      if (result.succeeded) return decodeObject<T>(json, result.revision, key);
      current = result.current;
    }
  }

  async delete<T extends StoredObject>(key: string, options: DeleteOptions<T> = {}): Promise<T> {
    const fullKey = this.prefix + key;
    let current = await this.kv.get(fullKey, 0);
    for (;;) {
      if (!current) throw notFound(key);
      const existing = this.decode<T>(current.value, current.modRevision, key);
      checkPreconditions(key, options.preconditions, existing);
      await options.validateDeletion?.(existing);
      const result = await this.kv.compareAndDelete(fullKey, current.modRevision);
      if (result.succeeded) return existing;
      current = result.current;
    }
  }

  async watch<T extends StoredObject>(key: string, options: WatchOptions = {}): Promise<Watch<T>> {
    const fullKey = this.prefix + key;
    let handle: WatchHandle | undefined;
    // Progress notifications travel in the queue, so that they reach the consumer after the events
    // they follow.
    const queue = new EventQueue<WatchEvent<T> | ProgressMark>({
      onPause: () => handle?.pause(),
      onResume: () => handle?.resume(),
    });
    const end = options.recursive ? prefixEnd(fullKey) : keyEnd(fullKey);
    const onProgress = options.onProgress;
    /** The last progress mark read: every event up to it has been yielded. */
    let progressed: number | undefined;
    handle = await this.kv.watch(fullKey, end, options.revision ?? 0, {
      push: (event) => {
        try {
          queue.push(this.toWatchEvent<T>(event));
        } catch (error) {
          handle?.stop();
          queue.fail(error);
        }
      },
      fail: (error) => queue.fail(error),
      progress: (revision: number) => queue.push({ progress: revision }),
    });
    const stop = (): void => {
      handle?.stop();
      queue.discard();
    };
    async function* events(): AsyncGenerator<WatchEvent<T>> {
      for await (const item of queue) {
        if ('progress' in item) {
          progressed = item.progress;
          onProgress?.(item.progress);
        } else yield item;
      }
    }
    return {
      [Symbol.asyncIterator]: () => events(),
      stop,
      // A mark is read only once the reader asks for what follows the events before it.
      progressRevision: () => (queue.length > 0 ? undefined : progressed),
      ...(handle.requestProgress && { requestProgress: () => handle?.requestProgress?.() }),
    };
  }

  private toWatchEvent<T extends StoredObject>(event: KVEvent): WatchEvent<T> {
    const key = event.kv.key.slice(this.prefix.length);
    const revision = event.kv.modRevision;
    const previous = event.previous && this.decode<T>(event.previous.value, event.previous.modRevision, key);
    if (event.type === 'put') {
      const object = this.decode<T>(event.kv.value, revision, key);
      const type = event.kv.createRevision === revision ? 'ADDED' : 'MODIFIED';
      return previous ? { type, object, previous, revision, key } : { type, object, revision, key };
    }
    if (!event.previous) {
      throw new StorageError('InvalidObject', `delete event for ${key} at revision ${revision} lacks the previous object`, key);
    }
    // A deleted object is reported as it last was, at the revision of its deletion.
    const object = this.decode<T>(event.previous.value, revision, key);
    return { type: 'DELETED', object, previous: previous!, revision, key };
  }

  currentRevision(): Promise<number> {
    return this.kv.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.kv.compact(revision);
  }

  checkHealth(): Promise<void> {
    return this.kv.checkHealth();
  }

  close(): Promise<void> {
    return this.kv.close();
  }
}

/** Whether two encodings hold the same JSON, whatever the order of their keys. */
function sameContent(encoded: string, stored: StoredValue): boolean {
  const text = typeof stored === 'string' ? stored : stored.toString();
  if (encoded === text) return true;
  return encoded.length === text.length && isDeepStrictEqual(JSON.parse(encoded), JSON.parse(text));
}

/** A value that could not be transformed: upstream's internal error, naming the key. */
function transformFailed(fullKey: string, error: unknown): StorageError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StorageError('Internal', `unable to transform key "${fullKey}": ${reason}`, fullKey, 0, { cause: error });
}
