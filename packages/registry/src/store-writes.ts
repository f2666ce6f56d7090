// What every write of the resource store shares (create, update, patch and delete): the storage a
// request writes to (a dry run's does not), the stored form a write converts to, admission's
// attributes and phases with the kind's own checks between them, finalizers, and removing an object
// whose last finalizer a write took away. No verb of its own: ResourceStore (resource-store.ts) adds
// create, update and patch over it, and composes its deletes (store-deletes.ts) from these steps.
import { randomUUID } from 'node:crypto';
import { newInvalid, type FieldError, type StatusError } from '@plat/apimachinery';
import { dryRunStorage, isStorageError, type Storage } from '@plat/storage';
import { deepCopy } from '@plat/merge';
import type { KubeObject, ResourceStrategy } from './definition.js';
import { ResourceReader, type StoreOptions } from './store-reads.js';
import type { ResolvedResource } from './resolved.js';
import type { AdmissionAttributes, Operation, StoreCheck, WriteOptions } from './requests.js';

export abstract class ResourceWriter<T extends KubeObject = KubeObject> extends ResourceReader<T> {
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
  async convertTo(object: Readonly<T>, to: ResourceWriter): Promise<KubeObject> {
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
  protected async removeFinalized(storage: Storage, key: string, object: T): Promise<void> {
    try {
      await storage.delete(key, { preconditions: { resourceVersion: object.metadata.resourceVersion! } });
    } catch (error) {
      // Changed or deleted meanwhile: whoever did that takes it from here.
      if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound')) throw error;
    }
  }
}
