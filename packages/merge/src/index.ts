// Merging for updates: the patch types of PATCH, and server-side apply with field ownership. Pure
// functions over JSON objects and the kind's JSON schema; no I/O.
export { PatchError, isPatchError, type PatchErrorKind } from './patch-error.js';
export { applyJsonPatch, maxJSONPatchOperations } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export {
  describeSchema,
  fieldSchema,
  isNamedField,
  schemaAt,
  untypedSchema,
  type JSONSchema,
  type ListType,
  type SchemaNode,
} from './schema-walker.js';
export { deepCopy } from './json.js';
export { FieldSet, union, difference, intersection } from './fieldpath/field-set.js';
export { encodeFieldsV1, decodeFieldsV1, type FieldsV1 } from './fieldpath/fields-v1.js';
export {
  compareElements,
  elementString,
  fieldElement,
  keyElement,
  pathString,
  valueElement,
  type FieldPath,
  type PathElement,
} from './fieldpath/path-element.js';
export { TypedError, compareValues, mergeValues, type Comparison } from './typed.js';
export {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isManagedFieldsReset,
  managerIdentifier,
  maxUpdateManagers,
  ManagedFieldsError,
  type ManagedFieldsEntry,
  type ManagedFieldsOperation,
  type ManagedMap,
  type ManagedSet,
} from './managed-fields.js';
export {
  apply,
  recordUpdate,
  ApplyConflictError,
  beforeFirstApplyManager,
  lastAppliedConfigAnnotation,
  type ApplyConflict,
  type ApplyOptions,
  type ApplyResult,
  type OwnershipOptions,
} from './apply.js';
export { managerFromUserAgent, fieldManagerMaxLength } from './user-agent.js';

import type { FieldSet } from './fieldpath/field-set.js';
import type { JSONSchema } from './schema-walker.js';
import { toFieldSet } from './typed.js';

/**
 * Every field path `object` sets, as upstream's ToFieldSet: scalar leaves, list items (`k:` in map
 * lists, `v:` in sets), map entries, and atomic lists and maps as single leaves.
 */
export function fieldSetFromObject(object: unknown, schema: JSONSchema): FieldSet {
  return toFieldSet(object, schema);
}
