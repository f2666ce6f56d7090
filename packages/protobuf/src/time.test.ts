import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMicroTime, formatTime, parseTime } from './time.js';
import { ProtobufError } from './errors.js';

const parseCases: { text: string; seconds?: number; nanos?: number; error?: string }[] = [
  { text: '2024-05-01T10:00:00Z', seconds: 1714557600, nanos: 0 },
  { text: '1970-01-01T00:00:00Z', seconds: 0, nanos: 0 },
  { text: '1969-12-31T23:59:59Z', seconds: -1, nanos: 0 },
  { text: '2024-02-29T23:59:59Z', seconds: 1709251199, nanos: 0 },
  { text: '0001-01-01T00:00:00Z', seconds: -62135596800, nanos: 0 },
  { text: '9999-12-31T23:59:59Z', seconds: 253402300799, nanos: 0 },
  { text: '2024-05-01T12:00:00+02:00', seconds: 1714557600, nanos: 0 },
  { text: '2024-05-01T05:30:00-04:30', seconds: 1714557600, nanos: 0 },
  { text: '2024-05-01t10:00:00z', seconds: 1714557600, nanos: 0 },
  { text: '2024-05-01T10:00:00.5Z', seconds: 1714557600, nanos: 500_000_000 },
  { text: '2024-05-01T10:00:00.123456Z', seconds: 1714557600, nanos: 123_456_000 },
  { text: '2024-05-01T10:00:00.123456789Z', seconds: 1714557600, nanos: 123_456_789 },
  { text: '2023-02-29T00:00:00Z', error: 'out of range' },
  { text: '2024-04-31T00:00:00Z', error: 'out of range' },
  { text: '2024-05-01T24:00:00Z', error: 'out of range' },
  { text: '2024-05-01T10:00:60Z', error: 'out of range' },
  { text: '2024-05-01 10:00:00Z', error: 'is not an RFC 3339 time' },
  { text: '2024-05-01T10:00:00', error: 'is not an RFC 3339 time' },
  { text: '2024-05-01T10:00:00.Z', error: 'is not an RFC 3339 time' },
  { text: '', error: 'is not an RFC 3339 time' },
];

for (const { text, seconds, nanos, error } of parseCases) {
  test(`parseTime(${JSON.stringify(text)})`, () => {
    if (error) {
      assert.throws(() => parseTime(text, 'f'), (err: unknown) => err instanceof ProtobufError && err.reason === 'InvalidValue' && err.message.includes(error));
    } else {
      assert.deepEqual(parseTime(text, 'f'), { seconds, nanos });
    }
  });
}

test('formatTime writes RFC 3339 in UTC with whole seconds, as metav1.Time', () => {
  assert.equal(formatTime(1714557600), '2024-05-01T10:00:00Z');
  assert.equal(formatTime(0), '1970-01-01T00:00:00Z');
  assert.equal(formatTime(-1), '1969-12-31T23:59:59Z');
  assert.equal(formatTime(-62135596800), '0001-01-01T00:00:00Z');
  assert.equal(formatTime(253402300799), '9999-12-31T23:59:59Z');
  assert.equal(formatTime(253402300800), '10000-01-01T00:00:00Z');
});

test('formatMicroTime writes six fraction digits, as metav1.MicroTime', () => {
  assert.equal(formatMicroTime(1714557600, 0), '2024-05-01T10:00:00.000000Z');
  assert.equal(formatMicroTime(1714557600, 123_456_789), '2024-05-01T10:00:00.123456Z');
});

test('formatTime and parseTime agree with Date over a wide range', () => {
  for (let seconds = -62135596800; seconds < 253402300800; seconds += 86400 * 97 + 3601) {
    const text = formatTime(seconds);
    assert.equal(text, new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));
    assert.equal(parseTime(text, 'f').seconds, seconds);
  }
});
