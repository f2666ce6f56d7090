// The converter seam: None rewrites apiVersion only, batch in and batch out in order, the given
// objects untouched; the version check refuses, with upstream's messages, a version not the kind's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noneConverter, versionCheckedConverter, type Converter } from './conversion.js';
import type { KubeObject } from './definition.js';

const object = (apiVersion: string, name: string, spec: Record<string, unknown> = {}): KubeObject => ({ apiVersion, kind: 'Gadget', metadata: { name, labels: { app: name } }, spec });

describe('conversion: None', () => {
  const cases: { name: string; objects: KubeObject[]; to: string; want: KubeObject[] }[] = [
    { name: 'an empty batch', objects: [], to: 'example.com/v2', want: [] },
    {
      name: 'each object takes the version asked for; kind, metadata and fields stay',
      objects: [object('example.com/v1', 'a', { size: 1 }), object('example.com/v1', 'b', { hostPort: 'h:1' })],
      to: 'example.com/v2',
      want: [object('example.com/v2', 'a', { size: 1 }), object('example.com/v2', 'b', { hostPort: 'h:1' })],
    },
    {
      name: 'a mixed batch keeps its order',
      objects: [object('example.com/v2', 'a'), object('example.com/v1', 'b'), object('example.com/v2', 'c')],
      to: 'example.com/v1',
      want: [object('example.com/v1', 'a'), object('example.com/v1', 'b'), object('example.com/v1', 'c')],
    },
  ];
  for (const { name, objects, to, want } of cases) {
    it(name, async () => {
      const before = structuredClone(objects);
      assert.deepEqual(await noneConverter.convert(objects, to), want);
      assert.deepEqual(objects, before, 'the given objects are not changed');
    });
  }

  it('gives an object already in the version back as itself, and makes the others anew', async () => {
    const same = object('example.com/v1', 'same');
    const other = object('example.com/v2', 'other');
    const [a, b] = await noneConverter.convert([same, other], 'example.com/v1');
    assert.equal(a, same);
    assert.notEqual(b, other);
  });
});

describe('conversion: the versions checked', () => {
  const versions = ['example.com/v1', 'example.com/v2'];
  const cases: { name: string; objects: KubeObject[]; to: string; error?: string }[] = [
    { name: 'between two of its versions', objects: [object('example.com/v1', 'a')], to: 'example.com/v2' },
    { name: 'to a version not its own', objects: [object('example.com/v1', 'a')], to: 'example.com/v3', error: 'request to convert CR to an invalid group/version: example.com/v3' },
    { name: 'from a version not its own', objects: [object('other.com/v1', 'a')], to: 'example.com/v2', error: 'request to convert CR from an invalid group/version: other.com/v1' },
    {
      name: 'a batch with an object of a version not its own, by index',
      objects: [object('example.com/v1', 'a'), object('example.com/v9', 'b')],
      to: 'example.com/v2',
      error: 'request to convert CR list failed, list index 1 has invalid group/version: example.com/v9',
    },
  ];
  for (const { name, objects, to, error } of cases) {
    it(name, async () => {
      let calls = 0;
      const inner: Converter = {
        convert: (batch, apiVersion) => {
          calls++;
          return noneConverter.convert(batch, apiVersion);
        },
      };
      const converting = versionCheckedConverter(versions, inner).convert(objects, to);
      if (error) {
        await assert.rejects(converting, { message: error });
        assert.equal(calls, 0, 'nothing is converted');
      } else {
        assert.deepEqual((await converting).map((o) => o.apiVersion), objects.map(() => to));
        assert.equal(calls, 1);
      }
    });
  }
});
