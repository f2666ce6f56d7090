// ResourceStore, the one store that serves every resource type, and the contract kinds plug into it with.
export type * from './definition.js';
export { resolveResource, resolveGroup, DEFAULT_SUBRESOURCE_VERBS, type ResolvedResource } from './resolved.js';
export { ResourceStore } from './resource-store.js';
export { noAllocation, type Allocation, type AllocationContext, type ResourceAllocator } from './allocation.js';
export { noneConverter, versionCheckedConverter, type Converter } from './conversion.js';
export { ResourceReader, type StoreOptions, type StoreFeatures } from './store-reads.js';
export type {
  Admission,
  AdmissionAttributes,
  GroupVersionKind,
  StoreCheck,
  StoreChecks,
  CreateRequest,
  DeleteRequest,
  DeleteResult,
  FieldValidation,
  ListQueryWithSelectors,
  ObjectList,
  Operation,
  PatchRequest,
  PatchResult,
  PatchType,
  PropagationPolicy,
  UpdateRequest,
  UpdateResult,
  WriteOptions,
} from './requests.js';
export { ensureIdentity, objectFromInput, type DecodedInput } from './object-input.js';
export { StoreInformer, type InformerHandlers, type InformerLogger } from './store-informer.js';
export { startWatch, type ApiWatch, type ApiWatchEvent, type ApiWatchEventType, type WatchQuery, type WatchSettings } from './watch.js';
export { toStatusError, tooLargeResourceVersion, OPTIMISTIC_LOCK_MESSAGE } from './errors.js';
export { formatTimestamp } from './object-meta.js';
export { listItem, listObjects, sharedList, type ListObjects } from './list-item.js';
export { listSemantic, parseResourceVersion } from './resource-version.js';
export { checkFields, pruneUnknownFields, KUBERNETES_SCHEMA_KEYWORDS, type FieldCheck } from './schema-check.js';
