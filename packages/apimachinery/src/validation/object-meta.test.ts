import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPath } from '../field-errors.js';
import {
  validateAnnotations,
  validateFinalizers,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
  type ObjectMetaFields,
} from './object-meta.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './names.js';

const labelKeyPart =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const labels = newPath('metadata', 'labels');
const annotations = newPath('metadata', 'annotations');
const finalizers = newPath('metadata', 'finalizers');
const owners = newPath('metadata', 'ownerReferences');

const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1234' };

const parts: { name: string; got: () => unknown[]; want: string[] }[] = [
  { name: 'labels: valid', got: () => validateLabels({ app: 'web', 'example.com/tier': '', a: 'B_c.1' }, labels), want: [] },
  { name: 'labels: absent', got: () => validateLabels(undefined, labels), want: [] },
  {
    name: 'labels: bad key and value are reported at the map',
    got: () => validateLabels({ '-k': 'v', k: 'x y' }, labels),
    want: [`metadata.labels: Invalid value: "-k": ${labelKeyPart}`, `metadata.labels: Invalid value: "x y": ${labelValueMessage}`],
  },
  {
    name: 'labels: not a map',
    got: () => validateLabels(['a'], labels),
    want: ['metadata.labels: Invalid value: ["a"]: must be a map of string keys to string values'],
  },
  { name: 'labels: a non-string value', got: () => validateLabels({ a: 1 }, labels), want: ['metadata.labels[a]: Invalid value: 1: must be a string'] },
  { name: 'annotations: upper case keys are fine', got: () => validateAnnotations({ 'Example.com/Key': 'any value at all!' }, annotations), want: [] },
  {
    name: 'annotations: a bad key',
    got: () => validateAnnotations({ 'a b': '' }, annotations),
    want: [`metadata.annotations: Invalid value: "a b": ${labelKeyPart}`],
  },
  { name: 'annotations: 256 KiB in all is allowed', got: () => validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1) }, annotations), want: [] },
  {
    name: 'annotations: past 256 KiB',
    got: () => validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1), b: '' }, annotations),
    want: ['metadata.annotations: Too long: must have at most 262144 bytes'],
  },
  {
    name: 'annotations: the size counts UTF-8 bytes',
    got: () => validateAnnotations({ a: 'é'.repeat(128 * 1024) }, annotations),
    want: ['metadata.annotations: Too long: must have at most 262144 bytes'],
  },
  { name: 'finalizers: valid', got: () => validateFinalizers(['kubernetes', 'example.com/cleanup', 'orphan'], finalizers), want: [] },
  // Upstream 1.28 neither requires a prefix on metadata.finalizers nor rejects repeats.
  { name: 'finalizers: unprefixed and repeated', got: () => validateFinalizers(['cleanup', 'cleanup'], finalizers), want: [] },
  {
    name: 'finalizers: a bad name is reported at the list',
    got: () => validateFinalizers(['ok', 'Example.com/x'], finalizers),
    want: [`metadata.finalizers: Invalid value: "Example.com/x": prefix part ${subdomainMessage}`],
  },
  {
    name: 'finalizers: orphan and foregroundDeletion together',
    got: () => validateFinalizers(['orphan', 'foregroundDeletion'], finalizers),
    want: ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set'],
  },
  { name: 'owner references: valid', got: () => validateOwnerReferences([ref, { ...ref, apiVersion: 'v1', kind: 'Pod' }], owners), want: [] },
  {
    name: 'owner references: every part is required, at the list path',
    got: () => validateOwnerReferences([{}], owners),
    want: [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ],
  },
  {
    name: 'owner references: a group without a version',
    got: () => validateOwnerReferences([{ ...ref, apiVersion: 'apps/' }], owners),
    want: ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty'],
  },
  {
    name: 'owner references: an apiVersion that does not parse',
    got: () => validateOwnerReferences([{ ...ref, apiVersion: 'a/b/c' }], owners),
    want: ['metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty'],
  },
  {
    name: 'owner references: a core Event may not own',
    got: () => validateOwnerReferences([{ ...ref, apiVersion: 'v1', kind: 'Event' }], owners),
    want: [
      'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"rs","uid":"1234"}: /v1, Kind=Event is disallowed from being an owner',
    ],
  },
  { name: 'owner references: an events.k8s.io Event may', got: () => validateOwnerReferences([{ ...ref, apiVersion: 'events.k8s.io/v1', kind: 'Event' }], owners), want: [] },
  { name: 'owner references: one controller', got: () => validateOwnerReferences([{ ...ref, controller: true }, { ...ref, controller: false }], owners), want: [] },
  {
    name: 'owner references: two controllers',
    got: () => validateOwnerReferences([{ ...ref, controller: true }, { ...ref, kind: 'Deployment', name: 'd', controller: true }], owners).map((e) => e.detail),
    want: ['Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs and Deployment/d'],
  },
];

for (const { name, got, want } of parts) test(`metadata parts: ${name}`, () => assert.deepEqual(got().map(String), want));

const namespaced = { namespaced: true, validateName: nameIsDNSSubdomain };
const clusterScoped = { namespaced: false, validateName: nameIsDNSLabel };

const creates: { name: string; meta: ObjectMetaFields; options?: typeof namespaced; want: string[] }[] = [
  { name: 'valid', meta: { name: 'web.1', namespace: 'default', labels: { app: 'web' } }, want: [] },
  { name: 'generateName stands in for name', meta: { generateName: 'web-', namespace: 'default' }, want: [] },
  {
    name: 'no name',
    meta: { namespace: 'default' },
    want: ['metadata.name: Required value: name or generateName is required'],
  },
  { name: 'a bad name', meta: { name: 'Web', namespace: 'default' }, want: [`metadata.name: Invalid value: "Web": ${subdomainMessage}`] },
  {
    name: 'a bad generateName',
    meta: { generateName: 'Web-', name: 'web-x', namespace: 'default' },
    want: [`metadata.generateName: Invalid value: "Web-": ${subdomainMessage}`],
  },
  { name: 'namespace required', meta: { name: 'a' }, want: ['metadata.namespace: Required value'] },
  {
    name: 'namespace must be a DNS label',
    meta: { name: 'a', namespace: 'a.b' },
    want: [`metadata.namespace: Invalid value: "a.b": ${labelMessage}`],
  },
  {
    name: 'namespace forbidden on a cluster-scoped kind',
    meta: { name: 'a', namespace: 'default' },
    options: clusterScoped,
    want: ['metadata.namespace: Forbidden: not allowed on this type'],
  },
  { name: 'cluster-scoped without namespace', meta: { name: 'a' }, options: clusterScoped, want: [] },
  {
    name: 'negative generation',
    meta: { name: 'a', namespace: 'n', generation: -1 },
    want: ['metadata.generation: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'contents are checked in upstream order',
    meta: {
      name: 'a',
      namespace: 'n',
      labels: { '-': 'v' },
      annotations: { '-': '' },
      ownerReferences: [{ ...ref, uid: '' }],
      finalizers: ['-'],
    },
    want: [
      `metadata.labels: Invalid value: "-": ${labelKeyPart}`,
      `metadata.annotations: Invalid value: "-": ${labelKeyPart}`,
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      `metadata.finalizers: Invalid value: "-": ${labelKeyPart}`,
    ],
  },
];

for (const { name, meta, options, want } of creates) {
  test(`validateObjectMeta: ${name}`, () => assert.deepEqual(validateObjectMeta(meta, options ?? namespaced).map(String), want));
}

test('validateObjectMeta: a path other than metadata', () => {
  assert.deepEqual(validateObjectMeta({}, clusterScoped, newPath('spec', 'template', 'metadata')).map(String), [
    'spec.template.metadata.name: Required value: name or generateName is required',
  ]);
});

const stored: ObjectMetaFields = {
  name: 'a',
  namespace: 'n',
  uid: 'u1',
  resourceVersion: '5',
  generation: 2,
  creationTimestamp: '2024-01-01T00:00:00Z',
  finalizers: ['example.com/f'],
};
const deleting: ObjectMetaFields = { ...stored, deletionTimestamp: '2024-02-01T00:00:00Z', deletionGracePeriodSeconds: 30 };

const updates: { name: string; meta: ObjectMetaFields; old: ObjectMetaFields; want: string[] }[] = [
  { name: 'unchanged', meta: stored, old: stored, want: [] },
  { name: 'labels may change', meta: { ...stored, labels: { a: 'b' }, generation: 3 }, old: stored, want: [] },
  {
    name: 'name, namespace and uid are immutable',
    meta: { ...stored, name: 'b', namespace: 'm', uid: 'u2' },
    old: stored,
    want: [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "m": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ],
  },
  {
    name: 'creationTimestamp is immutable',
    meta: { ...stored, creationTimestamp: '2024-01-02T00:00:00Z' },
    old: stored,
    want: ['metadata.creationTimestamp: Invalid value: "2024-01-02T00:00:00Z": field is immutable'],
  },
  { name: 'a timestamp compares as an instant', meta: { ...stored, creationTimestamp: '2024-01-01T01:00:00+01:00' }, old: stored, want: [] },
  {
    name: 'the generation may not decrease',
    meta: { ...stored, generation: 1 },
    old: stored,
    want: ['metadata.generation: Invalid value: 1: must not be decremented'],
  },
  {
    name: 'a resourceVersion is required',
    meta: { ...stored, resourceVersion: '' },
    old: stored,
    want: ['metadata.resourceVersion: Invalid value: "": must be specified for an update'],
  },
  // Upstream's ValidateImmutableField: an update may not set, change or clear these; the store
  // copies the stored values over first, and deletion sets them without this check.
  {
    name: 'deletionTimestamp may not be set by an update',
    meta: { ...stored, deletionTimestamp: '2024-02-01T00:00:00Z' },
    old: stored,
    want: ['metadata.deletionTimestamp: Invalid value: "2024-02-01T00:00:00Z": field is immutable'],
  },
  {
    name: 'deletionTimestamp may not be cleared',
    meta: { ...deleting, deletionTimestamp: undefined },
    old: deleting,
    want: ['metadata.deletionTimestamp: Invalid value: null: field is immutable'],
  },
  {
    name: 'deletionGracePeriodSeconds may not change',
    meta: { ...deleting, deletionGracePeriodSeconds: 0 },
    old: deleting,
    want: ['metadata.deletionGracePeriodSeconds: Invalid value: 0: field is immutable'],
  },
  { name: 'finalizers may be removed while deleting', meta: { ...deleting, finalizers: [] }, old: deleting, want: [] },
  {
    name: 'no finalizers may be added while deleting',
    meta: { ...deleting, finalizers: ['example.com/f', 'z/b', 'a/b'] },
    old: deleting,
    want: ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a/b", "z/b"}'],
  },
  { name: 'finalizers may be added before deletion', meta: { ...stored, finalizers: ['x/y'] }, old: stored, want: [] },
  {
    name: 'the new contents are validated',
    meta: { ...stored, labels: { a: '-' } },
    old: stored,
    want: [`metadata.labels: Invalid value: "-": ${labelValueMessage}`],
  },
];

for (const { name, meta, old, want } of updates) {
  test(`validateObjectMetaUpdate: ${name}`, () => assert.deepEqual(validateObjectMetaUpdate(meta, old).map(String), want));
}
