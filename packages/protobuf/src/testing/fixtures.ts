// Objects for the codec's tests and benchmarks that are no kind's own (a kind's fixture is in its
// examples beside it, @plat/api/testing): Status, DeleteOptions, lists, in the JSON form our API
// serves: every field set that the message has, zero values only where Go writes them.
import type { JsonObject } from '../compile.js';

const RBAC = 'rbac.authorization.plat.io';

export const invalidStatus: JsonObject = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'RoleBinding.rbac.authorization.plat.io "read-pods" is invalid: [subjects[0].name: Required value, roleRef.kind: Unsupported value: "Pod"]',
  reason: 'Invalid',
  details: {
    name: 'read-pods',
    group: RBAC,
    kind: 'RoleBinding',
    causes: [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'subjects[0].name' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Pod": supported values: "ClusterRole", "Role"', field: 'roleRef.kind' },
    ],
  },
  code: 422,
};

export const conflictStatus: JsonObject = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: { resourceVersion: '99' },
  status: 'Failure',
  message: 'Too many requests',
  reason: 'TooManyRequests',
  details: { uid: 'u-1', retryAfterSeconds: 5 },
  code: 429,
};

export const deleteOptions: JsonObject = {
  kind: 'DeleteOptions',
  apiVersion: 'meta.plat.io/v1',
  gracePeriodSeconds: 0,
  preconditions: { uid: '0f6c1b9e-4a1d-4c5e-9f3a-000000000000', resourceVersion: '4711' },
  orphanDependents: false,
  propagationPolicy: 'Foreground',
  dryRun: ['All'],
};

/** A list of `kind`, its items without apiVersion and kind, as list items are carried. */
export function listOf(object: JsonObject, count: number, listMeta: JsonObject = { resourceVersion: '5000' }): JsonObject {
  const { kind, apiVersion, ...fields } = object;
  const items = Array.from({ length: count }, (_, i) => {
    const metadata = fields.metadata as JsonObject;
    return { ...fields, metadata: { ...metadata, name: `${String(metadata.name)}-${i}` } };
  });
  return { kind: `${String(kind)}List`, apiVersion, metadata: listMeta, items };
}

/** The objects of the messages every group has, by kind (the kinds' own are their examples'). */
export const objectsByKind: Record<string, JsonObject> = {
  Status: invalidStatus,
  DeleteOptions: deleteOptions,
};

/**
 * `count` RoleBindings in a RoleBindingList, each as our API serves it (metadata with labels and a
 * managedFields entry, three subjects): the list the codec benchmark measures.
 */
export function roleBindingList(count: number): JsonObject {
  const items = Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `binding-${i}`,
      namespace: `team-${i % 50}`,
      uid: `6f1c2a3e-${String(i).padStart(4, '0')}-4d5e-8f90-123456789abc`,
      resourceVersion: String(100000 + i),
      creationTimestamp: new Date(Date.UTC(2024, 4, 1) + i * 1000).toISOString().slice(0, 19) + 'Z',
      labels: { app: 'web', tier: `t${i % 3}` },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: `${RBAC}/v1`,
          time: new Date(Date.UTC(2024, 4, 1) + i * 1000).toISOString().slice(0, 19) + 'Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } }, 'f:roleRef': {}, 'f:subjects': {} },
        },
      ],
    },
    subjects: [
      { kind: 'User', apiGroup: RBAC, name: `user-${i}@example.com` },
      { kind: 'Group', apiGroup: RBAC, name: `group-${i % 20}` },
      { kind: 'ServiceAccount', name: 'default', namespace: `team-${i % 50}` },
    ],
    roleRef: { apiGroup: RBAC, kind: 'Role', name: `role-${i % 10}` },
  }));
  return { kind: 'RoleBindingList', apiVersion: `${RBAC}/v1`, metadata: { resourceVersion: String(100000 + count) }, items };
}
