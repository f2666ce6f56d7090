import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDuration } from './duration.js';

const parseCases: { text: string; ms?: number; error?: string }[] = [
  { text: '0', ms: 0 },
  { text: '5m', ms: 300_000 },
  { text: '30s', ms: 30_000 },
  { text: '1h30m', ms: 5_400_000 },
  { text: '1.5h', ms: 5_400_000 },
  { text: '250ms', ms: 250 },
  { text: '.5s', ms: 500 },
  { text: '2s.', error: 'time: invalid duration "2s."' },
  { text: '1500us', ms: 1.5 },
  { text: '-2s', ms: -2000 },
  { text: '0s', ms: 0 },
  { text: '', error: 'time: invalid duration ""' },
  { text: '5', error: 'time: missing unit in duration "5"' },
  { text: 'abc', error: 'time: invalid duration "abc"' },
  { text: '5x', error: 'time: unknown unit "x" in duration "5x"' },
  { text: '.s', error: 'time: invalid duration ".s"' },
];

for (const { text, ms, error } of parseCases) {
  test(`parseDuration(${JSON.stringify(text)})`, () => {
    if (error) assert.throws(() => parseDuration(text), { message: error });
    else assert.equal(parseDuration(text), ms);
  });
}

const formatCases: [number, string][] = [
  [0, '0s'],
  [300_000, '5m0s'],
  [5_400_000, '1h30m0s'],
  [1500, '1.5s'],
  [250, '250ms'],
  [3_600_000, '1h0m0s'],
  [-2000, '-2s'],
];

for (const [ms, text] of formatCases) {
  test(`formatDuration(${ms})`, () => assert.equal(formatDuration(ms), text));
}
