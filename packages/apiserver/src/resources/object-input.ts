// Turning a decoded request body into the object a create or update works on: type meta checks,
// schema checks with fieldValidation (conventions 4.9), namespace and name consistency.
import { newBadRequest } from '@plat/apimachinery';
import { checkFields, type KubeObject, type ResolvedResource } from '@plat/registry';
import type { RequestContext } from '../context.js';
import type { DecodedBody } from './body.js';
import type { FieldValidation } from './query.js';
import { addWarnings } from './respond.js';

export function objectFromBody(
  ctx: RequestContext,
  body: DecodedBody,
  resolved: ResolvedResource,
  fieldValidation: FieldValidation,
): KubeObject {
  const value = body.value;
  const { kind, version } = resolved;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: the body is not a JSON object`);
  }
  const object = value as Record<string, unknown>;
  if (object.apiVersion !== undefined && object.apiVersion !== resolved.apiVersion) {
    throw newBadRequest(
      `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${resolved.apiVersion})`,
    );
  }
  if (object.kind !== undefined && object.kind !== kind) {
    throw newBadRequest(`the kind in the data (${String(object.kind)}) does not match the expected kind (${kind})`);
  }
  // Unknown fields are dropped whatever the level, as a typed decoder drops them.
  const check = checkFields(resolved.definition, object, true);
  if (check.typeErrors.length) {
    throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${check.typeErrors.join('; ')}`);
  }
  const problems = [
    ...check.unknownFields.map((field) => `unknown field "${field}"`),
    ...body.duplicates.map((field) => `duplicate field "${field}"`),
  ];
  if (problems.length && fieldValidation === 'Strict') throw newBadRequest(`strict decoding error: ${problems.join(', ')}`);
  if (problems.length && fieldValidation === 'Warn') addWarnings(ctx, problems);
  object.metadata ??= {};
  return object as KubeObject;
}

/** The object's namespace must be empty or the request's. */
export function checkNamespace(object: KubeObject, namespace: string, resolved: ResolvedResource): void {
  if (!resolved.namespaced) return;
  const given = object.metadata.namespace;
  if (given && given !== namespace) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}
