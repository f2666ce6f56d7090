import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFloat, goPlain, goSyntax } from './go-format.js';

const floats: [number, string][] = [
  [1.5, '1.5'],
  [100000, '100000'],
  [1000000, '1e+06'],
  [1234567.5, '1.2345675e+06'],
  [0.0001, '0.0001'],
  [0.00001, '1e-05'],
  [1e21, '1e+21'],
  [-2.5e-7, '-2.5e-07'],
];

for (const [value, want] of floats) test(`goFloat: ${value}`, () => assert.equal(goFloat(value), want));

test('goSyntax: %#v of unstructured values', () => {
  assert.equal(goSyntax({ b: [1, 'x', null], a: true }), 'map[string]interface {}{"a":true, "b":[]interface {}{1, "x", interface {}(nil)}}');
});

test('goPlain: %v of unstructured values', () => {
  assert.equal(goPlain({ b: [1, 'x'], a: 1.5 }), 'map[a:1.5 b:[1 x]]');
  assert.equal(goPlain(null), '<nil>');
});
