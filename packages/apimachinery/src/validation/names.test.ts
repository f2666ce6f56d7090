import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
} from './names.js';

const a = (n: number): string => 'a'.repeat(n);

// Valid and invalid values from upstream's validation_test.go.
const formats: { name: string; check: (value: string) => string[]; valid: string[]; invalid: string[] }[] = [
  {
    name: 'DNS-1123 label',
    check: isDNS1123Label,
    valid: ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', a(63)],
    invalid: ['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '.', 'a.b', ' ', 'a b', a(64)],
  },
  {
    name: 'DNS-1035 label',
    check: isDNS1035Label,
    valid: ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', a(63)],
    invalid: ['0', '01', '012', '1a', '1-a', '1--a--b--2', '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '.', 'a.b', ' ', 'a b', a(64)],
  },
  {
    name: 'DNS-1123 subdomain',
    check: isDNS1123Subdomain,
    valid: ['a', 'ab', 'a-1', 'a.a', 'a.1', '0.a', 'a.b.c.d.e', 'aa.bb.cc.dd.ee', '1.2.3.4.5', '11.22.33.44.55', a(253)],
    invalid: ['', 'A', 'aBc', '-', 'a-', '-a', '_', 'a_b', '.', 'a.', '.a', 'a..b', 'a.-b', 'a-.b', 'a b', a(254)],
  },
  {
    name: 'qualified name',
    check: isQualifiedName,
    valid: [
      'simple',
      'now-with-dashes',
      '1-starts-with-num',
      '1234',
      'simple/simple',
      'now-with-dashes/simple',
      'now.with.dots/simple',
      '1-num.2-num/3-num',
      '1234/5678',
      '1.2.3.4/5678',
      'Uppercase_Is_OK_123',
      'example.com/Uppercase_Is_OK_123',
      'requests.storage-foo',
      a(63),
      `${a(253)}/${a(63)}`,
    ],
    invalid: [
      'nospecialchars%^=@',
      'cantendwithadash-',
      '-cantstartwithadash-',
      'only/one/slash',
      'Example.com/abc',
      'example_com/abc',
      'example.com/',
      '/simple',
      a(64),
      `${a(254)}/abc`,
    ],
  },
  {
    name: 'label value',
    check: isValidLabelValue,
    valid: ['', 'simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'Mixed_Case.and-dots', a(63)],
    invalid: ['nospecialchars%^=@', 'Tama-nui-te-rā.is_Māori.for_the_sun', '-start', 'end-', a(64)],
  },
  {
    name: 'path segment name',
    check: isValidPathSegmentName,
    valid: ['a', 'a.b', '...', '.a', 'UPPER_case:ok'],
    invalid: ['.', '..', 'a/b', 'a%b', '%'],
  },
];

for (const { name, check, valid, invalid } of formats) {
  for (const value of valid) test(`${name}: ${JSON.stringify(value.slice(0, 40))} is valid`, () => assert.deepEqual(check(value), []));
  for (const value of invalid) {
    test(`${name}: ${JSON.stringify(value.slice(0, 40))} is invalid`, () => assert.notDeepEqual(check(value), []));
  }
}

const dns1123LabelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035LabelMessage =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const qualifiedNamePart =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const messages: { name: string; got: string[]; want: string[] }[] = [
  { name: 'label: bad characters', got: isDNS1123Label('My_Name'), want: [dns1123LabelMessage] },
  { name: 'label: too long and bad', got: isDNS1123Label(`${a(63)}-`), want: ['must be no more than 63 characters', dns1123LabelMessage] },
  // 1.28 reports a dotted name by the regex, without upstream's later "must not contain dots".
  { name: 'label: dots', got: isDNS1123Label('a.b'), want: [dns1123LabelMessage] },
  { name: 'label: length counts UTF-8 bytes', got: isDNS1123Label('é'.repeat(32)), want: ['must be no more than 63 characters', dns1123LabelMessage] },
  { name: 'DNS-1035 label: leading digit', got: isDNS1035Label('1abc'), want: [dns1035LabelMessage] },
  { name: 'DNS-1035 label: too long', got: isDNS1035Label(a(64)), want: ['must be no more than 63 characters'] },
  { name: 'subdomain', got: isDNS1123Subdomain('Foo'), want: [dns1123SubdomainMessage] },
  { name: 'subdomain: too long', got: isDNS1123Subdomain(a(254)), want: ['must be no more than 253 characters'] },
  { name: 'qualified name: name part', got: isQualifiedName('-x'), want: [`name part ${qualifiedNamePart}`] },
  { name: 'qualified name: empty', got: isQualifiedName(''), want: ['name part must be non-empty', `name part ${qualifiedNamePart}`] },
  { name: 'qualified name: long name part', got: isQualifiedName(a(64)), want: ['name part must be no more than 63 characters'] },
  { name: 'qualified name: empty prefix', got: isQualifiedName('/x'), want: ['prefix part must be non-empty'] },
  { name: 'qualified name: bad prefix', got: isQualifiedName('Example.com/x'), want: [`prefix part ${dns1123SubdomainMessage}`] },
  {
    name: 'qualified name: two slashes',
    got: isQualifiedName('a/b/c'),
    want: [`a qualified name ${qualifiedNamePart} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
  },
  { name: 'label value', got: isValidLabelValue('-x'), want: [labelValueMessage] },
  { name: 'label value: too long', got: isValidLabelValue(a(64)), want: ['must be no more than 63 characters'] },
  { name: 'path segment: dot', got: isValidPathSegmentName('.'), want: ["may not be '.'"] },
  { name: 'path segment: dot dot', got: isValidPathSegmentName('..'), want: ["may not be '..'"] },
  { name: 'path segment: both characters', got: isValidPathSegmentName('a/%'), want: ["may not contain '/'", "may not contain '%'"] },
];

for (const { name, got, want } of messages) test(`messages: ${name}`, () => assert.deepEqual(got, want));

// generateName prefixes: upstream's maskTrailingDash replaces the last two characters of a prefix
// ending in '-' with 'a' before checking.
const nameFunctions: { name: string; got: string[]; valid: boolean }[] = [
  { name: 'subdomain name', got: nameIsDNSSubdomain('foo.bar', false), valid: true },
  { name: 'subdomain name with a trailing dash', got: nameIsDNSSubdomain('foo-', false), valid: false },
  { name: 'subdomain prefix with a trailing dash', got: nameIsDNSSubdomain('foo-', true), valid: true },
  { name: 'subdomain prefix of a dash alone', got: nameIsDNSSubdomain('-', true), valid: false },
  { name: 'subdomain prefix: the character before the dash is masked too', got: nameIsDNSSubdomain('a.-', true), valid: true },
  { name: 'subdomain prefix of 254 characters with the dash', got: nameIsDNSSubdomain(`${a(253)}-`, true), valid: true },
  { name: 'subdomain prefix with a leading dash', got: nameIsDNSSubdomain('-foo-', true), valid: false },
  { name: 'label name', got: nameIsDNSLabel('kube-system', false), valid: true },
  { name: 'label prefix with a trailing dash', got: nameIsDNSLabel('ns-', true), valid: true },
  { name: 'label prefix with a dot', got: nameIsDNSLabel('a.b-', true), valid: false },
  { name: 'path segment name', got: nameIsPathSegment('system:admin', false), valid: true },
  { name: 'path segment name ..', got: nameIsPathSegment('..', false), valid: false },
  { name: 'path segment prefix ..', got: nameIsPathSegment('..', true), valid: true },
  { name: 'path segment prefix with a slash', got: nameIsPathSegment('a/', true), valid: false },
];

for (const { name, got, valid } of nameFunctions) test(`name functions: ${name}`, () => assert.equal(got.length === 0, valid, got.join('; ')));
