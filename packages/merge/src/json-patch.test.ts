import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch } from './json-patch.js';
import { PatchError } from './patch-error.js';

const doc = { metadata: { name: 'a', labels: { app: 'x' } }, list: [1, 2, 3] };

const cases: { name: string; patch: string | unknown[]; want?: unknown; error?: PatchError['kind'] }[] = [
  {
    name: 'add a field',
    patch: [{ op: 'add', path: '/metadata/labels/tier', value: 'web' }],
    want: { metadata: { name: 'a', labels: { app: 'x', tier: 'web' } }, list: [1, 2, 3] },
  },
  { name: 'add at the end of a list', patch: '[{"op":"add","path":"/list/-","value":4}]', want: { ...doc, list: [1, 2, 3, 4] } },
  { name: 'add inside a list', patch: [{ op: 'add', path: '/list/1', value: 9 }], want: { ...doc, list: [1, 9, 2, 3] } },
  { name: 'remove', patch: [{ op: 'remove', path: '/metadata/labels' }], want: { metadata: { name: 'a' }, list: [1, 2, 3] } },
  { name: 'replace', patch: [{ op: 'replace', path: '/metadata/name', value: 'b' }], want: { ...doc, metadata: { ...doc.metadata, name: 'b' } } },
  {
    name: 'move',
    patch: [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/role' }],
    want: { metadata: { name: 'a', labels: { role: 'x' } }, list: [1, 2, 3] },
  },
  { name: 'copy', patch: [{ op: 'copy', from: '/list/0', path: '/list/-' }], want: { ...doc, list: [1, 2, 3, 1] } },
  { name: 'test that holds, then replace', patch: [{ op: 'test', path: '/metadata/name', value: 'a' }, { op: 'replace', path: '/list', value: [] }], want: { ...doc, list: [] } },
  { name: 'failed test', patch: [{ op: 'test', path: '/metadata/name', value: 'zzz' }], error: 'test-failed' },
  { name: 'remove of a missing path', patch: [{ op: 'remove', path: '/metadata/missing' }], error: 'invalid' },
  { name: 'replace of a missing path', patch: [{ op: 'replace', path: '/spec/replicas', value: 1 }], error: 'invalid' },
  { name: 'add under a missing parent', patch: [{ op: 'add', path: '/spec/replicas', value: 1 }], error: 'invalid' },
  { name: 'add past the end of a list', patch: [{ op: 'add', path: '/list/7', value: 1 }], error: 'invalid' },
  { name: 'unknown op', patch: [{ op: 'frobnicate', path: '/list' }], error: 'invalid' },
  { name: '__proto__ is refused', patch: [{ op: 'add', path: '/__proto__/polluted', value: 1 }], error: 'invalid' },
  { name: 'not JSON', patch: '[{"op":', error: 'bad-request' },
  { name: 'not a list', patch: '{"op":"add"}', error: 'bad-request' },
  { name: 'an operation that is not an object', patch: '["add"]', error: 'bad-request' },
  { name: 'too many operations', patch: Array.from({ length: 10001 }, () => ({ op: 'test', path: '/list/0', value: 1 })), error: 'too-large' },
];

for (const { name, patch, want, error } of cases) {
  test(`applyJsonPatch: ${name}`, () => {
    const input = structuredClone(doc);
    if (error) {
      assert.throws(() => applyJsonPatch(input, patch), (err: unknown) => err instanceof PatchError && err.kind === error);
    } else {
      assert.deepEqual(applyJsonPatch(input, patch), want);
    }
    assert.deepEqual(input, doc, 'the document is not modified');
  });
}

test('applyJsonPatch: a failed patch is answered as upstream (422 Invalid, stock message), with the failure as a cause', () => {
  try {
    applyJsonPatch(doc, [{ op: 'test', path: '/metadata/name', value: 'zzz' }]);
    assert.fail('expected an error');
  } catch (err) {
    assert.ok(err instanceof PatchError);
    assert.deepEqual(err.toStatusError().status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: { causes: [{ message: 'testing value /metadata/name failed: test failed', field: 'patch' }] },
      code: 422,
    });
  }
});

test('applyJsonPatch: too many operations is 413', () => {
  const patch = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/list/0', value: 1 }));
  assert.throws(
    () => applyJsonPatch(doc, patch),
    (err: unknown) =>
      err instanceof PatchError &&
      err.toStatusError().status.code === 413 &&
      err.message === 'The allowed maximum operations in a JSON patch is 10000, got 10001',
  );
});

test('applyJsonPatch: copies may add at most 3 MiB in all: a list copied into itself 26 times (gigabytes unbounded) stops there', () => {
  const patch: unknown[] = [{ op: 'add', path: '/x', value: [{ a: { b: 1 } }] }];
  for (let i = 0; i < 26; i++) patch.push({ op: 'copy', from: '/x', path: '/x/-' });
  assert.throws(
    () => applyJsonPatch({}, patch),
    (err: unknown) =>
      err instanceof PatchError &&
      err.kind === 'invalid' &&
      /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/.test(err.message) &&
      err.toStatusError().status.code === 422,
  );
  // Copies that stay under the bound are applied.
  const small = applyJsonPatch({ x: [1] }, [
    { op: 'copy', from: '/x', path: '/y' },
    { op: 'copy', from: '/y', path: '/z' },
  ]);
  assert.deepEqual(small, { x: [1], y: [1], z: [1] });
});
