// The deletes of the generic store (DELETE and DELETE of a collection: finalizers, propagation
// policies, marking for deletion), and what its writes share with them: the storage a request
// writes to (a dry run's does not), admission, and removing an object whose last finalizer a write
// took away.
import { randomUUID } from 'node:crypto';
import { StatusError, newInvalid, type FieldError } from '@plat/apimachinery';
import { dryRunStorage, isStorageError, type Storage } from '@plat/storage';
import { deepCopy } from '@plat/merge';
import type { KubeObject, ResourceStrategy } from './definition.js';
import { ResourceReader, type StoreOptions } from './store-reads.js';
import type { ResolvedResource } from './resolved.js';
import { formatTimestamp } from './object-meta.js';
import { propagationFinalizers } from './deletion.js';
import type { AdmissionAttributes, Operation, DeleteRequest, DeleteResult, ListQueryWithSelectors, ObjectList, StoreCheck, WriteOptions } from './requests.js';

/** Finalizers appeared between the read and the delete: mark the object instead. */
class PendingFinalizers extends Error {}

export class ResourceDeleter<T extends KubeObject = KubeObject> extends ResourceReader<T> {
  readonly strategy: ResourceStrategy<T>;
  protected readonly now: () => Date;
  private readonly dryRun: Storage;

  constructor(resource: ResolvedResource<T>, options: StoreOptions) {
    super(resource, options);
    this.strategy = resource.definition.strategy;
    this.now = options.now ?? (() => new Date());
    this.dryRun = dryRunStorage(options.storage);
  }

  /** Gives an object about to be written its stored form (an unstructured kind's storage version). */
  protected async toStorage(object: T): Promise<T> {
    return this.form ? this.form.toStorage(object) : object;
  }

  /**
   * An object of this version in another version of the same resource (a policy's equivalent
   * resource): through the stored form, as the store converts between its versions. `object` is not
   * changed; `to` must serve the same stored objects.
   */
  async convertTo(object: Readonly<T>, to: ResourceDeleter): Promise<KubeObject> {
    const stored = await this.toStorage(deepCopy(object) as T);
    return to.servedFrom(stored);
  }

  /** A stored object (the caller's own copy) as this version serves it. */
  async servedFrom(stored: KubeObject): Promise<KubeObject> {
    return this.served(stored as T);
  }

  /** How long what a write stores lives (the kind's time to live, as upstream's TTLFunc), for the storage. */
  protected get lifetime(): { ttl?: number } {
    const ttl = this.resource.definition.timeToLive?.(this.context) ?? 0;
    return ttl > 0 ? { ttl } : {};
  }

  /** Where a write goes: the storage, or for a dry run the storage that checks and does not write. */
  protected storageFor(request: WriteOptions): Storage {
    return request.dryRun ? this.dryRun : this.storage;
  }

  protected invalid(name: string, errors: readonly FieldError[]): StatusError {
    return newInvalid(this.resource.groupKind, name, errors);
  }

  private missingDeletionFinalizers(object: T): string[] {
    const wanted = this.strategy.deletionFinalizers?.(this.context, object) ?? [];
    if (!wanted.length || object.metadata.deletionTimestamp) return [];
    return wanted.filter((f) => !object.metadata.finalizers?.includes(f));
  }

  protected pendingFinalizers(object: T): boolean {
    return this.strategy.hasPendingFinalizers?.(object) ?? (object.metadata.finalizers?.length ?? 0) > 0;
  }

  /**
   * The attributes of a write that admission sees, from its request. A patch or a PUT that creates
   * is admitted with CreateOptions, a patch that updates with UpdateOptions, as upstream converts them.
   */
  protected attributesOf(request: WriteOptions, operation: Operation): Pick<AdmissionAttributes, 'uid' | 'kind' | 'dryRun' | 'user' | 'options' | 'warn' | 'annotate'> {
    let options = request.operationOptions;
    const wanted = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : undefined;
    if (options && wanted && options.kind !== wanted) {
      const { dryRun, fieldManager, fieldValidation } = options;
      options = { kind: wanted, apiVersion: options.apiVersion, ...(dryRun !== undefined && { dryRun }), ...(fieldManager !== undefined && { fieldManager }), ...(fieldValidation !== undefined && { fieldValidation }) };
    }
    const { group, version, kind } = this.resource;
    return {
      uid: randomUUID(),
      kind: { group, version, kind },
      dryRun: !!request.dryRun,
      ...(request.user && { user: request.user }),
      ...(options && { options }),
      ...(request.warn && { warn: request.warn }),
      ...(request.annotate && { annotate: request.annotate }),
    };
  }

  /**
   * Mutating admission (the server's chain of plugins): the object the plugins changed it to, or
   * undefined where none did. The caller makes a changed object what the store writes again.
   */
  protected async mutatingAdmission(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<KubeObject | undefined> {
    return this.options.admission?.mutate(this.withResource(attributes));
  }

  /** The kind's own checks after mutating admission, before its validation. */
  protected async checksBeforeValidation(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<void> {
    await this.runChecks(this.options.checks?.beforeValidation, attributes);
  }

  /** After the kind's validation, on the object as it will be stored: its own checks, then validating admission. */
  protected async validatingAdmission(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<void> {
    await this.runChecks(this.options.checks?.afterValidation, attributes);
    await this.options.admission?.validate(this.withResource(attributes));
  }

  /** Admission sees every kind through the one base type. */
  private withResource(attributes: Omit<AdmissionAttributes, 'resource'>): AdmissionAttributes {
    return { ...attributes, resource: this.resource as unknown as ResolvedResource };
  }

  private async runChecks(checks: readonly StoreCheck[] | undefined, attributes: Omit<AdmissionAttributes, 'resource'>): Promise<void> {
    if (!checks?.length) return;
    const withResource = this.withResource(attributes);
    for (const check of checks) {
      // A check with nothing to do returns no promise, and costs no wait.
      const pending = check(withResource);
      if (pending) await pending;
    }
  }

  /** An object whose deletion was only waiting on finalizers that a write has just removed is gone now. */
  protected async settled(storage: Storage, key: string, object: T): Promise<T> {
    if (object.metadata.deletionTimestamp && !this.pendingFinalizers(object)) await this.removeFinalized(storage, key, object);
    return object;
  }

  /** Removes an object whose deletion was waiting on finalizers that are now all gone. */
  private async removeFinalized(storage: Storage, key: string, object: T): Promise<void> {
    try {
      await storage.delete(key, { preconditions: { resourceVersion: object.metadata.resourceVersion! } });
    } catch (error) {
      // Changed or deleted meanwhile: whoever did that takes it from here.
      if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound')) throw error;
    }
  }

  /**
   * DELETE: removes the object, or when finalizers must run first, marks it with a
   * deletionTimestamp and leaves it for them.
   */
  async delete(namespace: string, name: string, request: DeleteRequest = {}): Promise<DeleteResult<T>> {
    const key = this.resource.key(namespace, name);
    const storage = this.storageFor(request);
    const preconditions = request.preconditions;
    try {
      const current = await this.current(await storage.get<T>(key));
      const attributes = { operation: 'DELETE' as const, namespace, name, oldObject: current, ...this.attributesOf(request, 'DELETE') };
      // A delete is admitted as upstream's: the mutating phase (what it returns is not used), the
      // kind's checks, then the validating phase.
      await this.mutatingAdmission(attributes);
      await this.checksBeforeValidation(attributes);
      await this.validatingAdmission(attributes);
      const collecting = propagationFinalizers(current, request.propagationPolicy) !== undefined || this.missingDeletionFinalizers(current).length > 0;
      if (!collecting && !this.pendingFinalizers(current) && !current.metadata.deletionTimestamp) {
        try {
          const deleted = await storage.delete<T>(key, {
            ...(preconditions && { preconditions }),
            validateDeletion: (object) => {
              if (this.pendingFinalizers(object) || propagationFinalizers(object, request.propagationPolicy)) throw new PendingFinalizers();
            },
          });
          return { object: await this.served(deleted), deleted: true };
        } catch (error) {
          if (!(error instanceof PendingFinalizers)) throw error;
        }
      }
      return await this.markForDeletion(storage, key, request);
    } catch (error) {
      this.fail(error, name);
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
      if (marked.metadata.deletionTimestamp || !this.pendingFinalizers(marked)) return marked;
      marked.metadata.deletionTimestamp = formatTimestamp(this.now());
      marked.metadata.deletionGracePeriodSeconds = 0;
      // Upstream's mark for deletion: the beginning of deletion is a new generation, where there is one.
      if ((marked.metadata.generation ?? 0) > 0) marked.metadata.generation! += 1;
      this.strategy.prepareForDeletion?.(marked, this.context);
      return marked;
    };
    const preconditions = request.preconditions;
    // Deletion marks only metadata, which a kind stored as another shares; its own hook
    // (prepareForDeletion) must see the served shape, so such a kind is marked in that.
    const convert = !!this.resource.definition.storedAs;
    const update = convert ? async (current: T | null): Promise<T> => this.toStorage(mark(await this.current(current!))) : (current: T | null): T => mark(current!);
    const marked = await this.served(await storage.guaranteedUpdate<T>(key, update, { ...(preconditions && { preconditions }), ...this.lifetime }));
    if (this.pendingFinalizers(marked)) return { object: marked, deleted: false };
    await this.removeFinalized(storage, key, marked);
    return { object: marked, deleted: true };
  }

  /**
   * DELETE on a collection: every selected object is deleted as by DELETE. The answer is the list as
   * it was selected, as upstream's (not the objects as deletion left them).
   */
  async deleteCollection(namespace: string, query: ListQueryWithSelectors, request: DeleteRequest = {}): Promise<ObjectList<T>> {
    const list = await this.list(namespace, query);
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
