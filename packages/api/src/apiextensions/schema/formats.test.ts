import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchesFormat, supportedFormat } from './formats.js';

test('supportedFormat: the CRD validator knows these formats only; names lose their dashes', () => {
  for (const format of ['uuid', 'date-time', 'datetime', 'byte', 'email', 'cidr', 'ipv4', 'ipv6', 'mac', 'uri', 'hostname', 'bsonobjectid', 'password']) {
    assert.equal(supportedFormat(format), format, format);
  }
  for (const format of ['int32', 'int64', 'float', 'double', 'quantity', 'Date-Time', '']) assert.equal(supportedFormat(format), '', format);
});

const cases: { format: string; valid: string[]; invalid: string[] }[] = [
  { format: 'bsonobjectid', valid: ['507f1f77bcf86cd799439011'], invalid: ['507f1f77bcf86cd79943901', 'zz7f1f77bcf86cd799439011'] },
  { format: 'uri', valid: ['http://example.com/a?b#c', '/absolute/path', 'mailto:x@y', 'http://[::1]:80/'], invalid: ['', 'relative/path', 'http://exa mple.com/', 'http://host:port/', '/%zz'] },
  { format: 'email', valid: ['a@b.c', 'Joe <joe@example.com>', '"q u"@example.com'], invalid: ['plain', 'a@', '@b', 'a b@c'] },
  { format: 'hostname', valid: ['example.com', 'a', 'xn--bcher-kva.example'], invalid: ['-bad', 'a..b', `${'a'.repeat(64)}.com`] },
  { format: 'ipv4', valid: ['1.2.3.4', '001.2.3.4', '::ffff:1.2.3.4'], invalid: ['1.2.3', '256.1.1.1', '::1'] },
  { format: 'ipv6', valid: ['::1', '2001:db8::1', '::ffff:1.2.3.4'], invalid: ['1.2.3.4', '2001:db8::1::2', 'fe80::1%eth0'] },
  { format: 'cidr', valid: ['10.0.0.0/8', '2001:db8::/32', '10.0.0.1/32'], invalid: ['10.0.0.0', '10.0.0.0/33', '::/129'] },
  { format: 'mac', valid: ['01:23:45:67:89:ab', '01-23-45-67-89-ab', '0123.4567.89ab', '01:23:45:67:89:ab:cd:ef'], invalid: ['01:23:45:67:89', '0123456789ab'] },
  { format: 'uuid', valid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'], invalid: ['123e4567-e89b-12d3-a456'] },
  { format: 'uuid4', valid: ['123e4567-e89b-42d3-a456-426614174000'], invalid: ['123e4567-e89b-12d3-a456-426614174000'] },
  { format: 'isbn10', valid: ['0-306-40615-2', '080442957X'], invalid: ['0306406153'] },
  { format: 'isbn13', valid: ['978-0-306-40615-7'], invalid: ['9780306406158'] },
  { format: 'creditcard', valid: ['4111 1111 1111 1111'], invalid: ['4111 1111 1111 1112'] },
  { format: 'ssn', valid: ['123-45-6789', '123 45 6789'], invalid: ['123456789', '123-45-678'] },
  { format: 'hexcolor', valid: ['#fff', 'A1B2C3'], invalid: ['#ffff'] },
  { format: 'rgbcolor', valid: ['rgb(0, 128, 255)'], invalid: ['rgb(256,0,0)'] },
  { format: 'byte', valid: ['aGVsbG8=', 'YWJj'], invalid: ['', 'abc', 'a$bc'] },
  { format: 'date', valid: ['2024-02-29', '2023-12-31'], invalid: ['2023-02-29', '2023-13-01', '2023-1-01'] },
  { format: 'date-time', valid: ['2024-01-02T03:04:05Z', '2024-01-02t03:04:05.123+01:00'], invalid: ['2024-01-02', '2024-01-02T24:00:00Z', '2024-01-02T03:04:05'] },
  { format: 'duration', valid: ['1h30m', '-1.5s', '0', '3 days', '2 weeks'], invalid: ['', 'soon', '5 lightyears'] },
  { format: 'password', valid: ['anything'], invalid: [] },
];

for (const c of cases) {
  test(`matchesFormat: ${c.format}`, () => {
    for (const text of c.valid) assert.equal(matchesFormat(c.format, text), true, `${c.format} ${text}`);
    for (const text of c.invalid) assert.equal(matchesFormat(c.format, text), false, `${c.format} ${text}`);
  });
}
