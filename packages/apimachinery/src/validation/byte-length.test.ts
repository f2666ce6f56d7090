import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { byteLength } from './messages.js';

describe('byteLength: UTF-8 bytes, as Go counts a string', () => {
  const cases: [string, string][] = [
    ['empty', ''],
    ['ASCII', 'app.kubernetes.io/name'],
    ['two-byte', 'héllo wörld'],
    ['three-byte', '日本語のラベル'],
    ['four-byte (surrogate pairs)', 'emoji 😀🚀 end'],
    ['lone high surrogate', 'a\ud800b'],
    ['lone low surrogate', 'a\udc00b'],
    ['high surrogate at the end', 'a\ud83d'],
    ['mixed, long', `${'x'.repeat(400)}é日😀`],
  ];
  for (const [name, value] of cases) {
    it(name, () => assert.equal(byteLength(value), new TextEncoder().encode(value).length));
  }
});
