// Dry run as storage (upstream's DryRunnableStorage): every check a write makes, and no write. The
// registry's ResourceStore hands a dry-run request this storage instead of branching in each verb,
// so a dry run goes through exactly the steps of the real request and stops where the store would
// write.
import type { DeleteOptions, Storage, StoredObject, UpdateFunction, UpdateOptions } from './interface.js';
import { alreadyExists, isStorageError, notFound } from './errors.js';
import { checkPreconditions } from './preconditions.js';

/**
 * Reads pass through to `storage`. `create` fails as a create would (AlreadyExists) and returns the
 * object unstored; `guaranteedUpdate` runs the update once against the current object and returns
 * its result unstored (with the current resourceVersion, or none when it creates); `delete` checks
 * preconditions and the deletion check and returns the object as it is.
 */
export function dryRunStorage(storage: Storage): Storage {
  const current = async <T extends StoredObject>(key: string): Promise<T | null> => {
    try {
      return await storage.get<T>(key);
    } catch (error) {
      if (isStorageError(error, 'NotFound')) return null;
      throw error;
    }
  };
  return {
    get: (key, options) => storage.get(key, options),
    list: (prefix, options) => storage.list(prefix, options),
    watch: (key, options) => storage.watch(key, options),
    currentRevision: () => storage.currentRevision(),
    compact: (revision) => storage.compact(revision),
    checkHealth: () => storage.checkHealth(),
    // The real storage is closed by its owner, not by a dry-run view of it.
    close: async () => {},
    async create<T extends StoredObject>(key: string, object: T): Promise<T> {
      if (await current(key)) throw alreadyExists(key);
      return object;
    },
    async guaranteedUpdate<T extends StoredObject>(key: string, update: UpdateFunction<T>, options: UpdateOptions = {}): Promise<T> {
      const existing = await current<T>(key);
      if (!existing && !options.ignoreNotFound) throw notFound(key);
      if (existing) checkPreconditions(key, options.preconditions, existing);
      return update(existing);
    },
    async delete<T extends StoredObject>(key: string, options: DeleteOptions<T> = {}): Promise<T> {
      const existing = await current<T>(key);
      if (!existing) throw notFound(key);
      checkPreconditions(key, options.preconditions, existing);
      await options.validateDeletion?.(existing);
      return existing;
    },
  };
}
