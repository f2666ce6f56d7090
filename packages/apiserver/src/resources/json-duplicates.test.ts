import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateKeys } from './json-duplicates.js';

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
    assert.deepEqual(findDuplicateKeys(text), want, name);
  }
});
