// The meta.v1 types the operations name besides the kinds themselves (ListMeta, Status,
// DeleteOptions, Patch), written as the kinds' schemas are, and where the shared parts of every
// kind (ObjectMeta and what it contains) sit.
import type { JSONSchema } from '@plat/registry';

const string = (description: string): JSONSchema => ({ type: 'string', description });
const integer = (description: string, format: 'int32' | 'int64'): JSONSchema => ({ type: 'integer', format, description });
const object = (description: string, properties: Record<string, JSONSchema>): JSONSchema => ({ type: 'object', description, properties });
const atomicList = (description: string, items: JSONSchema): JSONSchema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'atomic',
});

const apiVersion = string('The versioned schema of this representation of an object.');
const kind = string('The REST resource this object represents, in CamelCase.');

export const listMetaSchema: JSONSchema = object('Metadata of a list: its resourceVersion and where the next chunk starts.', {
  continue: string('Set when more items are available: the token to pass as ?continue= for the next chunk.'),
  remainingItemCount: integer('How many items follow this chunk, when known; an estimate.', 'int64'),
  resourceVersion: string('The version the list was read at, for a watch that follows it.'),
  selfLink: string('Deprecated; not set by the server.'),
});

export const statusCauseSchema: JSONSchema = object('One cause of an error.', {
  field: string('The field of the request that caused the error, as a path such as "rules[0].verbs"; may be empty.'),
  message: string('A human-readable description of the cause.'),
  reason: string('A machine-readable description of the cause, such as FieldValueRequired.'),
});

export const statusDetailsSchema: JSONSchema = object('More about an error: the object it concerns and its causes.', {
  causes: atomicList('The individual causes of the error, such as each invalid field.', statusCauseSchema),
  group: string('The group of the resource concerned.'),
  kind: string('The kind (or resource) of the object concerned.'),
  name: string('The name of the object concerned.'),
  retryAfterSeconds: integer('How long the client should wait before retrying.', 'int32'),
  uid: string('The UID of the object concerned.'),
});

export const statusSchema: JSONSchema = object('The result of an operation that returns no object: success, or an error.', {
  apiVersion,
  code: integer('The HTTP status code of this result.', 'int32'),
  details: statusDetailsSchema,
  kind,
  message: string('A human-readable description of the result.'),
  metadata: listMetaSchema,
  reason: string('A machine-readable description of an error, such as NotFound or AlreadyExists.'),
  status: string('"Success" or "Failure".'),
});

export const preconditionsSchema: JSONSchema = object('Conditions that must hold for a deletion to go ahead.', {
  resourceVersion: string('The resourceVersion the object must have.'),
  uid: string('The UID the object must have.'),
});

export const deleteOptionsSchema: JSONSchema = object('Options of a deletion, in the request body (or as query parameters).', {
  apiVersion,
  dryRun: atomicList('"All" to process the request without persisting it.', { type: 'string' }),
  gracePeriodSeconds: integer('Seconds before the object is deleted; 0 deletes at once.', 'int64'),
  kind,
  orphanDependents: { type: 'boolean', description: 'Deprecated: use propagationPolicy.' },
  preconditions: preconditionsSchema,
  propagationPolicy: string('Whether and how dependents are garbage collected: Orphan, Background or Foreground.'),
});

export const patchSchema: JSONSchema = {
  type: 'object',
  description: 'The body of a PATCH request: a JSON patch, a merge patch, a strategic merge patch or an apply configuration.',
};

/** The meta.v1 types, each under its upstream name, that a sub-schema of every kind is published as. */
export const SHARED_KIND_PARTS: readonly { kind: string; path: readonly string[] }[] = [
  { kind: 'ObjectMeta', path: ['metadata'] },
  { kind: 'OwnerReference', path: ['metadata', 'ownerReferences', '[]'] },
  { kind: 'ManagedFieldsEntry', path: ['metadata', 'managedFields', '[]'] },
];

/** The sub-schema at `path` (a property name, or "[]" for the items of a list), if there is one. */
export function schemaAt(schema: JSONSchema, path: readonly string[]): JSONSchema | undefined {
  let node: JSONSchema | undefined = schema;
  for (const step of path) {
    const next: unknown = step === '[]' ? node?.items : (node?.properties as Record<string, unknown> | undefined)?.[step];
    node = next !== null && typeof next === 'object' && !Array.isArray(next) ? (next as JSONSchema) : undefined;
  }
  return node;
}
