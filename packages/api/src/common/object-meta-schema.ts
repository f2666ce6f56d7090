// The schema of ObjectMeta, which every kind's `metadata` is, and of a whole object around a kind's fields.
import type { JSONSchema } from '@plat/registry';
import {
  atomicList,
  booleanField,
  integerField,
  objectSchema,
  stringField,
  stringMap,
  timeField,
} from './schema.js';

export const ownerReferenceSchema: JSONSchema = objectSchema(
  'Identifies an owning object. The owner must be in the same namespace as the dependent, or be cluster-scoped.',
  {
    apiVersion: stringField('API version of the owner.'),
    kind: stringField('Kind of the owner.'),
    name: stringField('Name of the owner.'),
    uid: stringField('UID of the owner.'),
    controller: booleanField('If true, this reference points to the managing controller.'),
    blockOwnerDeletion: booleanField(
      'If true and the owner has the foregroundDeletion finalizer, the owner cannot be deleted from storage until this reference is removed.',
    ),
  },
  { required: ['apiVersion', 'kind', 'name', 'uid'], mapType: 'atomic' },
);

const managedFieldsEntrySchema: JSONSchema = objectSchema(
  'A workflow-id, a set of fields, and the operation that brought them into the object.',
  {
    manager: stringField('Identifier of the workflow managing these fields.'),
    operation: stringField('Type of operation that created this entry: Apply or Update.'),
    apiVersion: stringField('API version of the object the field set is expressed in.'),
    time: timeField('When the fields were last changed by this manager.'),
    fieldsType: stringField('Format of fieldsV1; the only value is "FieldsV1".'),
    fieldsV1: {
      type: 'object',
      description: 'The set of fields managed, in the FieldsV1 format.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    subresource: stringField('Name of the subresource used to update the object; empty for the main resource.'),
  },
);

export const objectMetaSchema: JSONSchema = objectSchema(
  'Standard object metadata, which all persisted resources must have.',
  {
    name: stringField('Name, unique within a namespace. Cannot be updated.'),
    generateName: stringField(
      'Prefix from which the server generates a unique name when name is not given.',
    ),
    namespace: stringField('Namespace of the object; empty for cluster-scoped objects. Cannot be updated.'),
    selfLink: stringField('Deprecated; not set by the server.'),
    uid: stringField('Unique identifier in time and space, set by the server. Read-only.'),
    resourceVersion: stringField('Opaque version of the object, for optimistic concurrency and watches. Read-only.'),
    generation: integerField('Sequence number of a specific generation of the desired state. Read-only.', 'int64'),
    creationTimestamp: timeField('When the object was created, set by the server. Read-only.'),
    deletionTimestamp: timeField('When the object will be deleted, set by the server when deletion is requested. Read-only.'),
    deletionGracePeriodSeconds: integerField(
      'Seconds allowed for graceful termination before removal from the system. Read-only.',
      'int64',
    ),
    labels: stringMap('Map of string keys and values used to organize and select objects.'),
    annotations: stringMap('Unstructured key-value map stored with the object, for tools and extensions.'),
    ownerReferences: {
      type: 'array',
      description: 'Objects this object depends on; when all owners are deleted, the object is garbage collected.',
      items: ownerReferenceSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    finalizers: {
      type: 'array',
      description: 'Must be empty before the object is deleted from storage; each entry names a pending cleanup.',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    managedFields: atomicList(
      'Which workflow manages which fields; maintained by the server.',
      managedFieldsEntrySchema,
    ),
  },
);

/** The schema of a whole object of a kind: apiVersion, kind, metadata and the kind's own fields. */
export function kindSchema(
  description: string,
  properties: Record<string, JSONSchema>,
  required: readonly string[] = [],
): JSONSchema {
  return objectSchema(
    description,
    {
      apiVersion: stringField('The versioned schema of this representation of an object.'),
      kind: stringField('The REST resource this object represents, in CamelCase.'),
      metadata: objectMetaSchema,
      ...properties,
    },
    { required },
  );
}
