// PATCH (conventions 4.5, 4.11), as upstream's patcher: every patch type turns the current object
// into the one to store, kept within the request bounds, decoded as a request body is (types,
// unknown and duplicate fields per fieldValidation, with warnings), and still the object the URL
// names. Server-side apply also computes the object's managedFields.
import {
  MAX_OBJECT_BYTES,
  depthExceededMessage,
  exceededJsonLimit,
  newBadRequest,
  newRequestEntityTooLarge,
} from '@plat/apimachinery';
import { apply, applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '@plat/merge';
import type { KubeObject } from './definition.js';
import { setManagedFields } from './managed-fields.js';
import { ensureIdentity, objectFromInput } from './object-input.js';
import type { PatchRequest } from './requests.js';
import { fieldsSchemaOf, type ResolvedResource } from './resolved.js';

export interface Patched<T> {
  object: T;
  warnings: string[];
  /** Apply has recorded ownership itself: the update must not record it again. */
  ownershipDone: boolean;
}

/** The patched object; `now` stamps an apply's managedFields. Throws merge errors and StatusErrors. */
export function applyPatch<T extends KubeObject>(
  resource: ResolvedResource<T>,
  current: T | null,
  request: PatchRequest,
  target: { namespace: string; name: string },
  now: string,
): Patched<T> {
  const decode = (value: unknown) =>
    objectFromInput(resource, { value: withinLimits(value), duplicates: request.duplicates ?? [] }, request.fieldValidation ?? 'Warn');
  if (request.type === 'apply') {
    const result = apply(current, request.patch as object, {
      manager: request.manager ?? 'unknown',
      apiVersion: resource.apiVersion,
      now,
      schema: fieldsSchemaOf(resource.definition),
      force: !!request.force,
      kind: resource.kind,
      ...(request.subresource && { subresource: request.subresource }),
    });
    const { object, warnings } = decode(result.object);
    setManagedFields(object, result.managedFields);
    // An apply that creates may leave the name to the URL.
    ensureIdentity(resource, object, target.namespace, { url: target.name, fillName: !current });
    return { object, warnings, ownershipDone: true };
  }
  const patched =
    request.type === 'json'
      ? applyJsonPatch(current, request.patch as unknown[])
      : request.type === 'merge'
        ? applyMergePatch(current, request.patch)
        : applyStrategicMergePatch(current, request.patch, fieldsSchemaOf(resource.definition));
  const { object, warnings } = decode(patched);
  ensureIdentity(resource, object, target.namespace, { url: target.name, fillName: false });
  return { object, warnings, ownershipDone: false };
}

/**
 * A patched object must stay within what a request may carry: a patch (copies in a JSON patch,
 * aliases in an apply's YAML) must not grow it past the body limit or nest it past the depth bound
 * that decoding enforces, before anything encodes or walks it.
 */
function withinLimits(patched: unknown): unknown {
  const exceeded = exceededJsonLimit(patched);
  if (exceeded === 'size') throw newRequestEntityTooLarge(`the patched object is larger than the limit of ${MAX_OBJECT_BYTES} bytes`);
  if (exceeded === 'depth') throw newBadRequest(`the patched object ${depthExceededMessage}`);
  return patched;
}
