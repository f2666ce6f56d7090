import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp } from './object-meta.js';

describe('formatTimestamp', () => {
  // In this order: each case follows the one before it, as writes stamp them, so that a cached
  // second that is reused too long (or not recognised as changed) shows.
  const cases: { date: string; want: string }[] = [
    { date: '2026-11-25T01:02:03.000Z', want: '2026-11-25T01:02:03Z' },
    { date: '2026-11-25T01:02:03.999Z', want: '2026-11-25T01:02:03Z' },
    { date: '2026-11-25T01:02:04.001Z', want: '2026-11-25T01:02:04Z' },
    { date: '2026-11-25T01:02:03.500Z', want: '2026-11-25T01:02:03Z' },
    { date: '1969-12-31T23:59:59.500Z', want: '1969-12-31T23:59:59Z' },
    { date: '1970-01-01T00:00:00.000Z', want: '1970-01-01T00:00:00Z' },
  ];
  for (const { date, want } of cases) {
    it(`${date} -> ${want}`, () => assert.equal(formatTimestamp(new Date(date)), want));
  }
});
