// The generic store: the one create / get / list / update / delete pipeline every kind is served by.
// A kind contributes its definition and strategy; this file knows no kind by name.
import {
  StatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
  validateObjectMeta,
  validateObjectMetaUpdate,
  nameIsDNSSubdomain,
  type FieldError,
} from '@plat/apimachinery';
import { isStorageError, type ListResult, type Storage, type StoredObject } from '@plat/storage';
import type { KubeObject, ResourceStrategy, StrategyContext } from './definition.js';
import type { ResolvedResource } from './resolved.js';
import { OPTIMISTIC_LOCK_MESSAGE, toStatusError, tooLargeResourceVersion } from './errors.js';
import { fillCreateMeta, fillUpdateMeta, formatTimestamp, generateName } from './object-meta.js';
import { mergeErrorToStatus, recordOwnership, setManagedFields } from './managed-fields.js';
import { apply, applyJsonPatch, applyMergePatch, applyStrategicMergePatch, deepCopy } from '@plat/merge';
import { buildPredicate } from './predicate.js';
import { listItem } from './list-item.js';
import { getSemantic, listSemantic, validateListQuery, type ListQuery } from './resource-version.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** Who asks for a write, as authentication (and impersonation) settled it. */
export interface AdmissionUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface AdmissionAttributes {
  operation: Operation;
  /** Absent for the server's own writes (bootstrap). */
  user?: AdmissionUser;
  resource: ResolvedResource;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  subresource?: string;
  dryRun: boolean;
}

/** Checks run before a write is stored; throwing a StatusError refuses the request. */
export type AdmissionCheck = (attributes: AdmissionAttributes) => Promise<void> | void;

/** The feature gates the store honours; absent ones take their Kubernetes 1.28 defaults. */
export interface StoreFeatures {
  /** WatchList (alpha, default off): a watch may ask for sendInitialEvents (a streaming list). */
  watchList?: boolean;
  /** APIListChunking (beta, default on): lists honour limit and continue; off, both are ignored. */
  apiListChunking?: boolean;
}

export interface StoreOptions {
  storage: Storage;
  context: StrategyContext;
  features?: StoreFeatures;
  admission?: readonly AdmissionCheck[];
  now?: () => Date;
  /** How long a read waits for a resourceVersion the store has not reached before a 504. */
  resourceVersionWaitMs?: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** The requesting user, for admission; absent for the server's own writes. */
  user?: AdmissionUser;
  /** Who makes the change, for managedFields (fieldManager, else from the User-Agent). */
  manager?: string;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchRequest<T extends KubeObject = KubeObject> extends UpdateRequest {
  type: PatchType;
  /** The parsed patch: an array of operations for json, an object otherwise. */
  patch: unknown;
  /** Apply: take fields other managers own. */
  force?: boolean;
  /**
   * Checks the patched object as a request body would be checked (types, unknown fields per
   * fieldValidation) and returns it; supplied by the HTTP layer, which reports warnings.
   */
  decode: (object: unknown) => T;
}

export interface UpdateRequest extends WriteOptions {
  /** The object's managedFields were already computed (apply): do not record an update. */
  ownershipDone?: boolean;
  subresource?: string;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteRequest extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Orphan and Foreground leave the object to the garbage collector behind their finalizers. */
  propagationPolicy?: PropagationPolicy;
}

export interface DeleteResult<T> {
  object: T;
  /** False while finalizers hold the object (it is then marked with a deletionTimestamp). */
  deleted: boolean;
}

export interface ListQueryWithSelectors extends ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ObjectList<T> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** Generated names are retried this many times when the name is taken. */
const GENERATE_NAME_ATTEMPTS = 8;
const DEFAULT_RESOURCE_VERSION_WAIT_MS = 3000;

/** Finalizers appeared between the read and the delete: mark the object instead. */
class PendingFinalizers extends Error {}

export class ResourceStore<T extends KubeObject = KubeObject> {
  readonly strategy: ResourceStrategy<T>;
  private readonly now: () => Date;

  constructor(
    readonly resource: ResolvedResource<T>,
    private readonly options: StoreOptions,
  ) {
    this.strategy = resource.definition.strategy;
    this.now = options.now ?? (() => new Date());
  }

  get storage(): Storage {
    return this.options.storage;
  }

  get context(): StrategyContext {
    return this.options.context;
  }

  get features(): Required<StoreFeatures> {
    return { watchList: false, apiListChunking: true, ...this.options.features };
  }

  private fail(error: unknown, name = '', continuing = false): never {
    throw toStatusError(error, { groupResource: this.resource.groupResource, name, continuing });
  }

  private withType(object: T): T {
    object.apiVersion = this.resource.apiVersion;
    object.kind = this.resource.kind;
    return object;
  }

  private invalid(name: string, errors: readonly FieldError[]): StatusError {
    return newInvalid(this.resource.groupKind, name, errors);
  }

  private pendingFinalizers(object: T): boolean {
    return this.strategy.hasPendingFinalizers?.(object) ?? (object.metadata.finalizers?.length ?? 0) > 0;
  }

  private async admit(attributes: Omit<AdmissionAttributes, 'resource'>): Promise<void> {
    // Admission sees every kind through the one base type.
    const resource = this.resource as unknown as ResolvedResource;
    for (const check of this.options.admission ?? []) await check({ ...attributes, resource });
  }

  /** Waits until the store has reached `revision`; 504 if it does not in time. */
  async waitForRevision(revision: number): Promise<void> {
    const deadline = Date.now() + (this.options.resourceVersionWaitMs ?? DEFAULT_RESOURCE_VERSION_WAIT_MS);
    for (;;) {
      const current = await this.storage.currentRevision().catch((error: unknown) => this.fail(error));
      if (current >= revision) return;
      if (Date.now() >= deadline) throw tooLargeResourceVersion(`${revision}, current: ${current}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async get(namespace: string, name: string, resourceVersion?: string): Promise<T> {
    const semantic = getSemantic(resourceVersion);
    if (semantic.kind === 'notOlderThan') await this.waitForRevision(semantic.revision);
    const notOlderThan = semantic.kind === 'any' ? 0 : semantic.kind === 'notOlderThan' ? semantic.revision : undefined;
    try {
      return this.withType(await this.storage.get<T>(this.resource.key(namespace, name), notOlderThan === undefined ? {} : { notOlderThan }));
    } catch (error) {
      this.fail(error, name);
    }
  }

  /**
   * The object in any recent state (resourceVersion=0), for checks that only read it, such as
   * admission: a watch cache answers with its shared copy, which must not be changed.
   */
  async peek(namespace: string, name: string): Promise<Readonly<T>> {
    try {
      return await this.storage.get<T>(this.resource.key(namespace, name), { notOlderThan: 0, readOnly: true });
    } catch (error) {
      this.fail(error, name);
    }
  }

  async list(namespace: string, listQuery: ListQueryWithSelectors): Promise<ObjectList<T>> {
    const { watchList, apiListChunking } = this.features;
    validateListQuery(listQuery, this.context.domain, watchList);
    // Without APIListChunking, limit and continue are ignored, as upstream's storage does unpaged.
    const { limit: _limit, continue: _continue, ...unpaged } = listQuery;
    const query: ListQueryWithSelectors = apiListChunking ? listQuery : unpaged;
    const semantic = listSemantic(query);
    const predicate = buildPredicate(this.resource, query.labelSelector, query.fieldSelector);
    // Upstream does not validate the limit: 0 or below lists everything.
    const limit = Math.max(0, query.limit ?? 0);
    if (semantic.kind === 'notOlderThan' || semantic.kind === 'exact') await this.waitForRevision(semantic.revision);
    let result: ListResult<T>;
    try {
      result = await this.storage.list<T>(this.resource.prefix(namespace), {
        limit,
        ...(semantic.kind === 'exact' && { revision: semantic.revision }),
        ...(semantic.kind === 'any' && { notOlderThan: 0 }),
        ...(semantic.kind === 'notOlderThan' && { notOlderThan: semantic.revision }),
        ...(semantic.kind === 'continue' && { continue: query.continue! }),
        ...(predicate.filter && { filter: predicate.filter as (object: StoredObject) => boolean }),
      });
    } catch (error) {
      this.fail(error, '', semantic.kind === 'continue');
    }
    return {
      apiVersion: this.resource.apiVersion,
      kind: this.resource.listKind,
      metadata: {
        resourceVersion: String(result.revision),
        ...(result.continue && { continue: result.continue }),
        ...(result.remainingItemCount !== undefined && { remainingItemCount: result.remainingItemCount }),
      },
      items: result.items.map(listItem),
    };
  }

  private validateCreate(object: T): FieldError[] {
    const validateName = this.resource.definition.validateName ?? nameIsDNSSubdomain;
    return [
      ...validateObjectMeta(object.metadata, { namespaced: this.resource.namespaced, validateName }),
      ...this.strategy.validate(object, this.context),
    ];
  }

  /** Whether an object is stored at `key` now. */
  private async exists(key: string): Promise<boolean> {
    try {
      await this.storage.get(key);
      return true;
    } catch (error) {
      if (isStorageError(error, 'NotFound')) return false;
      this.fail(error);
    }
  }

  /** Stores a new object: system metadata, defaults, admission, validation, then storage. */
  async create(namespace: string, input: T, options: WriteOptions = {}): Promise<T> {
    const meta = input.metadata;
    if (meta.resourceVersion) throw newBadRequest('resourceVersion should not be set on objects to be created');
    const generated = !meta.name && !!meta.generateName;
    for (let attempt = 1; ; attempt++) {
      const object = deepCopy(input);
      if (this.resource.namespaced) object.metadata.namespace = namespace;
      if (generated) object.metadata.name = generateName(meta.generateName!);
      fillCreateMeta(object.metadata, this.now(), !!this.strategy.tracksGeneration);
      // As upstream: defaults come with decoding, ownership is recorded, then the strategy prepares
      // the object (what it adds belongs to no manager).
      this.strategy.default?.(object, this.context);
      this.withType(object);
      this.recordOwnership(null, object, options);
      this.strategy.prepareForCreate?.(object, this.context);
      const name = object.metadata.name ?? '';
      await this.admit({ operation: 'CREATE', namespace, name, object, dryRun: !!options.dryRun, ...(options.user && { user: options.user }) });
      const errors = this.validateCreate(object);
      if (errors.length) throw this.invalid(name, errors);
      const key = this.resource.key(namespace, name);
      if (options.dryRun) {
        // As upstream's dry-run storage: the name must still be free.
        if (await this.exists(key)) throw newAlreadyExists(this.resource.groupResource, name);
        return object;
      }
      try {
        return this.withType(await this.storage.create(key, object));
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
    let object = deepCopy(input);
    if (subresource) object = subresource.merge(object, deepCopy(old));
    if (this.resource.namespaced) object.metadata.namespace = object.metadata.namespace || namespace;
    fillUpdateMeta(object, old, !!this.strategy.tracksGeneration);
    if (!subresource) this.strategy.prepareForUpdate?.(object, old, this.context);
    this.strategy.default?.(object, this.context);
    this.withType(object);
    object.metadata.resourceVersion = old.metadata.resourceVersion!;
    if (!request.ownershipDone) this.recordOwnership(old, object, request);
    await this.admit({
      operation: 'UPDATE',
      ...(request.user && { user: request.user }),
      namespace,
      name,
      object,
      oldObject: old,
      ...(request.subresource && { subresource: request.subresource }),
      dryRun: !!request.dryRun,
    });
    const errors = [
      ...validateObjectMetaUpdate(object.metadata, old.metadata),
      ...(subresource
        ? subresource.validateUpdate(object, old, this.context)
        : this.strategy.validateUpdate(object, old, this.context)),
    ];
    if (errors.length) throw this.invalid(name, errors);
    return object;
  }

  /** PUT: replaces the object (or its subresource's part); creates it where the kind allows. */
  async update(namespace: string, name: string, input: T, request: UpdateRequest = {}): Promise<{ object: T; created: boolean }> {
    const key = this.resource.key(namespace, name);
    let created = false;
    const mayCreate = this.resource.definition.allowCreateOnUpdate && !request.subresource;
    if (request.dryRun) {
      const old = await this.storage.get<T>(key).catch((error: unknown) => {
        if (mayCreate && isStorageError(error, 'NotFound')) return null;
        this.fail(error, name);
      });
      if (!old) return { object: await this.create(namespace, input, request), created: true };
      return { object: await this.prepareUpdate(namespace, name, input, old, request), created: false };
    }
    let updated: T;
    try {
      updated = await this.storage.guaranteedUpdate<T>(
        key,
        async (current) => {
          created = !current;
          if (current) return this.prepareUpdate(namespace, name, input, current, request);
          // A version of an object that does not exist cannot be current.
          if (input.metadata.resourceVersion) throw newNotFound(this.resource.groupResource, name);
          return this.prepareCreateOnUpdate(namespace, input, request);
        },
        { ignoreNotFound: mayCreate },
      );
    } catch (error) {
      this.fail(error, name);
    }
    this.withType(updated);
    if (updated.metadata.deletionTimestamp && !this.pendingFinalizers(updated)) await this.removeFinalized(key, updated);
    return { object: updated, created };
  }

  private async prepareCreateOnUpdate(namespace: string, input: T, request: UpdateRequest): Promise<T> {
    const object = deepCopy(input);
    if (this.resource.namespaced) object.metadata.namespace = namespace;
    fillCreateMeta(object.metadata, this.now(), !!this.strategy.tracksGeneration);
    this.strategy.default?.(object, this.context);
    this.withType(object);
    if (!request.ownershipDone) this.recordOwnership(null, object, request);
    this.strategy.prepareForCreate?.(object, this.context);
    const name = object.metadata.name ?? '';
    await this.admit({ operation: 'CREATE', namespace, name, object, dryRun: false, ...(request.user && { user: request.user }) });
    const errors = this.validateCreate(object);
    if (errors.length) throw this.invalid(name, errors);
    return object;
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

  /**
   * PATCH: the patch applied to the current object, then stored as an update would be. A
   * server-side apply to a missing object creates it.
   */
  async patch(namespace: string, name: string, request: PatchRequest<T>): Promise<{ object: T; created: boolean }> {
    const key = this.resource.key(namespace, name);
    const mayCreate = request.type === 'apply' && !request.subresource;
    let created = false;
    const compute = async (current: T | null): Promise<T> => {
      created = !current;
      try {
        if (request.type === 'apply') {
          const result = apply(current, request.patch as object, {
            manager: request.manager ?? 'unknown',
            apiVersion: this.resource.apiVersion,
            now: formatTimestamp(this.now()),
            schema: this.resource.definition.schema,
            force: !!request.force,
            kind: this.resource.kind,
            ...(request.subresource && { subresource: request.subresource }),
          });
          const object = request.decode(result.object);
          setManagedFields(object, result.managedFields);
          const done = { ...request, ownershipDone: true };
          if (!current) object.metadata.name ||= name;
          this.checkPatchedIdentity(object, namespace, name);
          if (!current) return await this.prepareCreateOnUpdate(namespace, object, done);
          return await this.prepareUpdate(namespace, name, object, current, done);
        }
        const patched =
          request.type === 'json'
            ? applyJsonPatch(current, request.patch as unknown[])
            : request.type === 'merge'
              ? applyMergePatch(current, request.patch)
              : applyStrategicMergePatch(current, request.patch, this.resource.definition.schema);
        const object = request.decode(patched);
        this.checkPatchedIdentity(object, namespace, name);
        return await this.prepareUpdate(namespace, name, object, current!, request);
      } catch (error) {
        throw mergeErrorToStatus(error);
      }
    };
    if (request.dryRun) {
      const current = await this.storage.get<T>(key).catch((error: unknown) => {
        if (mayCreate && isStorageError(error, 'NotFound')) return null;
        this.fail(error, name);
      });
      return { object: await compute(current), created };
    }
    let stored: T;
    try {
      stored = await this.storage.guaranteedUpdate<T>(key, compute, { ignoreNotFound: mayCreate }).catch((error: unknown) => {
        // Too large to store: as upstream's patch handler, once more without managedFields, which
        // can be large and are safe to drop; not for apply, whose result is its managedFields.
        if (request.type === 'apply' || !isStorageError(error, 'RequestTooLarge')) throw error;
        return this.storage.guaranteedUpdate<T>(key, async (current) => withoutManagedFields(await compute(current)), { ignoreNotFound: mayCreate });
      });
    } catch (error) {
      this.fail(error, name);
    }
    this.withType(stored);
    if (stored.metadata.deletionTimestamp && !this.pendingFinalizers(stored)) await this.removeFinalized(key, stored);
    return { object: stored, created };
  }

  /**
   * A patch may not move the object, as upstream's patcher checks after every patch mechanism: its
   * namespace must be the request's (empty takes it; a cluster-scoped object has none), then its
   * name the URL's. Both are a 400, before validation could call them immutable.
   */
  private checkPatchedIdentity(object: T, namespace: string, name: string): void {
    const meta = object.metadata;
    if (!this.resource.namespaced) delete meta.namespace;
    else if (!meta.namespace) meta.namespace = namespace;
    else if (meta.namespace !== namespace) throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (meta.name !== name) throw newBadRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
  }

  /** Removes an object whose deletion was waiting on finalizers that are now all gone. */
  private async removeFinalized(key: string, object: T): Promise<void> {
    try {
      await this.storage.delete(key, { preconditions: { resourceVersion: object.metadata.resourceVersion! } });
    } catch (error) {
      // Changed or removed meanwhile: whoever did that decides what happens next.
      if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound')) throw error;
    }
  }

  /**
   * DELETE: removes the object, or when finalizers must run first, marks it with a
   * deletionTimestamp and leaves it for them.
   */
  async delete(namespace: string, name: string, request: DeleteRequest = {}): Promise<DeleteResult<T>> {
    const key = this.resource.key(namespace, name);
    const preconditions = request.preconditions;
    try {
      const current = await this.storage.get<T>(key);
      await this.admit({ operation: 'DELETE', namespace, name, oldObject: current, dryRun: !!request.dryRun, ...(request.user && { user: request.user }) });
      const collecting = propagationFinalizers(current, request.propagationPolicy) !== undefined;
      if (!collecting && !this.pendingFinalizers(current) && !current.metadata.deletionTimestamp) {
        if (request.dryRun) {
          checkPreconditions(current, preconditions, this.resource, name);
          return { object: this.withType(current), deleted: true };
        }
        try {
          const deleted = await this.storage.delete<T>(key, {
            ...(preconditions && { preconditions }),
            validateDeletion: (object) => {
              if (this.pendingFinalizers(object) || propagationFinalizers(object, request.propagationPolicy)) throw new PendingFinalizers();
            },
          });
          return { object: this.withType(deleted), deleted: true };
        } catch (error) {
          if (!(error instanceof PendingFinalizers)) throw error;
        }
      }
      return await this.markForDeletion(key, name, request);
    } catch (error) {
      this.fail(error, name);
    }
  }

  private async markForDeletion(key: string, name: string, request: DeleteRequest): Promise<DeleteResult<T>> {
    const mark = (object: T): T => {
      checkPreconditions(object, request.preconditions, this.resource, name);
      // Finalizers change with the policy even when deletion has begun, as upstream's for kinds
      // without graceful deletion.
      const finalizers = propagationFinalizers(object, request.propagationPolicy);
      if (object.metadata.deletionTimestamp && !finalizers) return object;
      const marked = deepCopy(object);
      if (finalizers?.length) marked.metadata.finalizers = finalizers;
      else if (finalizers) delete marked.metadata.finalizers;
      if (marked.metadata.deletionTimestamp || !this.pendingFinalizers(marked)) return marked;
      marked.metadata.deletionTimestamp = formatTimestamp(this.now());
      marked.metadata.deletionGracePeriodSeconds = 0;
      // Upstream's mark for deletion: the beginning of deletion is a new generation, where there is one.
      if ((marked.metadata.generation ?? 0) > 0) marked.metadata.generation! += 1;
      this.strategy.prepareForDeletion?.(marked, this.context);
      return marked;
    };
    if (request.dryRun) return { object: this.withType(mark(await this.storage.get<T>(key))), deleted: false };
    const marked = this.withType(await this.storage.guaranteedUpdate<T>(key, (current) => mark(current!)));
    if (!this.pendingFinalizers(marked)) {
      await this.removeFinalized(key, marked);
      return { object: marked, deleted: true };
    }
    return { object: marked, deleted: false };
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

const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * The finalizers a delete with `policy` leaves the object with, or undefined when they do not
 * change (upstream's deletionFinalizersForGarbageCollection): Orphan adds `orphan`, Foreground
 * `foregroundDeletion`, Background neither; without a policy, a finalizer already there decides.
 */
function propagationFinalizers(object: KubeObject, policy: PropagationPolicy | undefined): string[] | undefined {
  const current = object.metadata.finalizers ?? [];
  const existing = current.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
  const orphan = policy ? policy === 'Orphan' : existing === ORPHAN_FINALIZER;
  const foreground = policy ? policy === 'Foreground' : existing === FOREGROUND_FINALIZER;
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const same = new Set(next).size === new Set(current).size && next.every((f) => current.includes(f));
  return same ? undefined : next;
}

function checkPreconditions<T extends KubeObject>(
  object: T,
  preconditions: DeleteRequest['preconditions'],
  resource: ResolvedResource<T>,
  name: string,
): void {
  if (!preconditions) return;
  const meta = object.metadata;
  if (preconditions.uid && preconditions.uid !== meta.uid) {
    throw newConflict(resource.groupResource, name, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (preconditions.resourceVersion && preconditions.resourceVersion !== meta.resourceVersion) {
    throw newConflict(
      resource.groupResource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}

function withoutManagedFields<T extends KubeObject>(object: T): T {
  delete object.metadata.managedFields;
  return object;
}
