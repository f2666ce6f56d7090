import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NESTING_DEPTH, taggedNumberLiteral } from '@plat/apimachinery';
import { decodeJson, JsonDecodeError, scanJson } from './json-scan.js';

test('duplicate keys are found with their paths, wherever they are', () => {
  const cases: [string, string, string[]][] = [
    ['none', '{"a":1,"b":{"c":[1,2,{"d":true}]}}', []],
    ['top level', '{"a":1,"a":2}', ['a']],
    ['nested object', '{"metadata":{"name":"x","name":"y"}}', ['metadata.name']],
    ['inside an array', '{"rules":[{"verbs":[]},{"verbs":[],"verbs":["get"]}]}', ['rules[1].verbs']],
    ['array of arrays', '[[{"k":1,"k":2}]]', ['[0][0].k']],
    ['three times', '{"a":1,"a":2,"a":3}', ['a', 'a']],
    ['same key in sibling objects is not a duplicate', '{"x":{"a":1},"y":{"a":2}}', []],
    ['a key spelled with an escape is the same key', '{"a":1,"\\u0061":2}', ['a']],
    ['escaped quotes inside strings do not end them', '{"s":"say \\"a\\":1","s2":"\\\\","a":1}', []],
    ['a key with an escaped quote', '{"k\\"":1,"k\\"":2}', ['k"']],
    ['a string ending in an escaped backslash', '{"p":"C:\\\\","p":"D:\\\\"}', ['p']],
    ['whitespace everywhere', ' { "a" : [ 1 , { "b" : null , "b" : false } ] , "a" : 2 } ', ['a[1].b', 'a']],
    ['empty containers', '{"a":{},"b":[],"a":[]}', ['a']],
    ['numbers and literals', '{"n":-1.5e3,"t":true,"f":false,"z":null,"n":0}', ['n']],
    ['not an object', '"just a string"', []],
  ];
  for (const [name, text, want] of cases) {
    JSON.parse(text); // the cases are valid JSON, as the function requires
    assert.deepEqual(scanJson(text).duplicates, want, name);
  }
});

test('nesting up to the bound decodes; one level more is refused before any recursive step', () => {
  for (const [open, close] of [['[', ']'], ['{"a":', '}']] as const) {
    const inner = open === '[' ? '' : '1';
    const at = (depth: number): string => open.repeat(depth) + inner + close.repeat(depth);
    assert.equal(scanJson(at(MAX_NESTING_DEPTH)).tooDeep, false, `${open} at the bound`);
    assert.equal(scanJson(at(MAX_NESTING_DEPTH + 1)).tooDeep, true, `${open} past the bound`);
    assert.throws(() => decodeJson(at(20_000)), (error: unknown) => error instanceof JsonDecodeError && /exceeded max depth of 500/.test(error.message));
  }
  // Depth is nesting, not the number of containers: many siblings are fine.
  assert.equal(scanJson(`[${Array.from({ length: 2000 }, () => '[]').join(',')}]`).tooDeep, false);
});

test('number literals a double would round are found, and decode as tagged literals', () => {
  const text = '{"a":123456789012345678901234567890,"b":[1.5,9007199254740993],"c":1e400,"d":12,"e":"123456789012345678901234567890"}';
  const { value } = decodeJson(text) as { value: Record<string, unknown> };
  assert.equal(taggedNumberLiteral(value.a), '123456789012345678901234567890');
  assert.deepEqual((value.b as unknown[])[0], 1.5);
  assert.equal(taggedNumberLiteral((value.b as unknown[])[1]), '9007199254740993');
  assert.equal(taggedNumberLiteral(value.c), '1e400');
  assert.equal(value.d, 12);
  assert.equal(value.e, '123456789012345678901234567890', 'a string stays a string');
  assert.deepEqual(scanJson('{"a":1,"b":-0.5e-3,"c":true}').inexactNumbers, []);
});

test('a syntax error is a JsonDecodeError with the parser\'s message', () => {
  assert.throws(() => decodeJson('{"a":'), JsonDecodeError);
});
