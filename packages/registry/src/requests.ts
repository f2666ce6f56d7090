// What the generic store is asked to do, and what it tells admission: the requests of each verb,
// their results, and the attributes of a write that admission checks.
import type { UserInfo } from '@plat/apimachinery';
import type { KubeObject } from './definition.js';
import type { ResolvedResource } from './resolved.js';
import type { ListQuery } from './resource-version.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionAttributes {
  /** Unique to the write: the uid of the AdmissionReview a webhook is sent. */
  uid: string;
  operation: Operation;
  /** Absent for the server's own writes (bootstrap). */
  user?: UserInfo;
  resource: ResolvedResource;
  /**
   * The kind of `object` and `oldObject`: a subresource's own where it is served as another kind
   * (a scale write is admitted as Scale objects), else the resource's.
   */
  kind: GroupVersionKind;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  subresource?: string;
  dryRun: boolean;
  /**
   * The request's options as upstream's admission sees them (a CreateOptions, UpdateOptions,
   * PatchOptions or DeleteOptions object with its kind and apiVersion); absent for the server's own writes.
   */
  options?: Readonly<Record<string, unknown>>;
  /** Adds a warning to the response (a `Warning: 299` header). */
  warn?: (message: string) => void;
  /** Adds an annotation to the request's audit event. */
  annotate?: (key: string, value: string) => void;
}

/**
 * Admission as a store runs it: the server's chain of admission plugins (packages/admission),
 * chosen by --enable-admission-plugins and --disable-admission-plugins, behind one interface: the
 * store knows no plugin by name.
 */
export interface Admission {
  /**
   * The mutating phase, before the kind's validation: the object as the plugins leave it, or
   * undefined where none changed it. The store then decodes (prunes) and defaults the changed
   * object again, as upstream does after mutating admission. Throws a StatusError to refuse.
   */
  mutate(attributes: AdmissionAttributes): Promise<KubeObject | undefined>;
  /** The validating phase, after the kind's validation, on the object as it will be stored. */
  validate(attributes: AdmissionAttributes): Promise<void>;
}

/** A check a kind's store runs on a write whatever the admission plugins; throwing a StatusError refuses it. */
export type StoreCheck = (attributes: AdmissionAttributes) => Promise<void> | void;

/**
 * What a kind's own storage checks on a write, as upstream's REST storage of those kinds does
 * (RBAC's escalation check, a custom resource's definition being terminated, who may name a
 * policy's parameters): `beforeValidation` after mutating admission, `afterValidation` before
 * validating admission. Not admission plugins: no flag turns them off.
 */
export interface StoreChecks {
  beforeValidation: readonly StoreCheck[];
  afterValidation: readonly StoreCheck[];
}

/** How a request's unknown and duplicate fields are answered (conventions 4.9). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun?: boolean;
  /** The requesting user, for admission; absent for the server's own writes. */
  user?: UserInfo;
  /** Who makes the change, for managedFields (fieldManager, else from the User-Agent). */
  manager?: string;
  /** Receives the kind's warnings about the object written (the response's Warning headers). */
  warn?: (message: string) => void;
  /** Receives the annotations admission adds to the request's audit event. */
  annotate?: (key: string, value: string) => void;
  /** The request's options object (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions), for admission. */
  operationOptions?: Readonly<Record<string, unknown>>;
}

export interface CreateRequest extends WriteOptions {
  /** For a create on a subresource (serviceaccounts/{name}/token): the parent object's name. */
  parentName?: string;
}

export interface UpdateRequest extends WriteOptions {
  /** The object's managedFields were already computed (apply): do not record an update. */
  ownershipDone?: boolean;
  subresource?: string;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchRequest extends UpdateRequest {
  type: PatchType;
  /** The parsed patch: an array of operations for json, an object otherwise. */
  patch: unknown;
  /** Keys the patch's text gave twice in one object: reported for the patched object per fieldValidation. */
  duplicates?: readonly string[];
  fieldValidation?: FieldValidation;
  /** Apply: take fields other managers own. */
  force?: boolean;
}

export interface UpdateResult<T> {
  object: T;
  /** The write made the object (a PUT or an apply to a missing one). */
  created: boolean;
}

/** A patch's result, with the warnings fieldValidation=Warn asked for about the patched object. */
export interface PatchResult<T> extends UpdateResult<T> {
  warnings: string[];
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
