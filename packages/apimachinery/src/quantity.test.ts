import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuantityError, parseQuantity, type QuantityFormat } from './quantity.js';

// Upstream's quantity_test.go (TestQuantityParse, TestQuantityString, TestQuantityParseEmit): the
// text, the canonical string it prints as, and the format it keeps.
const parses: { text: string; want: string; format?: QuantityFormat }[] = [
  { text: '0', want: '0', format: 'DecimalSI' },
  { text: '0n', want: '0', format: 'DecimalSI' },
  { text: '0Ki', want: '0', format: 'BinarySI' },
  { text: '00', want: '0' },
  { text: '1', want: '1', format: 'DecimalSI' },
  // Binary suffixes.
  { text: '1Ki', want: '1Ki', format: 'BinarySI' },
  { text: '8Ki', want: '8Ki', format: 'BinarySI' },
  { text: '7Mi', want: '7Mi' },
  { text: '6Gi', want: '6Gi' },
  { text: '5Ti', want: '5Ti' },
  { text: '4Pi', want: '4Pi' },
  { text: '3Ei', want: '3Ei' },
  { text: '1024Mi', want: '1Gi' },
  { text: '307200Ki', want: '300Mi' },
  { text: '1025024Mi', want: '1001Gi' },
  { text: '1.5Gi', want: '1536Mi', format: 'BinarySI' },
  { text: '0.5Mi', want: '512Ki', format: 'BinarySI' },
  // Binary values below 1024, or fractional, print in decimal.
  { text: '5000m', want: '5' },
  { text: '0.5Ki', want: '512', format: 'BinarySI' },
  { text: '100.035Ki', want: '102435840m', format: 'BinarySI' },
  { text: '.001Ki', want: '1024m', format: 'BinarySI' },
  { text: '.000001Ki', want: '1024u' },
  { text: '.000000001Ki', want: '1024n' },
  // Below 1 a binary quantity becomes decimal; below a nano unit it rounds up.
  { text: '.000000000001Ki', want: '2n', format: 'DecimalSI' },
  // Decimal suffixes.
  { text: '5n', want: '5n' },
  { text: '4u', want: '4u' },
  { text: '3m', want: '3m' },
  { text: '8k', want: '8k' },
  { text: '50k', want: '50k' },
  { text: '7M', want: '7M' },
  { text: '6G', want: '6G' },
  { text: '5T', want: '5T' },
  { text: '40T', want: '40T' },
  { text: '2P', want: '2P' },
  { text: '1E', want: '1E' },
  { text: '12E', want: '12E', format: 'DecimalSI' },
  { text: '1000m', want: '1' },
  { text: '1000M', want: '1G' },
  { text: '0.1', want: '100m' },
  { text: '0.5', want: '500m' },
  { text: '1.5', want: '1500m' },
  { text: '1.08', want: '1080m' },
  { text: '1080000000n', want: '1080m' },
  { text: '0.001T', want: '1G' },
  { text: '1000u', want: '1m' },
  { text: '9.01', want: '9010m' },
  { text: '8.1k', want: '8100' },
  { text: '2.5P', want: '2500T' },
  { text: '1.01E', want: '1010P' },
  { text: '0.0005k', want: '500m' },
  // Exponents.
  { text: '1e3', want: '1e3', format: 'DecimalExponent' },
  { text: '1E-3', want: '1E-3', format: 'DecimalExponent' },
  { text: '1e9', want: '1e9' },
  { text: '.001e12', want: '1e9' },
  { text: '0.001e0', want: '1e-3' },
  { text: '1000e-12', want: '1e-9' },
  { text: '1.2e3', want: '1200' },
  { text: '1.3E+6', want: '1300e3' },
  { text: '1.5e-3', want: '1500e-6' },
  { text: '0.5e0', want: '500e-3' },
  // Rounding up to whole nano units.
  { text: '3.001n', want: '4n' },
  { text: '1.1E-9', want: '2e-9' },
  { text: '0.0000000001', want: '1n' },
  { text: '0.00000000050', want: '1n' },
  { text: '0.00000012345', want: '124n' },
  { text: '-0.00000012345', want: '-124n' },
  { text: '1e-100', want: '1e-9' },
  // Binary quantities cap at 2^63-1; decimal ones do not.
  { text: '9Ei', want: '9223372036854775807', format: 'BinarySI' },
  { text: '9223372036854775807Ki', want: '9223372036854775807' },
  { text: '10000000000000000000', want: '10E' },
  // Negative values.
  { text: '-1', want: '-1' },
  { text: '-1.5Gi', want: '-1536Mi' },
  { text: '-1Ki', want: '-1Ki' },
  { text: '-1080m', want: '-1080m' },
  // Trolls: no digits before or after the point.
  { text: '.001', want: '1m' },
  { text: '.0001k', want: '100m' },
  { text: '.', want: '0' },
  // Upstream reuses the text when its fast path takes it for canonical (an integer mantissa with an
  // exponent that is a multiple of 3), so these print as written.
  { text: '+1', want: '+1' },
  { text: '1.', want: '1.' },
  { text: '1.G', want: '1.G' },
  { text: '7.123456M', want: '7.123456M' },
  { text: '6.987654321G', want: '6.987654321G' },
  { text: '5.444T', want: '5.444T' },
  { text: '10.035M', want: '10.035M' },
  { text: '100.035k', want: '100.035k' },
  { text: '05', want: '05' },
  { text: '1E6', want: '1E6' },
  { text: '1.500k', want: '1.500k' },
  // Past E upstream prints no suffix (1000E as "1"); an exponent keeps the value instead.
  { text: '1000E', want: '1e21', format: 'DecimalSI' },
];

for (const { text, want, format } of parses) {
  test(`quantity parse: ${JSON.stringify(text)}`, () => {
    const quantity = parseQuantity(text);
    assert.equal(quantity.toString(), want);
    assert.equal(JSON.stringify({ q: quantity }), `{"q":${JSON.stringify(want)}}`);
    if (format) assert.equal(quantity.format, format);
    // The canonical text parses back to the same value.
    assert.equal(parseQuantity(want).compare(quantity), 0);
  });
}

const FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX = "unable to parse quantity's suffix";
const NUMERIC = 'unable to parse numeric part of quantity';

const invalid: { text: string; want: string }[] = [
  { text: '', want: FORMAT },
  { text: '1.1.M', want: FORMAT },
  { text: '1+1.0M', want: FORMAT },
  { text: '0.1mi', want: SUFFIX },
  { text: '0.1am', want: FORMAT },
  { text: 'aoeu', want: FORMAT },
  { text: '.5i', want: SUFFIX },
  { text: '1i', want: SUFFIX },
  { text: '-3.01i', want: SUFFIX },
  { text: '-3.01e-', want: SUFFIX },
  { text: '1e', want: SUFFIX },
  { text: '1k5', want: SUFFIX },
  { text: '1e99999999999999999999', want: SUFFIX },
  { text: ' 1', want: FORMAT },
  { text: '1 ', want: FORMAT },
  { text: '1Gi ', want: FORMAT },
  { text: '.e-10', want: NUMERIC },
];

for (const { text, want } of invalid) {
  test(`quantity invalid: ${JSON.stringify(text)}`, () => {
    assert.throws(() => parseQuantity(text), (error: unknown) => {
      assert.ok(error instanceof QuantityError);
      assert.equal(error.message, want);
      return true;
    });
  });
}

// TestQuantityCmp and friends.
const comparisons: { a: string; b: string; want: -1 | 0 | 1 }[] = [
  { a: '0', b: '0', want: 0 },
  { a: '0', b: '0Ki', want: 0 },
  { a: '100m', b: '50m', want: 1 },
  { a: '50m', b: '100m', want: -1 },
  { a: '10000T', b: '100Gi', want: 1 },
  { a: '1', b: '1000m', want: 0 },
  { a: '1Ki', b: '1024', want: 0 },
  { a: '1k', b: '1Ki', want: -1 },
  { a: '1.5Gi', b: '1536Mi', want: 0 },
  { a: '-1', b: '1m', want: -1 },
  { a: '-1', b: '-2', want: 1 },
  { a: '-1Gi', b: '-1G', want: -1 },
  { a: '0', b: '-1n', want: 1 },
  { a: '1e2000000000', b: '2e2000000000', want: -1 },
  { a: '1e2000000000', b: '9E', want: 1 },
  { a: '1e-2000000000', b: '1n', want: 0 },
  { a: '901e-2', b: '9.01', want: 0 },
  { a: '800m', b: '0.79', want: 1 },
];

for (const { a, b, want } of comparisons) {
  test(`quantity compare: ${a} vs ${b}`, () => {
    assert.equal(parseQuantity(a).compare(parseQuantity(b)), want);
    assert.equal(parseQuantity(b).compare(parseQuantity(a)), -want || 0);
  });
}

test('quantity: isZero and sign', () => {
  assert.equal(parseQuantity('0m').isZero(), true);
  assert.equal(parseQuantity('-0').isZero(), true);
  assert.equal(parseQuantity('1n').isZero(), false);
  assert.equal(parseQuantity('0').sign(), 0);
  assert.equal(parseQuantity('2Gi').sign(), 1);
  assert.equal(parseQuantity('-2m').sign(), -1);
});

test('quantity: ratioTo', () => {
  assert.equal(parseQuantity('1Gi').ratioTo(parseQuantity('512Mi')), 2);
  assert.equal(parseQuantity('100m').ratioTo(parseQuantity('1')), 0.1);
  assert.equal(parseQuantity('3').ratioTo(parseQuantity('1500m')), 2);
  assert.equal(parseQuantity('1').ratioTo(parseQuantity('3')), 1 / 3);
  assert.equal(parseQuantity('1').ratioTo(parseQuantity('0')), Infinity);
  assert.ok(Number.isNaN(parseQuantity('0').ratioTo(parseQuantity('0'))));
});

// TestQuantityAddZeroPreservesSuffix, TestQuantitySubZeroPreservesSuffix.
test('quantity: add and sub are exact and keep the suffix', () => {
  const zero = parseQuantity('0');
  for (const text of ['100m', '1Gi']) {
    const value = parseQuantity(text);
    assert.equal(value.add(zero).toString(), text);
    assert.equal(zero.add(value).toString(), text);
    assert.equal(value.sub(zero).toString(), text);
    assert.equal(zero.sub(value).toString(), `-${text}`);
  }
  assert.equal(parseQuantity('100m').add(parseQuantity('0.9')).toString(), '1');
  assert.equal(parseQuantity('1Gi').add(parseQuantity('512Mi')).toString(), '1536Mi');
  assert.equal(parseQuantity('0.1').add(parseQuantity('0.2')).compare(parseQuantity('300m')), 0);
  assert.equal(parseQuantity('1').sub(parseQuantity('1n')).toString(), '999999999n');
});
