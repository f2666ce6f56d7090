import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCPUList } from './cpuset.js';

const cases: [string, number[] | string][] = [
  ['', []],
  ['0', [0]],
  ['0-3', [0, 1, 2, 3]],
  ['0-1,4,6-7', [0, 1, 4, 6, 7]],
  ['3,1,1', [1, 3]],
  ['3-1', 'invalid range "3-1" (3 > 1)'],
  ['a', '"a" is not a CPU number'],
  ['1-2-3', 'invalid range "1-2-3"'],
  ['1,', '"" is not a CPU number'],
  [' 1', '" 1" is not a CPU number'],
];

for (const [text, expected] of cases) {
  test(`parseCPUList(${JSON.stringify(text)})`, () => {
    if (typeof expected === 'string') assert.throws(() => parseCPUList(text), { message: expected });
    else assert.deepEqual(parseCPUList(text), expected);
  });
}
