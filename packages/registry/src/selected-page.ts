// One page of a list whose objects must be converted before they are judged: a version that serves
// its objects converted from the stored ones (stored-form.ts) filters them as it serves them, so the
// selector cannot be handed down to the storage. The storage is read without it, each chunk is
// converted in one call and filtered here, and a page the filter thins out is topped up with further
// chunks, as the storage's own filtered lists do (and upstream's etcd store): the chunk doubles each
// time, up to 10,000; the page ends at its `limit`-th match, and continues after it when anything
// is left to read; a filtered page gives no remainingItemCount.
import { continueAfter, continueAtLatest, goneContinuing, isStorageError, type ListOptions, type ListResult, type Storage, type StoredObject } from '@plat/storage';

/** Largest chunk read when the filter makes a page read past its limit (as the storage's own). */
const MAX_FILTERED_CHUNK = 10_000;

export interface SelectedPageRequest<S extends StoredObject, T> {
  storage: Storage;
  prefix: string;
  /** How the first chunk is read (its revision, or the client's continue token): no limit or filter. */
  first: Omit<ListOptions, 'limit' | 'filter'>;
  /** Most items on the page; 0: all of them, unpaged. */
  limit: number;
  /** Stored objects as served, in order: called once per chunk read. */
  serve(stored: readonly S[]): Promise<T[]>;
  /** Which served objects the page holds; absent: all of them. */
  filter?: (object: T) => boolean;
  /** The storage key of a stored object, where the storage does not report its keys. */
  keyOf(stored: S): string;
}

export type SelectedPage<T> = Omit<ListResult<StoredObject>, 'items' | 'keys'> & { items: T[] };

export async function selectedPage<S extends StoredObject, T>(request: SelectedPageRequest<S, T>): Promise<SelectedPage<T>> {
  const { storage, prefix, first, limit, serve, filter } = request;
  let chunk = await storage.list<S>(prefix, { ...first, limit });
  if (!filter) {
    // Nothing to judge: the storage's page as it is, converted at once.
    const { items, keys: _keys, ...rest } = chunk;
    return { ...rest, items: await serve(items) };
  }
  const items: T[] = [];
  let chunkSize = limit;
  let lastKey = '';
  for (;;) {
    const served = await serve(chunk.items);
    // A store may answer a list of any state whole, its limit ignored (the watch cache, as
    // upstream's): then so is the page.
    const paged = limit > 0 && chunk.items.length <= chunkSize;
    const { revision } = chunk;
    for (let i = 0; i < served.length; i++) {
      if (!filter(served[i]!)) continue;
      // One match beyond the limit: there is more to read, from after the last one taken.
      if (paged && items.length === limit) return { items, revision, continue: continueAfter(prefix, revision, lastKey) };
      items.push(served[i]!);
      lastKey = chunk.keys?.[i] ?? request.keyOf(chunk.items[i]!);
    }
    if (!chunk.continue) return { items, revision, continue: '' };
    if (items.length === limit) return { items, revision, continue: continueAfter(prefix, revision, lastKey) };
    chunkSize = Math.min(chunkSize * 2, MAX_FILTERED_CHUNK);
    try {
      chunk = await storage.list<S>(prefix, { limit: chunkSize, continue: chunk.continue });
    } catch (error) {
      // Compacted while this page was read on: a client that continued is offered its own start
      // again, at the latest revision, not the start of a chunk it never saw.
      if (first.continue && isStorageError(error, 'Gone')) throw goneContinuing(error, continueAtLatest(first.continue, prefix));
      throw error;
    }
  }
}
