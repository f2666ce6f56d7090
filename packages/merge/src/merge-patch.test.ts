import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './merge-patch.js';

// RFC 7386, Appendix A.
const rfcExamples: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

rfcExamples.forEach(([target, patch, want], i) => {
  test(`applyMergePatch: RFC 7386 example ${i + 1}`, () => {
    const before = structuredClone(target);
    assert.deepEqual(applyMergePatch(target, patch), want);
    assert.deepEqual(target, before, 'the target is not modified');
  });
});

test('applyMergePatch: __proto__ is an ordinary key', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const out = applyMergePatch({}, patch) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
  assert.equal(out.a, 1);
});

test('applyMergePatch: the result shares nothing with the inputs', () => {
  const target = { a: { b: 1 }, keep: { x: [1] } };
  const patch = { a: { c: { d: 2 } } };
  const out = applyMergePatch(target, patch) as { a: { c: { d: number } }; keep: { x: number[] } };
  out.a.c.d = 3;
  out.keep.x.push(2);
  assert.deepEqual(patch, { a: { c: { d: 2 } } });
  assert.deepEqual(target.keep.x, [1]);
});
