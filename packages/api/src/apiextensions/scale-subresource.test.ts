import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type StatusError } from '@plat/apimachinery';
import type { KubeObject, SubresourceWriteContext } from '@plat/registry';
import { customResourceScale } from './scale-subresource.js';

const paths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };
const { servedAs: scale } = customResourceScale(paths, () => Date.parse('2026-01-01T00:10:00Z'));
const context: SubresourceWriteContext = { domain: 'k8s.io', groupKind: { group: 'example.com', kind: 'Widget' }, name: 'w' };

const widget = (fields: Record<string, unknown>): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'u-1', resourceVersion: '12', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } },
  ...fields,
});

const statusError = (code: number, message: string, reason?: string) => (error: unknown) => {
  assert.ok(isStatusError(error), String(error));
  assert.equal((error as StatusError).code, code);
  assert.equal((error as StatusError).message, message);
  if (reason) assert.equal((error as StatusError).status.reason, reason);
  return true;
};

describe('customResourceScale: the Scale of a custom resource', () => {
  const reads: { name: string; fields: Record<string, unknown>; spec: unknown; status: unknown }[] = [
    { name: 'all three paths', fields: { spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=w' } }, spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=w' } },
    { name: 'no status: 0 replicas, no selector', fields: { spec: { replicas: 3 } }, spec: { replicas: 3 }, status: { replicas: 0 } },
    { name: '0 spec replicas: an empty spec, as Go omits it', fields: { spec: { replicas: 0 }, status: { replicas: 0, selector: '' } }, spec: {}, status: { replicas: 0 } },
    { name: 'a null map on the way is missing', fields: { spec: { replicas: 1 }, status: null }, spec: { replicas: 1 }, status: { replicas: 0 } },
  ];
  for (const { name, fields, spec, status } of reads) {
    it(`reads ${name}`, () => {
      assert.deepEqual(scale.fromParent(widget(fields)), {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name: 'w', namespace: 'ns', uid: 'u-1', resourceVersion: '12', creationTimestamp: '2026-01-01T00:00:00Z' },
        spec,
        status,
      });
    });
  }

  it('a parent without spec replicas cannot be shown (500), but takes a write that sets them', () => {
    const parent = widget({ spec: {} });
    assert.throws(() => scale.fromParent(parent), statusError(500, 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist', 'InternalError'));
    const base = scale.writeBase!(parent);
    assert.throws(
      () => scale.toParent(base, structuredClone(parent), context),
      statusError(400, 'the spec replicas field ".spec.replicas" cannot be empty', 'BadRequest'),
    );
    const written = scale.toParent({ ...base, spec: { replicas: 2 } }, structuredClone(parent), context);
    assert.deepEqual(written.spec, { replicas: 2 });
  });

  it('values of the wrong type are upstream’s accessor errors, as 500s', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ spec: { replicas: '3' } }, '.spec.replicas accessor error: 3 is of the type string, expected int64'],
      [{ spec: { replicas: 1.5 } }, '.spec.replicas accessor error: 1.5 is of the type float64, expected int64'],
      // Upstream names the path up to the field it looked for in what is no map.
      [{ spec: 'x' }, '.spec.replicas accessor error: x is of the type string, expected map[string]interface{}'],
      [{ spec: { replicas: 1 }, status: { replicas: [1, 2] } }, '.status.replicas accessor error: [1 2] is of the type []interface {}, expected int64'],
      [{ spec: { replicas: 1 }, status: { selector: { b: 1, a: true } } }, '.status.selector accessor error: map[a:true b:1] is of the type map[string]interface {}, expected string'],
    ];
    for (const [fields, message] of cases) assert.throws(() => scale.fromParent(widget(fields)), statusError(500, `Internal error occurred: ${message}`));
  });

  it('writes spec replicas at the path, making the maps on the way, and nothing else', () => {
    const parent = widget({ spec: { color: 'red' }, status: { replicas: 1 } });
    const written = scale.toParent({ metadata: {}, spec: { replicas: 4 }, status: { replicas: 9, selector: 'x=y' } }, structuredClone(parent), context);
    assert.deepEqual(written, { ...parent, spec: { color: 'red', replicas: 4 } });
    const deep = customResourceScale({ specReplicasPath: '.spec.scaling.desired', statusReplicasPath: '.status.scaling.current' }).servedAs;
    assert.deepEqual(deep.toParent({ metadata: {}, spec: { replicas: 2 } }, widget({}), context).spec, { scaling: { desired: 2 } });
    assert.deepEqual(deep.fields, [{ field: ['spec', 'replicas'], parentField: ['spec', 'scaling', 'desired'] }]);
    // A Scale without spec replicas is 0 replicas, as Go decodes it.
    assert.deepEqual(scale.toParent({ metadata: {} }, widget({ spec: { replicas: 5 } }), context).spec, { replicas: 0 });
    assert.throws(() => scale.toParent({ metadata: {}, spec: { replicas: 1 } }, widget({ spec: 3 }), context), statusError(500, 'Internal error occurred: value cannot be set because .spec is not a map[string]interface{}'));
  });

  it('negative replicas are the custom resource’s 422, at the path', () => {
    assert.throws(
      () => scale.toParent({ metadata: {}, spec: { replicas: -1 } }, widget({ spec: { replicas: 1 } }), context),
      statusError(422, 'Widget.example.com "w" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer', 'Invalid'),
    );
  });

  it('is served as autoscaling/v1 Scale, with its columns', () => {
    assert.deepEqual([scale.group, scale.version, scale.kind, scale.protobuf?.message], ['autoscaling', 'v1', 'Scale', 'k8s.io.api.autoscaling.v1.Scale']);
    const shown = scale.fromParent(widget({ spec: { replicas: 3 }, status: { replicas: 2 } }));
    assert.deepEqual(
      scale.tableColumns!.map((column) => [column.name, column.value(shown, { domain: 'plat.io' })]),
      [['Name', 'w'], ['Desired', 3], ['Available', 2], ['Age', '10m']],
    );
  });

  it('refuses paths a validated definition cannot have', () => {
    for (const bad of [
      { specReplicasPath: 'spec.replicas', statusReplicasPath: '.status.replicas' },
      { specReplicasPath: '.status.replicas', statusReplicasPath: '.status.replicas' },
      { specReplicasPath: '.spec', statusReplicasPath: '.status.replicas' },
      { specReplicasPath: '.spec..replicas', statusReplicasPath: '.status.replicas' },
      { specReplicasPath: '.spec.replicas', statusReplicasPath: '.spec.replicas' },
      { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.metadata.labels' },
    ]) {
      assert.throws(() => customResourceScale(bad), /scale subresource: \w+ ".*" is not a json path under/);
    }
  });
});
