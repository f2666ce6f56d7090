// The one generic store that serves every resource type, and the contract kinds plug into it with.
export type * from './definition.js';
export { resolveResource, resolveGroup, type ResolvedResource } from './resolved.js';
export {
  ResourceStore,
  type AdmissionAttributes,
  type AdmissionCheck,
  type StoreOptions,
  type StoreFeatures,
  type WriteOptions,
  type UpdateRequest,
  type PatchRequest,
  type PatchType,
  type DeleteRequest,
  type DeleteResult,
  type ListQueryWithSelectors,
  type ObjectList,
  type Operation,
} from './store.js';
export { startWatch, type ApiWatch, type ApiWatchEvent, type ApiWatchEventType, type WatchQuery, type WatchSettings } from './watch.js';
export { toStatusError, tooLargeResourceVersion, OPTIMISTIC_LOCK_MESSAGE } from './errors.js';
export { formatTimestamp } from './object-meta.js';
export { parseResourceVersion } from './resource-version.js';
export { checkFields, KUBERNETES_SCHEMA_KEYWORDS, type FieldCheck } from './schema-check.js';
