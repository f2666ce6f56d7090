import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isInexactNumberLiteral, tagNumberLiteral, taggedNumberLiteral } from './exact-number.js';

describe('exact number literals', () => {
  const cases: [string, boolean][] = [
    ['0', false],
    ['-1', false],
    ['0.1', false],
    ['123456789012345', false],
    ['1e30', false], // the shortest form of its double: String(1e30) gives it back
    ['1.5E3', false],
    ['9007199254740991', false], // 2^53 - 1, the largest safe integer
    ['9007199254740993', true], // rounds to ...992
    ['123456789012345678901234567890', true],
    ['1.2345678901234567890', true],
    ['1e400', true], // Infinity
    ['-1e400', true],
    ['1e-400', true], // underflows to 0
    ['0e400', false],
    ['100000000000000000000', false], // 1e20: exact in a double
    ['1.0000000000000000', false], // trailing zeros change nothing
  ];
  for (const [literal, inexact] of cases) {
    it(`${literal} is ${inexact ? 'inexact' : 'exact'}`, () => assert.equal(isInexactNumberLiteral(literal), inexact));
  }

  it('a tagged literal reads back; ordinary strings, and NUL-led ones without the random tag, do not', () => {
    assert.equal(taggedNumberLiteral(tagNumberLiteral('12345678901234567890')), '12345678901234567890');
    assert.equal(taggedNumberLiteral('12345678901234567890'), undefined);
    assert.equal(taggedNumberLiteral('\u0000number:guess:1'), undefined);
    assert.equal(taggedNumberLiteral(5), undefined);
  });
});
