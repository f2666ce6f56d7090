// What a kind hands to the generic store: a declarative definition and a strategy of paired hooks.
// The store owns the pipeline (decode checks, metadata, defaulting, validation, storage); a kind
// only says what is particular to it. Kinds live in packages/api, one file each.
import type { AccessAttributes, AccessDecision, AccessRules, FieldError, GroupKind, KubeObject, UserInfo } from '@plat/apimachinery';
import type { Converter } from './conversion.js';
import type { ResourceAllocator } from './allocation.js';

export type { KubeObject, ObjectMeta, OwnerReference } from '@plat/apimachinery';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Facts of the running server that a kind's rules may depend on. */
export interface StrategyContext {
  /** --api-domain: "plat.io", or "k8s.io" for Kubernetes' names. */
  domain: string;
}

/** A JSON Schema (draft 2020-12 subset that ajv compiles) with Kubernetes' x-kubernetes-* markers. */
export type JSONSchema = Record<string, unknown>;

export interface TableColumn<T extends KubeObject> {
  name: string;
  /** OpenAPI type: string, integer, number, boolean; `date` for a custom resource's date column. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  /** 0: shown by default; above 0: only with -o wide. */
  priority: number;
  /** The cell of one object; some cells depend on the domain (a Node's roles are labels under it). */
  value: (object: T, context: StrategyContext) => unknown;
}

/**
 * The kind's own rules. Metadata rules common to every kind (ObjectMeta validation, uid,
 * timestamps, generation, resourceVersion) are the store's; these hooks add to them.
 */
export interface ResourceStrategy<T extends KubeObject> {
  /**
   * The kind keeps metadata.generation: 1 on create, one more with each change outside metadata
   * and status (upstream's workload and custom-resource strategies). Otherwise the generation is
   * whatever the client sets, as for every built-in kind served here.
   */
  tracksGeneration?: boolean;
  /** Clears what a client may not set on create (for example status). */
  prepareForCreate?(object: T, context: StrategyContext): void;
  /** Keeps what a client may not change on update (for example status, from `old`). */
  prepareForUpdate?(object: T, old: T, context: StrategyContext): void;
  /** Fills defaults in place; must be idempotent. Runs after prepare, before validation. */
  default?(object: T, context: StrategyContext): void;
  /** Field errors of a new object (metadata.name etc. are checked by the store). */
  validate(object: T, context: StrategyContext): FieldError[];
  /** Field errors of an update, including changes to immutable fields. */
  validateUpdate(object: T, old: T, context: StrategyContext): FieldError[];
  /**
   * Warnings for the client about an object that is valid but likely wrong (upstream's
   * WarningsOnCreate: a TLS Secret whose key does not match its certificate), after validation.
   */
  warningsOnCreate?(object: T, context: StrategyContext): string[];
  /** As warningsOnCreate, for the object an update stores. */
  warningsOnUpdate?(object: T, old: T, context: StrategyContext): string[];
  /**
   * Whether something still has to happen before the object may be removed. Default: a non-empty
   * metadata.finalizers. (A Namespace also waits for spec.finalizers.)
   */
  hasPendingFinalizers?(object: T): boolean;
  /**
   * Finalizers the first delete adds, so that the object stays until something has cleaned up
   * after it (a CustomResourceDefinition's `customresourcecleanup.apiextensions.<domain>`: its
   * custom objects are deleted first).
   */
  deletionFinalizers?(context: StrategyContext, object: T): readonly string[];
  /** Marks an object whose deletion has begun (deletionTimestamp is the store's; e.g. status.phase). */
  prepareForDeletion?(object: T, context: StrategyContext): void;
}

/**
 * A subresource served as the object itself (status, finalize): GET answers the whole object, and
 * PUT and PATCH take one, of which only the subresource's part is stored.
 */
export interface ObjectSubresource<T extends KubeObject> {
  /** The verbs served on it (default get, patch and update, as upstream's status); others are a 405. */
  verbs?: readonly Verb[];
  /** The object to store: `old` with the subresource's part taken from `object`. */
  merge(object: T, old: T): T;
  /** Field errors of the merged object against the old one. */
  validateUpdate(object: T, old: T, context: StrategyContext): FieldError[];
  servedAs?: undefined;
}

/**
 * A subresource served as another kind (a custom resource's `scale` is an autoscaling/v1 Scale):
 * GET answers that kind's object made from the parent; PUT and PATCH take one (PATCH works on the one
 * made from the current parent), and store the parent with it applied, through the kind's own
 * strategy (prepareForUpdate, validateUpdate), as upstream's scale storage updates its parent.
 */
export interface KindSubresource<T extends KubeObject> {
  /** The verbs served on it (default get, patch and update); others are a 405. */
  verbs?: readonly Verb[];
  servedAs: SubresourceKind<T>;
}

export type SubresourceDefinition<T extends KubeObject> = ObjectSubresource<T> | KindSubresource<T>;

/** What a subresource's kind is told when one of its objects is applied to the parent. */
export interface SubresourceWriteContext extends StrategyContext {
  /** The parent's kind: the subject of a 422 about what the parent cannot take. */
  groupKind: GroupKind;
  /** The parent's name. */
  name: string;
}

/**
 * A leaf field of a subresource's kind that stands for a leaf field of the parent (Scale's
 * spec.replicas for a custom resource's specReplicasPath), as field paths (`['spec', 'replicas']`).
 * Field ownership follows it: who sets the one through the subresource owns the other.
 */
export interface SubresourceField {
  field: readonly string[];
  parentField: readonly string[];
}

/** The kind a subresource is served as, and how its objects and the parent's correspond. */
export interface SubresourceKind<T extends KubeObject> {
  /** Its API group ("autoscaling"; "{domain}" inside it stands for --api-domain), version and kind. */
  group: string;
  version: string;
  kind: string;
  /** Its schema, as a kind's: bodies are decoded and checked with it, OpenAPI publishes it. */
  schema: JSONSchema;
  /** Its Protobuf form, as a kind's (ResourceDefinition.protobuf); absent: JSON and YAML only. */
  protobuf?: { message: string; pointers?: readonly string[] };
  /** Columns of its Table representation; absent: Name and Created At. */
  tableColumns?: readonly TableColumn<KubeObject>[];
  /**
   * Its object made from the parent as served (which it must not change: it may be a watch cache's
   * shared object): what GET answers, and what a write answers with. Throws a StatusError where the
   * parent cannot be shown (upstream's scale answers 500 for a custom resource without spec replicas).
   */
  fromParent(parent: T): KubeObject;
  /**
   * The object a write starts from (PATCH's base, the old object of field ownership and admission),
   * where it is not what GET shows: a parent it cannot be shown for still takes a write that sets
   * what it lacks. Default: fromParent.
   */
  writeBase?(parent: T): KubeObject;
  /**
   * The parent to store with `object` applied (only the parent's fields `object` stands for):
   * `parent` is a copy, which it may change and return. Throws a StatusError where the parent cannot
   * take it (422 for values it refuses, 400 for what is missing).
   */
  toParent(object: KubeObject, parent: T, context: SubresourceWriteContext): T;
  /** The fields that stand for the parent's, for field ownership; others set through it are owned by no one. */
  fields: readonly SubresourceField[];
}

export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  /** The API group: "" for the core group; "{domain}" inside it stands for --api-domain. */
  group: string;
  version: string;
  kind: string;
  /** The kind of its lists; default `<kind>List` (a custom resource may name another). */
  listKind?: string;
  /** The plural, lower-case name used in URLs. */
  resource: string;
  singularName: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  namespaced: boolean;
  verbs: readonly Verb[];
  /** The whole object's schema (apiVersion, kind, metadata and the kind's own fields). */
  schema: JSONSchema;
  strategy: ResourceStrategy<T>;
  /**
   * Problems with a name (or, with prefix true, a generateName prefix), as messages. Default:
   * a DNS-1123 subdomain.
   */
  validateName?: (name: string, prefix: boolean, object: T) => string[];
  /** Fields a fieldSelector may name beyond metadata.name and metadata.namespace, with their values. */
  selectableFields?: (object: T) => Record<string, string>;
  /** Columns of the Table representation; absent: Name and Created At. */
  tableColumns?: readonly TableColumn<T>[];
  /** A PUT to a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** DELETE answers with the deleted object rather than a Status (ServiceAccount does). */
  deleteReturnsObject?: boolean;
  subresources?: Readonly<Record<string, SubresourceDefinition<T>>>;
  /**
   * A resource that is never stored (the access reviews, TokenReview, TokenRequest): it answers
   * only create, by filling in the posted object. The server decodes and validates the body with
   * the schema and strategy as for any create, then calls `virtual.create` instead of the store.
   */
  virtual?: VirtualResource<T>;
  /**
   * The structs upstream's zero value of the kind always holds (its non-pointer struct fields, each
   * `{}`), metadata aside: `{ spec: {} }`. A create records field ownership against it, so those
   * structs get no `.` of their own. Default: none.
   */
  zeroValue?: Readonly<Record<string, Record<string, never>>>;
  /**
   * The kind's Protobuf form (conventions 2.5): the message its objects are carried in, in
   * upstream's .proto files (its list's is the same name with List), and the JSON paths of the
   * fields Go keeps when zero (its pointer fields: `spec.holderIdentity`). The fields Go always
   * writes are the schema's required ones. Absent: the kind is served as JSON and YAML only.
   */
  protobuf?: { message: string; pointers?: readonly string[] };
  /**
   * The objects are unstructured, as a custom resource's (upstream's custom resource handler): the
   * schema's `metadata` is checked while decoding, everything else by these rules and the
   * strategy's validation. Absent: a typed kind, checked against its schema while decoding.
   */
  unstructured?: UnstructuredRules;
  /**
   * This kind is served over another kind's storage (events.{domain}/v1 Event over core v1 Events,
   * as upstream stores one Event and serves it through both groups): its objects are stored at that
   * resource's keys, in that kind's form. Absent: stored at its own keys, as served.
   */
  storedAs?: StoredKind<T>;
  /**
   * Seconds an object lives after each write (upstream's TTLFunc: an Event's --event-ttl, which the
   * kind's factory is given); the storage then deletes it, which watchers see as any delete. Absent
   * or 0: until deleted.
   */
  timeToLive?: (context: StrategyContext) => number;
  /**
   * false: this version is served only when --runtime-config turns it on, whatever its maturity
   * (upstream's beta versions new since Kubernetes 1.24 are off by default). Default: GA and beta
   * versions are served, alpha ones are not.
   */
  servedByDefault?: boolean;
  /**
   * This version of the resource is deprecated: requests get a `Warning: 299` header (`warning`,
   * or upstream's text from the releases and the replacement: "<group>/<version> <Kind> is
   * deprecated in v1.26+, unavailable in v1.29+; use <group>/<replacementVersion> <Kind>"), an audit
   * annotation and apiserver_requested_deprecated_apis.
   */
  deprecated?: { deprecatedRelease?: string; removedRelease?: string; replacementVersion?: string; warning?: string };
  /**
   * What the kind reserves outside its objects (a Service's cluster IPs and node ports, allocation.ts):
   * after validation and before storing, reverted when the write fails, released on delete.
   */
  allocator?: ResourceAllocator<T>;
  /**
   * Subresources upstream serves that this server lists in discovery, with their verbs, and answers
   * 501 with a Status saying why (`services/proxy`: no network path to backends here).
   */
  notImplementedSubresources?: Readonly<Record<string, { kind: string; verbs: readonly Verb[]; reason: string }>>;
}

/**
 * The kind a definition's objects are stored as, and the conversions between the two shapes. Both
 * are of one internal object (upstream's internal Event), so every field survives the round trip;
 * the served kind's schema, strategy and columns see the served shape only.
 */
export interface StoredKind<T extends KubeObject> {
  /** The stored kind's group ("" for the core group), version, kind and plural resource (its keys). */
  group: string;
  version: string;
  kind: string;
  resource: string;
  /** The stored form of a served object (a new object; `object` is not changed). */
  toStored(object: T): KubeObject;
  /** The served form of a stored object (a new object; `stored` is not changed: it may be shared). */
  fromStored(stored: KubeObject): T;
}

/**
 * How the objects of an unstructured kind are read. Pruning applies to a request's object as it is
 * decoded (defaults are the strategy's, as for any kind), and both to objects read from storage
 * (written before the schema changed, or by another version): a client sees no field the schema
 * does not have, and every default.
 */
export interface UnstructuredRules {
  /**
   * The version objects are stored in, whichever version they were written through; each version
   * serves them converted to itself by `converter`.
   */
  storageVersion: string;
  /**
   * How objects go between the storage version and the others (the definition's
   * spec.conversion.strategy). Absent: None, apiVersion rewritten and nothing else.
   */
  converter?: Converter;
  /** Removes the fields the schema does not declare, in place; their paths (`spec.foo`), in document order. */
  prune(object: KubeObject): string[];
  /**
   * After pruning, a request's object as upstream's decoder coerces it: the type meta and metadata
   * of the resources the schema embeds (x-kubernetes-embedded-resource) must decode as TypeMeta and
   * ObjectMeta (`error`: the first that does not, a 400), each metadata rewritten as ObjectMeta
   * writes it; `unknownFields`, the metadata fields that rewrite dropped. Absent: nothing embedded.
   */
  coerce?(object: KubeObject): { error?: string; unknownFields: string[] };
  /** Fills the schema's defaults in place; idempotent. Returns whether anything changed. */
  default(object: KubeObject): boolean;
  /**
   * The schema server-side apply and field ownership work by (the version's structural schema,
   * in `schema`'s dialect): its x-kubernetes-list-type, list-map-keys and map-type markers, every
   * list atomic without one, as upstream treats custom resources. Absent: all of it deduced from
   * the objects (objects granular, lists atomic).
   */
  fieldsSchema?: JSONSchema;
  /**
   * The schema OpenAPI publishes for the kind, in OpenAPI 3.0's dialect as a CustomResourceDefinition
   * gives it (`nullable`, boolean `exclusiveMinimum`, x-kubernetes-* markers); `schema` above is
   * only what decoding checks (apiVersion, kind and metadata). Absent: published as an object that
   * keeps unknown fields.
   */
  openAPIV3Schema?: JSONSchema;
}

/**
 * What the server lends every virtual resource to answer with: its authorizer. What only one kind
 * needs (TokenReview's authenticators, TokenRequest's issuer) is given to that kind's factory.
 */
export interface VirtualServices {
  authorize(attributes: AccessAttributes): Promise<AccessDecision>;
  rulesFor(user: UserInfo, namespace: string): Promise<AccessRules>;
}

export interface VirtualContext extends StrategyContext {
  /** The namespace of the request path ("" for cluster-scoped resources). */
  namespace: string;
  /** The parent object's name for a subresource (serviceaccounts/{name}/token); "" otherwise. */
  name: string;
  /** The requester (after impersonation). */
  user: UserInfo;
  dryRun: boolean;
  services: VirtualServices;
}

export interface VirtualResource<T extends KubeObject> {
  /**
   * Served as a subresource of another resource rather than as a collection of its own: a POST to
   * `<parent collection>/{name}/<subresource>` (TokenRequest is `serviceaccounts/{name}/token`).
   */
  subresourceOf?: { group: string; version: string; resource: string; subresource: string };
  /** The object to answer with (201), given the posted object after defaulting and validation. */
  create(object: T, context: VirtualContext): Promise<T>;
}
