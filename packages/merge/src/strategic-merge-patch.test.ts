import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PatchError } from './patch-error.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { roleSchema, serviceAccountSchema, widgetSchema } from './testing/schemas.js';
import type { JSONSchema } from './schema-walker.js';

const sa = (extra: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'sa', namespace: 'ns' },
  ...extra,
});
const meta = (extra: Record<string, unknown>): Record<string, unknown> => ({ name: 'sa', namespace: 'ns', ...extra });
const owner = (uid: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...extra });

const cases: {
  name: string;
  schema?: JSONSchema;
  original: Record<string, unknown>;
  patch: Record<string, unknown>;
  want?: unknown;
  error?: PatchError['kind'];
}[] = [
  {
    name: 'secrets merge on name: a new item goes before the live ones (no $setElementOrder)',
    original: sa({ secrets: [{ name: 'a' }, { name: 'b' }] }),
    patch: { secrets: [{ name: 'c' }] },
    want: sa({ secrets: [{ name: 'c' }, { name: 'a' }, { name: 'b' }] }),
  },
  {
    name: 'secrets merge on name: an existing item merges field by field',
    original: sa({ secrets: [{ name: 'a', namespace: 'x' }, { name: 'b' }] }),
    patch: { secrets: [{ name: 'a', kind: 'Secret', namespace: null }] },
    want: sa({ secrets: [{ name: 'a', kind: 'Secret' }, { name: 'b' }] }),
  },
  {
    name: 'secrets: $patch delete removes the item with that key',
    original: sa({ secrets: [{ name: 'a' }, { name: 'b' }] }),
    patch: { secrets: [{ name: 'a', $patch: 'delete' }] },
    want: sa({ secrets: [{ name: 'b' }] }),
  },
  {
    name: 'secrets: $patch replace keeps only the patch items',
    original: sa({ secrets: [{ name: 'a' }, { name: 'b' }] }),
    patch: { secrets: [{ name: 'z' }, { $patch: 'replace' }] },
    want: sa({ secrets: [{ name: 'z' }] }),
  },
  {
    name: 'secrets: $setElementOrder orders the merged list',
    original: sa({ secrets: [{ name: 'a' }, { name: 'b' }] }),
    patch: { $setElementOrder: undefined, '$setElementOrder/secrets': [{ name: 'b' }, { name: 'c' }, { name: 'a' }], secrets: [{ name: 'c' }] },
    want: sa({ secrets: [{ name: 'b' }, { name: 'c' }, { name: 'a' }] }),
  },
  {
    name: 'secrets: a new list with a $patch delete item keeps the others',
    original: sa({}),
    patch: { secrets: [{ name: 'a' }, { name: 'b', $patch: 'delete' }] },
    want: sa({ secrets: [{ name: 'a' }] }),
  },
  {
    name: 'imagePullSecrets has no merge strategy: replaced',
    original: sa({ imagePullSecrets: [{ name: 'a' }] }),
    patch: { imagePullSecrets: [{ name: 'b' }] },
    want: sa({ imagePullSecrets: [{ name: 'b' }] }),
  },
  {
    name: 'finalizers merge as a set',
    original: sa({ metadata: meta({ finalizers: ['a', 'b'] }) }),
    patch: { metadata: { finalizers: ['b', 'c'] } },
    want: sa({ metadata: meta({ finalizers: ['a', 'b', 'c'] }) }),
  },
  {
    name: 'finalizers: $deleteFromPrimitiveList removes values',
    original: sa({ metadata: meta({ finalizers: ['a', 'b', 'c'] }) }),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'c'] } },
    want: sa({ metadata: meta({ finalizers: ['b'] }) }),
  },
  {
    name: 'finalizers: $deleteFromPrimitiveList of a missing list does nothing',
    original: sa({}),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
    want: sa({}),
  },
  {
    name: 'finalizers: $setElementOrder with an addition',
    original: sa({ metadata: meta({ finalizers: ['a', 'b', 'c'] }) }),
    patch: { metadata: { '$setElementOrder/finalizers': ['c', 'a', 'b', 'd'], finalizers: ['d'] } },
    want: sa({ metadata: meta({ finalizers: ['c', 'a', 'b', 'd'] }) }),
  },
  {
    name: 'ownerReferences merge on uid',
    original: sa({ metadata: meta({ ownerReferences: [owner('u1'), owner('u2')] }) }),
    patch: { metadata: { ownerReferences: [owner('u2', { controller: true }), owner('u3')] } },
    want: sa({ metadata: meta({ ownerReferences: [owner('u1'), owner('u2', { controller: true }), owner('u3')] }) }),
  },
  {
    name: 'labels: null deletes, others merge',
    original: sa({ metadata: meta({ labels: { a: '1', b: '2' } }) }),
    patch: { metadata: { labels: { a: null, c: '3' } } },
    want: sa({ metadata: meta({ labels: { b: '2', c: '3' } }) }),
  },
  {
    name: 'a null for a missing field is dropped',
    original: sa({}),
    patch: { automountServiceAccountToken: null, metadata: { labels: { a: '1', b: null } } },
    want: sa({ metadata: meta({ labels: { a: '1' } }) }),
  },
  {
    name: '$patch replace on a map',
    schema: widgetSchema,
    original: { spec: { replicas: 1, paused: true } },
    patch: { spec: { $patch: 'replace', replicas: 2 } },
    want: { spec: { replicas: 2 } },
  },
  {
    name: '$patch delete on a map',
    schema: widgetSchema,
    original: { spec: { replicas: 1, paused: true }, status: { phase: 'x' } },
    patch: { spec: { $patch: 'delete' } },
    want: { spec: {}, status: { phase: 'x' } },
  },
  {
    name: '$retainKeys drops the keys it does not name',
    schema: widgetSchema,
    original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    want: { spec: { strategy: { type: 'Recreate' } } },
  },
  {
    name: 'nested merge lists: containers by name, env by name',
    schema: widgetSchema,
    original: { spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] } },
    patch: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }], args: ['x'] }] } },
    want: {
      spec: {
        containers: [
          { name: 'a', image: 'a:1', env: [{ name: 'Y', value: '2' }, { name: 'X', value: '1' }], args: ['x'] },
          { name: 'b', image: 'b:1' },
        ],
      },
    },
  },
  {
    name: 'a list without a patch strategy is replaced (Role rules)',
    schema: roleSchema,
    original: { rules: [{ verbs: ['get'], resources: ['pods'] }] },
    patch: { rules: [{ verbs: ['list'], resources: ['pods'] }] },
    want: { rules: [{ verbs: ['list'], resources: ['pods'] }] },
  },
  {
    name: 'content outside $retainKeys is 422',
    schema: widgetSchema,
    original: { spec: { strategy: { type: 'RollingUpdate' } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 1 } } } },
    error: 'invalid',
  },
  { name: 'unknown $patch directive', original: sa({}), patch: { metadata: { $patch: 'frobnicate' } }, error: 'bad-request' },
  // Upstream: only replace and delete on a map; merge items in a list "cannot yet be specified".
  { name: '$patch merge on a map', schema: widgetSchema, original: { spec: { replicas: 1 } }, patch: { spec: { $patch: 'merge', replicas: 2 } }, error: 'bad-request' },
  { name: '$patch merge in a merge list', original: sa({ secrets: [{ name: 'a' }] }), patch: { secrets: [{ name: 'a', $patch: 'merge' }] }, error: 'bad-request' },
  { name: 'unknown $patch directive in a list', original: sa({ secrets: [{ name: 'a' }] }), patch: { secrets: [{ name: 'a', $patch: 'frobnicate' }] }, error: 'bad-request' },
  { name: 'an item without the merge key', original: sa({ secrets: [{ name: 'a' }] }), patch: { secrets: [{ namespace: 'x' }] }, error: 'bad-request' },
  { name: 'a $patch delete item without the merge key', original: sa({ secrets: [{ name: 'a' }] }), patch: { secrets: [{ $patch: 'delete' }] }, error: 'bad-request' },
  { name: '$retainKeys that is not a list', schema: widgetSchema, original: { spec: {} }, patch: { spec: { strategy: { $retainKeys: 'type' } } }, error: 'bad-request' },
  {
    name: '$setElementOrder that disagrees with the patch order',
    original: sa({ metadata: meta({ finalizers: ['a'] }) }),
    patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c'], finalizers: ['c', 'b'] } },
    error: 'bad-request',
  },
  { name: 'a malformed $deleteFromPrimitiveList key', original: sa({}), patch: { $deleteFromPrimitiveList: ['a'] }, error: 'bad-request' },
  { name: 'lists of lists', schema: widgetSchema, original: { spec: { aliases: [['a']] } }, patch: { spec: { aliases: [['b']] } }, error: 'invalid' },
];

for (const { name, schema, original, patch, want, error } of cases) {
  test(`applyStrategicMergePatch: ${name}`, () => {
    const before = structuredClone(original);
    const cleanPatch = JSON.parse(JSON.stringify(patch)) as Record<string, unknown>;
    const patchBefore = structuredClone(cleanPatch);
    if (error) {
      assert.throws(
        () => applyStrategicMergePatch(original, cleanPatch, schema ?? serviceAccountSchema),
        (err: unknown) => err instanceof PatchError && err.kind === error,
      );
    } else {
      assert.deepEqual(applyStrategicMergePatch(original, cleanPatch, schema ?? serviceAccountSchema), want);
    }
    assert.deepEqual(original, before, 'the original is not modified');
    assert.deepEqual(cleanPatch, patchBefore, 'the patch is not modified');
  });
}

test('applyStrategicMergePatch: the patch must be an object', () => {
  assert.throws(() => applyStrategicMergePatch({}, [], serviceAccountSchema), (err: unknown) => err instanceof PatchError && err.kind === 'bad-request');
});
