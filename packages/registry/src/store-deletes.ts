// DELETE and DELETE of a collection, composed into the resource store (resource-store.ts):
// finalizers, propagation policies, marking for deletion. DeleteSteps names what they use of the
// store: its reads and the steps every write shares (store-writes.ts).
import { StatusError } from '@plat/apimachinery';
import type { Storage } from '@plat/storage';
import { deepCopy } from '@plat/merge';
import type { KubeObject, ResourceStrategy, StrategyContext } from './definition.js';
import type { ResolvedResource } from './resolved.js';
import { formatTimestamp } from './object-meta.js';
import { propagationFinalizers } from './deletion.js';
import type { AdmissionAttributes, Operation, DeleteRequest, DeleteResult, ListQueryWithSelectors, ObjectList, WriteOptions } from './requests.js';

/** Finalizers appeared between the read and the delete: mark the object instead. */
class PendingFinalizers extends Error {}

/** What the deletes use of the resource store they are part of: its reads and its write steps. */
export interface DeleteSteps<T extends KubeObject> {
  readonly resource: ResolvedResource<T>;
  readonly strategy: ResourceStrategy<T>;
  context(): StrategyContext;
  now(): Date;
  /** How long what a write stores lives, for the storage. */
  lifetime(): { ttl?: number };
  storageFor(request: WriteOptions): Storage;
  attributesOf(request: WriteOptions, operation: Operation): Pick<AdmissionAttributes, 'uid' | 'kind' | 'dryRun' | 'user' | 'options' | 'warn' | 'annotate'>;
  mutatingAdmission(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<KubeObject | undefined>;
  checksBeforeValidation(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<void>;
  validatingAdmission(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<void>;
  /** A stored object as the store's writes work on it. */
  current(stored: T): Promise<T>;
  /** A stored object as this version serves it. */
  served(stored: T): Promise<T>;
  toStorage(object: T): Promise<T>;
  pendingFinalizers(object: T): boolean;
  removeFinalized(storage: Storage, key: string, object: T): Promise<void>;
  fail(error: unknown, name?: string): never;
  list(namespace: string, query: ListQueryWithSelectors): Promise<ObjectList<T>>;
  /** After a DELETE that removed the object: what it held given back (the kind's allocator). */
  removed(object: T, request: DeleteRequest): Promise<void>;
}

/** The deletes of one resource store. */
export class ResourceDeletes<T extends KubeObject = KubeObject> {
  constructor(private readonly store: DeleteSteps<T>) {}

  private missingDeletionFinalizers(object: T): string[] {
    const wanted = this.store.strategy.deletionFinalizers?.(this.store.context(), object) ?? [];
    if (!wanted.length || object.metadata.deletionTimestamp) return [];
    return wanted.filter((f) => !object.metadata.finalizers?.includes(f));
  }

  /**
   * DELETE: removes the object, or when finalizers must run first, marks it with a
   * deletionTimestamp and leaves it for them.
   */
  async delete(namespace: string, name: string, request: DeleteRequest = {}): Promise<DeleteResult<T>> {
    const result = await this.deleteOne(namespace, name, request);
    // An object left to its finalizers keeps what it holds until the write that removes it.
    if (result.deleted) await this.store.removed(result.object, request);
    return result;
  }

  private async deleteOne(namespace: string, name: string, request: DeleteRequest): Promise<DeleteResult<T>> {
    const key = this.store.resource.key(namespace, name);
    const storage = this.store.storageFor(request);
    const preconditions = request.preconditions;
    try {
      const current = await this.store.current(await storage.get<T>(key));
      const attributes = { operation: 'DELETE' as const, namespace, name, oldObject: current, ...this.store.attributesOf(request, 'DELETE') };
      // A delete is admitted as upstream's: the mutating phase (what it returns is not used), the
      // kind's checks, then the validating phase.
      await this.store.mutatingAdmission(attributes);
      await this.store.checksBeforeValidation(attributes);
      await this.store.validatingAdmission(attributes);
      const collecting = propagationFinalizers(current, request.propagationPolicy) !== undefined || this.missingDeletionFinalizers(current).length > 0;
      if (!collecting && !this.store.pendingFinalizers(current) && !current.metadata.deletionTimestamp) {
        try {
          const deleted = await storage.delete<T>(key, {
            ...(preconditions && { preconditions }),
            validateDeletion: (object) => {
              if (this.store.pendingFinalizers(object) || propagationFinalizers(object, request.propagationPolicy)) throw new PendingFinalizers();
            },
          });
          return { object: await this.store.served(deleted), deleted: true };
        } catch (error) {
          if (!(error instanceof PendingFinalizers)) throw error;
        }
      }
      return await this.markForDeletion(storage, key, request);
    } catch (error) {
      this.store.fail(error, name);
    }
  }

  private async markForDeletion(storage: Storage, key: string, request: DeleteRequest): Promise<DeleteResult<T>> {
    const mark = (object: T): T => {
      // Finalizers change with the policy even when deletion has begun, as upstream's for kinds
      // without graceful deletion.
      const finalizers = propagationFinalizers(object, request.propagationPolicy);
      if (object.metadata.deletionTimestamp && !finalizers) return object;
      const marked = deepCopy(object);
      if (finalizers?.length) marked.metadata.finalizers = finalizers;
      else if (finalizers) delete marked.metadata.finalizers;
      // The kind's own, on the first delete only, as upstream's CustomResourceDefinition storage.
      if (!marked.metadata.deletionTimestamp) {
        const missing = this.missingDeletionFinalizers(marked);
        if (missing.length) marked.metadata.finalizers = [...(marked.metadata.finalizers ?? []), ...missing];
      }
      if (marked.metadata.deletionTimestamp || !this.store.pendingFinalizers(marked)) return marked;
      marked.metadata.deletionTimestamp = formatTimestamp(this.store.now());
      marked.metadata.deletionGracePeriodSeconds = 0;
      // Upstream's mark for deletion: the beginning of deletion is a new generation, where there is one.
      if ((marked.metadata.generation ?? 0) > 0) marked.metadata.generation! += 1;
      this.store.strategy.prepareForDeletion?.(marked, this.store.context());
      return marked;
    };
    const preconditions = request.preconditions;
    // Deletion marks only metadata, which a kind stored as another shares; its own hook
    // (prepareForDeletion) must see the served shape, so such a kind is marked in that.
    const convert = !!this.store.resource.definition.storedAs;
    const update = convert ? async (current: T | null): Promise<T> => this.store.toStorage(mark(await this.store.current(current!))) : (current: T | null): T => mark(current!);
    const marked = await this.store.served(await storage.guaranteedUpdate<T>(key, update, { ...(preconditions && { preconditions }), ...this.store.lifetime() }));
    if (this.store.pendingFinalizers(marked)) return { object: marked, deleted: false };
    await this.store.removeFinalized(storage, key, marked);
    return { object: marked, deleted: true };
  }

  /**
   * DELETE on a collection: every selected object is deleted as by DELETE. The answer is the list as
   * it was selected, as upstream's (not the objects as deletion left them).
   */
  async deleteCollection(namespace: string, query: ListQueryWithSelectors, request: DeleteRequest = {}): Promise<ObjectList<T>> {
    const list = await this.store.list(namespace, query);
    for (const item of list.items) {
      try {
        await this.delete(item.metadata.namespace ?? namespace, item.metadata.name!, request);
      } catch (error) {
        // Deleted by someone else meanwhile: that is what was asked for.
        if (!(error instanceof StatusError && error.code === 404)) throw error;
      }
    }
    return list;
  }
}
