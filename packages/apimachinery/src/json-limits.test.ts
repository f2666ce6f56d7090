import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NESTING_DEPTH, MAX_OBJECT_BYTES, exceededJsonLimit } from './json-limits.js';

const nestedArrays = (depth: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
};
const nestedObjects = (depth: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
};

describe('JSON limits', () => {
  const cases: [string, unknown, 'depth' | 'size' | undefined][] = [
    ['a small object', { metadata: { name: 'x' }, rules: [{ verbs: ['get'] }] }, undefined],
    ['scalars', 'text', undefined],
    ['arrays at the depth bound', nestedArrays(MAX_NESTING_DEPTH), undefined],
    ['arrays past it', nestedArrays(MAX_NESTING_DEPTH + 1), 'depth'],
    ['objects at the depth bound', nestedObjects(MAX_NESTING_DEPTH), undefined],
    ['objects far past it (no recursion to overflow)', nestedObjects(100_000), 'depth'],
    ['one string at the size bound', 'x'.repeat(MAX_OBJECT_BYTES - 2), undefined],
    ['one string past it', 'x'.repeat(MAX_OBJECT_BYTES), 'size'],
    // One string shared a thousand times (as a YAML alias expands) counts each time it is encoded.
    ['a shared value repeated', Array.from({ length: 1000 }, () => 'x'.repeat(4096)), 'size'],
  ];
  for (const [name, value, want] of cases) it(name, () => assert.equal(exceededJsonLimit(value), want));

  it('counts no more than the bytes of the JSON text, so a body within the limit never trips it', () => {
    const samples: unknown[] = [
      { a: [1, 22, -3.5, true, false, null, 'é', '😀', { 'k"': '\n' }], b: {}, c: [] },
      { metadata: { name: 'x', labels: { a: '' } } },
      [[], [[]], {}],
      0,
      null,
    ];
    for (const value of samples) {
      const bytes = Buffer.byteLength(JSON.stringify(value));
      assert.equal(exceededJsonLimit(value, { depth: 10, bytes }), undefined, JSON.stringify(value));
    }
    assert.equal(exceededJsonLimit({ name: 'abcdef' }, { depth: 10, bytes: 10 }), 'size');
  });
});
