// ObjectMeta validation on create and on update: name, namespace, labels, annotations, finalizers, owner references.
import { forbidden, invalid, newPath, required, tooLong, type FieldError, type FieldPath } from '../field-errors.js';
import { goStringSlice } from '../go-string-slice.js';
import { byteLength } from './messages.js';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, type ValidateNameFunc } from './names.js';

/** The ObjectMeta fields validation reads; any object type's metadata fits it. */
export interface ObjectMetaFields {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Readonly<Record<string, string>> | null;
  annotations?: Readonly<Record<string, string>> | null;
  finalizers?: readonly string[] | null;
  ownerReferences?: readonly {
    apiVersion?: string;
    kind?: string;
    name?: string;
    uid?: string;
    controller?: boolean | null;
    blockOwnerDeletion?: boolean | null;
  }[] | null;
  managedFields?: readonly unknown[] | null;
}

const FIELD_IMMUTABLE = 'field is immutable';
const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The string entries of a map-valued field. Upstream's typed decoding rejects anything else before
 * validation; here such values are reported as invalid at their path.
 */
function stringEntries(value: unknown, path: FieldPath, errors: FieldError[]): [string, string][] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) {
    errors.push(invalid(path, value, 'must be a map of string keys to string values'));
    return [];
  }
  const entries: [string, string][] = [];
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') entries.push([key, v]);
    else errors.push(invalid(path.key(key), v, 'must be a string'));
  }
  return entries;
}

/** As stringEntries, for a list of strings. */
function stringItems(value: unknown, path: FieldPath, errors: FieldError[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push(invalid(path, value, 'must be a list of strings'));
    return [];
  }
  const items: string[] = [];
  value.forEach((item: unknown, i) => {
    if (typeof item === 'string') items.push(item);
    else errors.push(invalid(path.index(i), item, 'must be a string'));
  });
  return items;
}

/** Label keys are qualified names and values label values; errors sit at the map's path, as upstream's. */
export function validateLabels(labels: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of stringEntries(labels, path, errors)) {
    for (const message of isQualifiedName(key)) errors.push(invalid(path, key, message));
    for (const message of isValidLabelValue(value)) errors.push(invalid(path, value, message));
  }
  return errors;
}

/** Annotation keys are qualified names in any case; keys and values together hold at most 256 KiB. */
export function validateAnnotations(annotations: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of stringEntries(annotations, path, errors)) {
    for (const message of isQualifiedName(key.toLowerCase())) errors.push(invalid(path, key, message));
    size += byteLength(key) + byteLength(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errors.push(tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errors;
}

/**
 * Finalizers are qualified names, and the two garbage-collection policies exclude each other. As in
 * upstream 1.28, an unprefixed name need not be a standard one here (only Namespace spec.finalizers
 * asks that) and a repeated finalizer is not an error.
 */
export function validateFinalizers(finalizers: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = stringItems(finalizers, path, errors);
  for (const name of names) {
    for (const message of isQualifiedName(name)) errors.push(invalid(path, name, message));
  }
  if (names.includes(FINALIZER_ORPHAN_DEPENDENTS) && names.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errors.push(
      invalid(path, finalizers, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`),
    );
  }
  return errors;
}

/** schema.ParseGroupVersion's version part: "" when the apiVersion does not parse. */
function versionOf(apiVersion: string): string {
  if (apiVersion === '' || apiVersion === '/') return '';
  const parts = apiVersion.split('/');
  if (parts.length === 1) return apiVersion;
  return parts.length === 2 ? parts[1]! : '';
}

const groupOf = (apiVersion: string): string => (apiVersion.split('/').length === 2 ? apiVersion.split('/')[0]! : '');

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Each reference names its owner fully (errors at the list's path, not the item's, as upstream's);
 * core/v1 Events may not own objects; at most one reference is the controller.
 */
export function validateOwnerReferences(refs: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (refs === undefined || refs === null) return errors;
  if (!Array.isArray(refs)) return [invalid(path, refs, 'must be a list of owner references')];
  let firstController = '';
  refs.forEach((ref: unknown, i) => {
    if (!isRecord(ref)) {
      errors.push(invalid(path.index(i), ref, 'must be an owner reference'));
      return;
    }
    const apiVersion = text(ref.apiVersion);
    const kind = text(ref.kind);
    const name = text(ref.name);
    const version = versionOf(apiVersion);
    if (!version) errors.push(invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind) errors.push(invalid(path.child('kind'), kind, 'must not be empty'));
    if (!name) errors.push(invalid(path.child('name'), name, 'must not be empty'));
    if (!text(ref.uid)) errors.push(invalid(path.child('uid'), text(ref.uid), 'must not be empty'));
    if (groupOf(apiVersion) === '' && version === 'v1' && kind === 'Event') {
      errors.push(invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const controller = `${kind}/${name}`;
      if (!firstController) firstController = controller;
      else {
        const detail = `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controller}`;
        errors.push(invalid(path, refs, detail));
      }
    }
  });
  return errors;
}

/** Upstream's checks common to create and update, of the new metadata's contents. */
function validateContents(meta: ObjectMetaFields, path: FieldPath): FieldError[] {
  return [
    ...validateLabels(meta.labels, path.child('labels')),
    ...validateAnnotations(meta.annotations, path.child('annotations')),
    ...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')),
    ...validateFinalizers(meta.finalizers, path.child('finalizers')),
  ];
}

export interface ObjectMetaOptions {
  /** Whether the kind lives in namespaces (namespace then required) or is cluster-scoped (forbidden). */
  namespaced: boolean;
  validateName: ValidateNameFunc;
}

/**
 * The metadata of an object to be created. A name is required unless a generateName is given (the
 * store generates the name before validating, so in practice the name is always checked).
 */
export function validateObjectMeta(meta: ObjectMetaFields, options: ObjectMetaOptions, path: FieldPath = newPath('metadata')): FieldError[] {
  const errors: FieldError[] = [];
  const { name, generateName, namespace } = meta;
  if (generateName) {
    for (const message of options.validateName(generateName, true)) errors.push(invalid(path.child('generateName'), generateName, message));
  }
  if (name) {
    for (const message of options.validateName(name, false)) errors.push(invalid(path.child('name'), name, message));
  } else if (!generateName) {
    errors.push(required(path.child('name'), 'name or generateName is required'));
  }
  if (options.namespaced) {
    if (!namespace) errors.push(required(path.child('namespace'), ''));
    else for (const message of nameIsDNSLabel(namespace, false)) errors.push(invalid(path.child('namespace'), namespace, message));
  } else if (namespace) {
    errors.push(forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errors.push(invalid(path.child('generation'), meta.generation, 'must be greater than or equal to 0'));
  }
  return [...errors, ...validateContents(meta, path)];
}

// Go's zero values: an absent string is "", an absent timestamp or pointer is nil.
const str = (value: string | undefined): string => value ?? '';
const opt = <V>(value: V | null | undefined): V | null => (value === undefined || value === '' ? null : value);

/** metav1.Time compares as an instant, not as text. */
function sameTime(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  return !Number.isNaN(ta) && ta === tb;
}

/**
 * The metadata of an update against the stored object's: identity and timestamps are immutable
 * (the store copies the server-owned ones over first, as upstream's BeforeUpdate), the generation
 * only grows, a resourceVersion is present, and an object being deleted gains no finalizers.
 */
export function validateObjectMetaUpdate(meta: ObjectMetaFields, old: ObjectMetaFields, path: FieldPath = newPath('metadata')): FieldError[] {
  const errors: FieldError[] = [];
  if (opt(old.deletionTimestamp) !== null) {
    const before = new Set(old.finalizers ?? []);
    const added = [...new Set((meta.finalizers ?? []).filter((f) => !before.has(f)))].sort();
    if (added.length) {
      const detail = `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`;
      errors.push(forbidden(path.child('finalizers'), detail));
    }
  }
  if (!meta.resourceVersion) errors.push(invalid(path.child('resourceVersion'), str(meta.resourceVersion), 'must be specified for an update'));
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errors.push(invalid(path.child('generation'), meta.generation ?? 0, 'must not be decremented'));
  }
  for (const field of ['name', 'namespace', 'uid'] as const) {
    if (str(meta[field]) !== str(old[field])) errors.push(invalid(path.child(field), str(meta[field]), FIELD_IMMUTABLE));
  }
  for (const field of ['creationTimestamp', 'deletionTimestamp'] as const) {
    if (!sameTime(opt(meta[field]), opt(old[field]))) errors.push(invalid(path.child(field), opt(meta[field]), FIELD_IMMUTABLE));
  }
  if (opt(meta.deletionGracePeriodSeconds) !== opt(old.deletionGracePeriodSeconds)) {
    errors.push(invalid(path.child('deletionGracePeriodSeconds'), opt(meta.deletionGracePeriodSeconds), FIELD_IMMUTABLE));
  }
  return [...errors, ...validateContents(meta, path)];
}
