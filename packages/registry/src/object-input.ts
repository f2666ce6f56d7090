// What a request's body (or a patched object) becomes before the store works on it: the type meta
// checked against the resource, the schema check with fieldValidation (conventions 4.9), and the
// object's namespace and name checked against the request's, as upstream's handlers check them.
import { newBadRequest } from '@plat/apimachinery';
import type { KubeObject } from './definition.js';
import type { ResolvedResource } from './resolved.js';
import type { FieldValidation } from './requests.js';
import { checkFields } from './schema-check.js';

export interface DecodedInput {
  value: unknown;
  /** Paths of keys given twice in one object of the text the value was decoded from. */
  duplicates: readonly string[];
}

/**
 * The object `input` stands for, and the warnings fieldValidation=Warn asks for. Type errors, a
 * body that is not an object or names another kind, and (with Strict) unknown or duplicate fields
 * are a 400. Unknown fields are dropped whatever the level, as a typed decoder drops them.
 */
export function objectFromInput<T extends KubeObject>(
  resolved: ResolvedResource<T>,
  input: DecodedInput,
  fieldValidation: FieldValidation,
): { object: T; warnings: string[] } {
  const { kind, version } = resolved;
  const value = input.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: the body is not a JSON object`);
  }
  const object = value as Record<string, unknown>;
  if (object.apiVersion !== undefined && object.apiVersion !== resolved.apiVersion) {
    throw newBadRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${resolved.apiVersion})`);
  }
  if (object.kind !== undefined && object.kind !== kind) {
    throw newBadRequest(`the kind in the data (${String(object.kind)}) does not match the expected kind (${kind})`);
  }
  const check = checkFields(resolved.definition, object, true);
  if (check.typeErrors.length) {
    throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${check.typeErrors.join('; ')}`);
  }
  const rules = resolved.definition.unstructured;
  // As upstream's custom resource decoding: pruned by the schema (its defaults are the store's,
  // strategy.default, so that every write gets them).
  if (rules) {
    check.unknownFields.push(...rules.prune(object as KubeObject));
    const coerced = rules.coerce?.(object as KubeObject);
    if (coerced?.error) throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${coerced.error}`);
    if (coerced) check.unknownFields.push(...coerced.unknownFields);
  }
  const problems = [...check.unknownFields.map((field) => `unknown field "${field}"`), ...input.duplicates.map((field) => `duplicate field "${field}"`)];
  if (problems.length && fieldValidation === 'Strict') throw newBadRequest(`strict decoding error: ${problems.join(', ')}`);
  object.metadata ??= {};
  return { object: object as T, warnings: fieldValidation === 'Warn' ? problems : [] };
}

/**
 * Upstream's EnsureObjectNamespaceMatchesRequestNamespace, then its name check: an empty namespace
 * takes the request's, a cluster-scoped object has none, another namespace is a 400; the name, when
 * the URL gives one, must be the URL's (an empty one takes it where `fillName` says so).
 */
export function ensureIdentity<T extends KubeObject>(
  resolved: ResolvedResource<T>,
  object: T,
  namespace: string,
  name?: { url: string; fillName: boolean },
): void {
  const meta = object.metadata;
  const expected = resolved.namespaced ? namespace : '';
  if (!expected) delete meta.namespace;
  else if (!meta.namespace) meta.namespace = expected;
  else if (meta.namespace !== expected) throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (!name) return;
  if (!meta.name && name.fillName) meta.name = name.url;
  if (meta.name !== name.url) throw newBadRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name.url})`);
}
