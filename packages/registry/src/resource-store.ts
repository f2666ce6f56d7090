// ResourceStore: the one store every kind is served by, the REST strategy pipeline over a Storage.
// Here its create / update / patch pipeline and its subresources, over the steps every write shares
// (store-writes.ts) and the reads (store-reads.ts); its deletes are composed in (store-deletes.ts).
// A kind contributes its definition and strategy; this file knows no kind by name. A dry run is the
// same pipeline over a storage that does not write (@plat/storage dryRunStorage).
import {
  newBadRequest,
  newConflict,
  newGenericServerResponse,
  newInternalError,
  newNotFound,
  validateObjectMeta,
  validateObjectMetaUpdate,
  nameIsDNSSubdomain,
  type FieldError,
} from '@plat/apimachinery';
import { isStorageError, type Storage } from '@plat/storage';
import { deepCopy, recordUpdate } from '@plat/merge';
import type { KubeObject, SubresourceKind } from './definition.js';
import { ResourceWriter } from './store-writes.js';
import { ResourceDeletes } from './store-deletes.js';
import type { StoreOptions } from './store-reads.js';
import type { ResolvedResource } from './resolved.js';
import { OPTIMISTIC_LOCK_MESSAGE } from './errors.js';
import { fillCreateMeta, fillUpdateMeta, formatTimestamp, generateName } from './object-meta.js';
import { mergeErrorToStatus, recordOwnership, setManagedFields } from './managed-fields.js';
import { parentManagedFields, subresourceManagedFields } from './subresource-fields.js';
import { ensureIdentity } from './object-input.js';
import { checkFields } from './schema-check.js';
import { applyPatch } from './patcher.js';
import { WriteAllocation } from './allocation.js';
import type {
  CreateRequest,
  DeleteRequest,
  DeleteResult,
  ListQueryWithSelectors,
  ObjectList,
  PatchRequest,
  PatchResult,
  UpdateRequest,
  UpdateResult,
} from './requests.js';

/** How prepareCreate treats the new object. */
interface CreateMode {
  /** The object has no name but a generateName: make one. */
  generateName?: boolean;
  /**
   * A never-stored kind (an access review, TokenRequest): no system metadata, field ownership or
   * admission, as upstream's REST storage of those kinds gives none.
   */
  virtual?: boolean;
}

/** The metadata the server sets, which admission may not change (upstream sets it after admission). */
const SYSTEM_METADATA = ['uid', 'creationTimestamp', 'resourceVersion', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields'] as const;

/** Generated names are retried this many times when the name is taken. */
const GENERATE_NAME_ATTEMPTS = 8;

/** A subresource served as another kind: how it is made and applied, and that kind as a resource. */
interface KindOfSubresource<T extends KubeObject> {
  name: string;
  kind: SubresourceKind<T>;
  resolved: ResolvedResource;
}

export class ResourceStore<T extends KubeObject = KubeObject> extends ResourceWriter<T> {
  /** DELETE and deletecollection, over this store's reads and write steps. */
  private readonly deletes: ResourceDeletes<T>;

  constructor(resource: ResolvedResource<T>, options: StoreOptions) {
    super(resource, options);
    this.deletes = new ResourceDeletes<T>({
      resource: this.resource,
      strategy: this.strategy,
      context: () => this.context,
      now: () => this.now(),
      lifetime: () => this.lifetime,
      storageFor: (request) => this.storageFor(request),
      attributesOf: (request, operation) => this.attributesOf(request, operation),
      mutatingAdmission: (attributes) => this.mutatingAdmission(attributes),
      checksBeforeValidation: (attributes) => this.checksBeforeValidation(attributes),
      validatingAdmission: (attributes) => this.validatingAdmission(attributes),
      current: (stored) => this.current(stored),
      served: (stored) => this.served(stored),
      toStorage: (object) => this.toStorage(object),
      pendingFinalizers: (object) => this.pendingFinalizers(object),
      removeFinalized: (storage, key, object) => this.removeFinalized(storage, key, object),
      fail: (error, name) => this.fail(error, name),
      list: (namespace, query) => this.list(namespace, query),
      removed: async (object, request) => {
        await this.resource.definition.allocator?.release(object, { ...this.context, dryRun: !!request.dryRun });
      },
    });
  }

  /**
   * DELETE: removes the object, or when finalizers must run first, marks it with a
   * deletionTimestamp and leaves it for them.
   */
  delete(namespace: string, name: string, request: DeleteRequest = {}): Promise<DeleteResult<T>> {
    return this.deletes.delete(namespace, name, request);
  }

  /** DELETE on a collection: every selected object deleted as by DELETE; the answer is the list as selected. */
  deleteCollection(namespace: string, query: ListQueryWithSelectors, request: DeleteRequest = {}): Promise<ObjectList<T>> {
    return this.deletes.deleteCollection(namespace, query, request);
  }

  /**
   * The object a create stores, from the request's: system metadata, defaults, field ownership, the
   * strategy's preparation, admission and validation, in upstream's order. One path for POST, a PUT
   * or an apply that creates, and the never-stored kinds.
   */
  async prepareCreate(namespace: string, input: T, request: UpdateRequest, mode: CreateMode = {}): Promise<T> {
    let object = deepCopy(input);
    if (this.resource.namespaced) object.metadata.namespace = namespace;
    if (mode.generateName) object.metadata.name = generateName(input.metadata.generateName!);
    if (!mode.virtual) fillCreateMeta(object.metadata, this.now(), !!this.strategy.tracksGeneration);
    // As upstream: defaults come with decoding, ownership is recorded, then the strategy prepares
    // the object (what it adds belongs to no manager).
    this.strategy.default?.(object, this.context);
    this.withType(object);
    if (!mode.virtual && !request.ownershipDone) this.recordOwnership(null, object, request);
    this.strategy.prepareForCreate?.(object, this.context);
    const name = object.metadata.name ?? '';
    const attributes = { operation: 'CREATE' as const, namespace, name, object: object as KubeObject, ...this.attributesOf(request, 'CREATE') };
    if (!mode.virtual) {
      const mutated = await this.mutatingAdmission(attributes);
      if (mutated) attributes.object = object = this.afterMutation(mutated, object, (changed) => {
        this.strategy.prepareForCreate?.(changed, this.context);
        return changed;
      });
      await this.checksBeforeValidation(attributes);
    }
    const errors = mode.virtual ? this.strategy.validate(object, this.context) : this.validateCreate(object);
    if (errors.length) throw this.invalid(mode.virtual ? '' : name, errors);
    for (const warning of this.strategy.warningsOnCreate?.(object, this.context) ?? []) request.warn?.(warning);
    if (!mode.virtual) await this.validatingAdmission(attributes);
    return object;
  }

  /**
   * An object mutating admission changed, made again what the store writes, as upstream decodes and
   * defaults a mutating webhook's result and prepares it after admission: fields its schema does not
   * declare dropped (a custom resource's by its schema, embedded metadata decoded), the kind's
   * defaults, the system's metadata as it was, then the strategy's preparation again (`prepare`:
   * what it decides, a status on create, stays its). Its name and namespace are the request's: a
   * plugin may not move the object.
   */
  private afterMutation(mutated: KubeObject, before: T, prepare: (object: T) => T): T {
    const object = deepCopy(mutated) as T;
    const { kind } = this.resource;
    object.metadata ??= {};
    if ((object.metadata.name ?? '') !== (before.metadata.name ?? '') || (object.metadata.namespace ?? '') !== (before.metadata.namespace ?? '')) {
      throw newInternalError(new Error(`admission changed the ${kind}'s name or namespace`));
    }
    const check = checkFields(this.resource.definition, object, true);
    if (check.typeErrors.length) throw newInternalError(new Error(`admission made a ${kind} that cannot be decoded: ${check.typeErrors.join('; ')}`));
    const rules = this.resource.definition.unstructured;
    if (rules) {
      rules.prune(object);
      const coerced = rules.coerce?.(object);
      if (coerced?.error) throw newInternalError(new Error(`admission made a ${kind} that cannot be decoded: ${coerced.error}`));
    }
    this.strategy.default?.(object, this.context);
    this.withType(object);
    for (const field of SYSTEM_METADATA) {
      if (before.metadata[field] === undefined) delete object.metadata[field];
      else (object.metadata as Record<string, unknown>)[field] = before.metadata[field];
    }
    return prepare(object);
  }

  private validateCreate(object: T): FieldError[] {
    const own = this.resource.definition.validateName;
    // A kind's rule may depend on the object (a CRD's name is <plural>.<group>).
    const validateName = own ? (name: string, prefix: boolean) => own(name, prefix, object) : nameIsDNSSubdomain;
    return [
      ...validateObjectMeta(object.metadata, { namespaced: this.resource.namespaced, validateName }),
      ...this.strategy.validate(object, this.context),
    ];
  }

  /** POST: stores a new object, or for a never-stored kind answers with what it makes of it. */
  async create(namespace: string, input: T, request: CreateRequest = {}): Promise<T> {
    ensureIdentity(this.resource, input, namespace);
    const virtual = this.resource.definition.virtual;
    if (virtual) {
      const services = this.options.virtualServices?.();
      if (!services) throw newGenericServerResponse(404);
      const object = await this.prepareCreate(namespace, input, request, { virtual: true });
      const { kind, apiVersion, metadata, ...fields } = await virtual.create(object, {
        ...this.context,
        namespace: this.resource.namespaced ? namespace : '',
        name: request.parentName ?? '',
        user: request.user ?? { name: '', groups: [] },
        dryRun: !!request.dryRun,
        services,
      });
      // In Go's field order: type, metadata, then the kind's own fields.
      return { kind, apiVersion, metadata, ...fields } as T;
    }
    const meta = input.metadata;
    if (meta.resourceVersion) throw newBadRequest('resourceVersion should not be set on objects to be created');
    const generated = !meta.name && !!meta.generateName;
    const storage = this.storageFor(request);
    for (let attempt = 1; ; attempt++) {
      const object = await this.prepareCreate(namespace, input, request, { generateName: generated });
      const name = object.metadata.name ?? '';
      try {
        const allocation = this.allocationFor(request);
        await allocation.reserve(object, undefined);
        return await this.written(await allocation.around(async () => storage.create(this.resource.key(namespace, name), await this.toStorage(object), this.lifetime)));
      } catch (error) {
        if (generated && isStorageError(error, 'AlreadyExists') && attempt < GENERATE_NAME_ATTEMPTS) continue;
        this.fail(error, name);
      }
    }
  }

  /**
   * The object an update stores: the request's object checked against the current one. Throws
   * 409 on a stale resourceVersion and 422 on invalid content.
   */
  private async prepareUpdate(namespace: string, name: string, input: T, old: T, request: UpdateRequest): Promise<T> {
    const requested = input.metadata.resourceVersion;
    if (requested && requested !== old.metadata.resourceVersion) {
      throw newConflict(this.resource.groupResource, name, OPTIMISTIC_LOCK_MESSAGE);
    }
    const subresource = request.subresource ? this.resource.definition.subresources?.[request.subresource] : undefined;
    // A subresource served as the object itself stores only its part, judged by its own rules; one
    // served as another kind has made the whole parent, which the kind's own rules judge.
    const part = subresource?.servedAs ? undefined : subresource;
    const kind = subresource?.servedAs;
    let object = deepCopy(input);
    if (part) object = part.merge(object, deepCopy(old));
    if (this.resource.namespaced) object.metadata.namespace = object.metadata.namespace || namespace;
    fillUpdateMeta(object, old, !!this.strategy.tracksGeneration);
    if (!part) this.strategy.prepareForUpdate?.(object, old, this.context);
    this.strategy.default?.(object, this.context);
    this.withType(object);
    object.metadata.resourceVersion = old.metadata.resourceVersion!;
    if (!request.ownershipDone) this.recordOwnership(old, object, request);
    const subresourceKind = kind && request.subresource ? this.resource.subresourceKinds.get(request.subresource) : undefined;
    const attributes = {
      operation: 'UPDATE' as const,
      namespace,
      name,
      // Upstream's admission of a scale update sees Scale objects: the new parent's, and the one the
      // write started from.
      object: kind ? kind.fromParent(object) : (object as KubeObject),
      oldObject: kind ? (kind.writeBase ?? kind.fromParent)(old) : old,
      ...(request.subresource && { subresource: request.subresource }),
      ...this.attributesOf(request, 'UPDATE'),
      ...(subresourceKind && { kind: { group: subresourceKind.group, version: subresourceKind.version, kind: subresourceKind.kind } }),
    };
    const mutated = await this.mutatingAdmission(attributes);
    if (mutated) {
      // A subresource's object changed by admission goes back into the parent as a write of it would.
      const parent = kind ? kind.toParent(deepCopy(mutated), deepCopy(object), { ...this.context, groupKind: this.resource.groupKind, name }) : mutated;
      object = this.afterMutation(parent, object, (changed) => {
        // What the update's preparation decides stays its: a status write changes only the status,
        // an update of the object leaves its status alone, the generation counts the spec's change.
        const prepared = part ? part.merge(changed, deepCopy(old)) : changed;
        if (!part) this.strategy.prepareForUpdate?.(prepared, old, this.context);
        fillUpdateMeta(prepared, old, !!this.strategy.tracksGeneration);
        return prepared;
      });
      attributes.object = kind ? kind.fromParent(object) : object;
    }
    await this.checksBeforeValidation(attributes);
    const errors = [
      ...validateObjectMetaUpdate(object.metadata, old.metadata),
      ...(part ? part.validateUpdate(object, old, this.context) : this.strategy.validateUpdate(object, old, this.context)),
    ];
    if (errors.length) throw this.invalid(name, errors);
    if (!part) for (const warning of this.strategy.warningsOnUpdate?.(object, old, this.context) ?? []) request.warn?.(warning);
    await this.validatingAdmission(attributes);
    return object;
  }

  /** PUT: replaces the object (or its subresource's part); creates it where the kind allows. */
  async update(namespace: string, name: string, input: T, request: UpdateRequest = {}): Promise<UpdateResult<T>> {
    this.notServedAsKind(request.subresource);
    ensureIdentity(this.resource, input, namespace, { url: name, fillName: true });
    const key = this.resource.key(namespace, name);
    const storage = this.storageFor(request);
    let created = false;
    const mayCreate = this.resource.definition.allowCreateOnUpdate && !request.subresource;
    let updated: T;
    // A status write changes no reservation (upstream's status storage has no allocation hooks).
    const allocation = this.allocationFor(request);
    try {
      updated = await allocation.around(() => storage.guaranteedUpdate<T>(
        key,
        async (current) => {
          created = !current;
          if (current) {
            const old = await this.current(current);
            return this.toStorage(await allocation.reserve(await this.prepareUpdate(namespace, name, input, old, request), old));
          }
          // A version of an object that does not exist cannot be current.
          if (input.metadata.resourceVersion) throw newNotFound(this.resource.groupResource, name);
          return this.toStorage(await allocation.reserve(await this.prepareCreate(namespace, input, request), undefined));
        },
        { ignoreNotFound: mayCreate, ...this.lifetime },
      ));
    } catch (error) {
      this.fail(error, name);
    }
    return { object: await this.settled(storage, key, await this.written(updated)), created };
  }

  /**
   * PATCH: the patch applied to the current object (patcher.ts), then stored as an update would be.
   * A server-side apply to a missing object creates it.
   */
  async patch(namespace: string, name: string, request: PatchRequest): Promise<PatchResult<T>> {
    this.notServedAsKind(request.subresource);
    const key = this.resource.key(namespace, name);
    const storage = this.storageFor(request);
    const mayCreate = request.type === 'apply' && !request.subresource;
    let created = false;
    let warnings: string[] = [];
    const allocation = this.allocationFor(request);
    const compute = async (stored: T | null): Promise<T> => {
      created = !stored;
      const current = await this.current(stored);
      try {
        const patched = applyPatch(this.resource, current, request, { namespace, name }, formatTimestamp(this.now()));
        warnings = patched.warnings;
        const write = patched.ownershipDone ? { ...request, ownershipDone: true } : request;
        if (!current) return await this.toStorage(await allocation.reserve(await this.prepareCreate(namespace, patched.object, write), undefined));
        return await this.toStorage(await allocation.reserve(await this.prepareUpdate(namespace, name, patched.object, current, write), current));
      } catch (error) {
        throw mergeErrorToStatus(error);
      }
    };
    const stored = await allocation.around(() => this.storePatched(storage, key, name, compute, { mayCreate, apply: request.type === 'apply' }));
    return { object: await this.settled(storage, key, await this.written(stored)), created, warnings };
  }

  /** A patch's write: `compute` over the current object, retried as upstream's patcher retries it. */
  private async storePatched(
    storage: Storage,
    key: string,
    name: string,
    compute: (stored: T | null) => Promise<T>,
    { mayCreate, apply }: { mayCreate: boolean; apply: boolean },
  ): Promise<T> {
    try {
      const options = { ignoreNotFound: mayCreate, ...this.lifetime };
      return await storage.guaranteedUpdate<T>(key, compute, options).catch((error: unknown) => {
        // Too large to store: as upstream's patch handler, once more without managedFields, which
        // can be large and are safe to drop; not for apply, whose result is its managedFields.
        if (apply || !isStorageError(error, 'RequestTooLarge')) throw error;
        return storage.guaranteedUpdate<T>(key, async (current) => withoutManagedFields(await compute(current)), options);
      });
    } catch (error) {
      this.fail(error, name);
    }
  }

  /** update and patch take the object itself: another kind's goes through updateSubresource and patchSubresource. */
  private notServedAsKind(subresource: string | undefined): void {
    if (subresource && this.kindOf(subresource)) throw new Error(`${this.resource.resource}/${subresource} is served as another kind: write it with updateSubresource or patchSubresource`);
  }

  /** A subresource served as another kind, if `subresource` is one. */
  private kindOf(subresource: string): KindOfSubresource<T> | undefined {
    const kind = this.resource.definition.subresources?.[subresource]?.servedAs;
    const resolved = this.resource.subresourceKinds.get(subresource);
    return kind && resolved ? { name: subresource, kind, resolved } : undefined;
  }

  /**
   * GET of a subresource: the object as it is for one served as the object itself (status), else
   * the object of the kind it is served as, made from the object.
   */
  async getSubresource(namespace: string, name: string, subresource: string, resourceVersion?: string): Promise<KubeObject> {
    const parent = await this.get(namespace, name, resourceVersion);
    const sub = this.kindOf(subresource);
    return sub ? sub.kind.fromParent(parent) : parent;
  }

  /**
   * PUT of a subresource. One served as another kind takes that kind's object (decoded with its
   * schema) and stores the parent with it applied, answering with the kind's object of what was
   * stored; a resourceVersion in it must be the parent's. Never creates.
   */
  async updateSubresource(namespace: string, name: string, subresource: string, input: KubeObject, request: UpdateRequest = {}): Promise<UpdateResult<KubeObject>> {
    const sub = this.kindOf(subresource);
    if (!sub) return this.update(namespace, name, input as T, { ...request, subresource });
    ensureIdentity(sub.resolved, input, namespace, { url: name, fillName: true });
    const key = this.resource.key(namespace, name);
    const storage = this.storageFor(request);
    const write = { ...request, subresource };
    let stored: T;
    try {
      stored = await storage.guaranteedUpdate<T>(
        key,
        async (current) => {
          const parent = await this.current(current!);
          return this.toStorage(await this.applySubresourceObject(sub, namespace, name, input, parent, this.writeBase(sub, parent), write));
        },
        this.lifetime,
      );
    } catch (error) {
      this.fail(error, name);
    }
    const parent = await this.settled(storage, key, await this.served(stored));
    return { object: sub.kind.fromParent(parent), created: false };
  }

  /**
   * PATCH of a subresource. One served as another kind is patched as that kind's object made from
   * the current parent (every patch type, apply with its field ownership), then stored as by PUT.
   */
  async patchSubresource(namespace: string, name: string, subresource: string, request: PatchRequest): Promise<PatchResult<KubeObject>> {
    const sub = this.kindOf(subresource);
    if (!sub) return this.patch(namespace, name, { ...request, subresource });
    const key = this.resource.key(namespace, name);
    const storage = this.storageFor(request);
    const write = { ...request, subresource };
    let warnings: string[] = [];
    const compute = async (stored: T | null): Promise<T> => {
      const parent = await this.current(stored!);
      try {
        const base = this.writeBase(sub, parent);
        const patched = applyPatch(sub.resolved, deepCopy(base), write, { namespace, name }, formatTimestamp(this.now()));
        warnings = patched.warnings;
        const ownership = patched.ownershipDone ? { ...write, ownershipDone: true } : write;
        return await this.toStorage(await this.applySubresourceObject(sub, namespace, name, patched.object, parent, base, ownership));
      } catch (error) {
        throw mergeErrorToStatus(error);
      }
    };
    const stored = await this.storePatched(storage, key, name, compute, { mayCreate: false, apply: request.type === 'apply' });
    const parent = await this.settled(storage, key, await this.served(stored));
    return { object: sub.kind.fromParent(parent), created: false, warnings };
  }

  /** What a write through a subresource kind starts from: its object, with the parent's owners of what it stands for. */
  private writeBase(sub: KindOfSubresource<T>, parent: T): KubeObject {
    const base = (sub.kind.writeBase ?? sub.kind.fromParent)(parent);
    const managed = subresourceManagedFields(parent.metadata.managedFields, sub.kind.fields, sub.resolved.apiVersion);
    if (managed.length) base.metadata.managedFields = managed;
    else delete base.metadata.managedFields;
    return base;
  }

  /**
   * The parent to store after a write of `object` through a subresource kind: field ownership
   * recorded in the kind's fields and carried to the parent's, the object applied by the kind, its
   * resourceVersion a precondition, then the parent's update rules as for any update.
   */
  private async applySubresourceObject(
    sub: KindOfSubresource<T>,
    namespace: string,
    name: string,
    object: KubeObject,
    parent: T,
    base: KubeObject,
    request: UpdateRequest,
  ): Promise<T> {
    let owners: unknown;
    try {
      owners = request.ownershipDone
        ? (object.metadata.managedFields ?? [])
        : recordUpdate(base, object, {
            manager: request.manager ?? 'unknown',
            apiVersion: sub.resolved.apiVersion,
            now: formatTimestamp(this.now()),
            schema: sub.resolved.definition.schema,
            subresource: sub.name,
          });
    } catch (error) {
      throw mergeErrorToStatus(error);
    }
    const { managedFields: _owners, ...meta } = object.metadata;
    const updated = sub.kind.toParent({ ...object, metadata: meta }, deepCopy(parent), { ...this.context, groupKind: this.resource.groupKind, name });
    const managed = parentManagedFields(parent.metadata.managedFields, base.metadata.managedFields, owners, sub.kind.fields, this.resource.apiVersion);
    if (managed) setManagedFields(updated, managed);
    updated.metadata.resourceVersion = object.metadata.resourceVersion || parent.metadata.resourceVersion!;
    return this.prepareUpdate(namespace, name, updated, parent, { ...request, ownershipDone: true });
  }

  /**
   * A write that took away the last finalizer of an object being deleted removes it (the deleter's
   * settled); what it held is then given back, as upstream's deleteWithoutFinalizers runs AfterDelete.
   */
  protected override async settled(storage: Storage, key: string, object: T): Promise<T> {
    const allocator = this.resource.definition.allocator;
    if (!allocator || !object.metadata.deletionTimestamp || this.pendingFinalizers(object)) return super.settled(storage, key, object);
    // The deleter's removal, here so that what was held is given back only if this write removed it
    // (a write that came between takes it from there).
    try {
      await storage.delete(key, { preconditions: { resourceVersion: object.metadata.resourceVersion! } });
    } catch (error) {
      if (isStorageError(error, 'Conflict') || isStorageError(error, 'NotFound')) return object;
      throw error;
    }
    await allocator.release(object, { ...this.context, dryRun: storage !== this.storage });
    return object;
  }

  /** The reservations of one write (none for a status or other subresource write, or a kind without an allocator). */
  private allocationFor(request: UpdateRequest): WriteAllocation<T> {
    const allocator = request.subresource ? undefined : this.resource.definition.allocator;
    return new WriteAllocation(allocator, { ...this.context, dryRun: !!request.dryRun });
  }

  private recordOwnership(live: T | null, object: T, options: UpdateRequest): void {
    try {
      recordOwnership(this.resource, live, object, {
        manager: options.manager ?? 'unknown',
        now: formatTimestamp(this.now()),
        ...(options.subresource && { subresource: options.subresource }),
      });
    } catch (error) {
      throw mergeErrorToStatus(error);
    }
  }
}

function withoutManagedFields<T extends KubeObject>(object: T): T {
  delete object.metadata.managedFields;
  return object;
}
