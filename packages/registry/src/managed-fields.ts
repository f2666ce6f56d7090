// Field ownership on every write (spec 4.11): the managedFields an update or create records for
// its manager, and the errors of the merge package as API errors.
import { newBadRequest, StatusError } from '@plat/apimachinery';
import { ApplyConflictError, TypedError, deepCopy, isPatchError, recordUpdate, type ManagedFieldsEntry } from '@plat/merge';
import type { KubeObject } from './definition.js';
import { fieldsSchemaOf, type ResolvedResource } from './resolved.js';

export interface Ownership {
  manager: string;
  now: string;
  subresource?: string;
}

/** Sets `metadata.managedFields` as the entries say (absent when there are none). */
export function setManagedFields(object: KubeObject, entries: readonly ManagedFieldsEntry[]): void {
  if (entries.length) object.metadata.managedFields = [...entries];
  else delete object.metadata.managedFields;
}

/** Records that `ownership.manager` set the fields that differ between `live` and `updated`. */
export function recordOwnership<T extends KubeObject>(
  resource: ResolvedResource<T>,
  live: T | null,
  updated: T,
  ownership: Ownership,
): void {
  const entries = recordUpdate(live, updated, {
    manager: ownership.manager,
    apiVersion: resource.apiVersion,
    now: ownership.now,
    schema: fieldsSchemaOf(resource.definition),
    emptyObject: { metadata: {}, ...deepCopy(resource.definition.zeroValue ?? {}) },
    ...(ownership.subresource && { subresource: ownership.subresource }),
  });
  setManagedFields(updated, entries);
}

/** The merge package's failures as the Status upstream answers; anything else unchanged. */
export function mergeErrorToStatus(error: unknown): unknown {
  if (error instanceof StatusError) return error;
  if (isPatchError(error) || error instanceof ApplyConflictError) return error.toStatusError();
  if (error instanceof TypedError) return newBadRequest(error.message);
  return error;
}
