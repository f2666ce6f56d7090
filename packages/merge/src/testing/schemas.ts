// Schemas for the tests, shaped as packages/api defines its kinds (which this package may not import).
import type { JSONSchema } from '../schema-walker.js';

const str: JSONSchema = { type: 'string' };
const int: JSONSchema = { type: 'integer', format: 'int32' };
const bool: JSONSchema = { type: 'boolean' };
const stringMap: JSONSchema = { type: 'object', additionalProperties: { type: 'string' } };
const object = (properties: Record<string, JSONSchema>, extra: JSONSchema = {}): JSONSchema => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...extra,
});
const atomicList = (items: JSONSchema): JSONSchema => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' });

export const ownerReferenceSchema = object(
  { apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool },
  { 'x-kubernetes-map-type': 'atomic' },
);

export const objectMetaSchema = object({
  name: str,
  generateName: str,
  namespace: str,
  uid: str,
  resourceVersion: str,
  generation: { type: 'integer', format: 'int64' },
  creationTimestamp: { type: 'string', format: 'date-time' },
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: {
    type: 'array',
    items: ownerReferenceSchema,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['uid'],
    'x-kubernetes-patch-merge-key': 'uid',
    'x-kubernetes-patch-strategy': 'merge',
  },
  finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
  managedFields: atomicList(object({ manager: str, operation: str, apiVersion: str, time: str, fieldsType: str, fieldsV1: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, subresource: str })),
});

const kind = (properties: Record<string, JSONSchema>): JSONSchema =>
  object({ apiVersion: str, kind: str, metadata: objectMetaSchema, ...properties });

const objectReference = object(
  { apiVersion: str, fieldPath: str, kind: str, name: str, namespace: str, resourceVersion: str, uid: str },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** ServiceAccount: `secrets` merge on name without a list type (a map list by spec 4.11), atomic items. */
export const serviceAccountSchema = kind({
  automountServiceAccountToken: bool,
  imagePullSecrets: atomicList(object({ name: str }, { 'x-kubernetes-map-type': 'atomic' })),
  secrets: { type: 'array', items: objectReference, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
});

/** Role: an atomic list of rules. */
export const roleSchema = kind({
  rules: atomicList(
    object({
      verbs: atomicList(str),
      apiGroups: atomicList(str),
      resources: atomicList(str),
      resourceNames: atomicList(str),
      nonResourceURLs: atomicList(str),
    }),
  ),
});

/** A kind with every marker: granular spec, a map list of granular items, a set, an atomic map, a retainKeys struct. */
export const widgetSchema = kind({
  spec: object({
    replicas: int,
    paused: bool,
    selector: object({ matchLabels: stringMap }, { 'x-kubernetes-map-type': 'atomic' }),
    ports: {
      type: 'array',
      items: object({ name: str, port: int, protocol: str, targetPort: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true } }),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      'x-kubernetes-patch-merge-key': 'port',
      'x-kubernetes-patch-strategy': 'merge',
    },
    containers: {
      type: 'array',
      items: object({ name: str, image: str, args: atomicList(str), env: { type: 'array', items: object({ name: str, value: str }), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' } }),
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
    tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
    aliases: { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'merge' },
    strategy: {
      ...object({ type: str, rollingUpdate: object({ maxSurge: int, maxUnavailable: int }) }),
      'x-kubernetes-patch-strategy': 'retainKeys',
    },
    data: stringMap,
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  }),
  status: object({ phase: str, conditions: { type: 'array', items: object({ type: str, status: str }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] } }),
});
