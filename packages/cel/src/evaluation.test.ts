// What expressions evaluate to: the standard library's semantics as cel-go has them (exact int64,
// uint, doubles, strings by code point, timestamps to the nanosecond), Kubernetes' libraries, and
// errors as values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelEnvironment } from './environment.js';
import { ProgramError } from './issues.js';
import { PER_CALL_LIMIT } from './limits.js';
import { DynType, IntType, StringType, listOf, mapOf } from './types.js';
import { ErrorValue, ListValue, LiteralMap, MapValue, UInt, type Value } from './values.js';

const env = new CelEnvironment(
  new Map([
    ['i', IntType],
    ['s', StringType],
    ['l', listOf(IntType)],
    ['m', mapOf(StringType, IntType)],
    ['d', DynType],
  ]),
);

const activation: Record<string, Value> = { i: 7n, s: 'héllo wörld', d: 'text' };

/** A plain rendering of a value, to compare in tables. */
function plain(v: Value): unknown {
  if (v instanceof ErrorValue) return { error: v.message };
  if (v instanceof UInt) return `${v.value}u`;
  if (v instanceof ListValue) return [...v.values()].map(plain);
  if (v instanceof MapValue) return Object.fromEntries([...v.keys()].map((k) => [String(k), plain(v.get(k)!)]));
  return v;
}

const evaluate = (source: string): unknown => plain(env.compile(source).evaluate(activation, PER_CALL_LIMIT).value);

const cases: [string, unknown][] = [
  // Integers are exact 64-bit: overflow is an error, never a wrap or a rounding.
  ['9223372036854775807 + 1', { error: 'integer overflow' }],
  ['-9223372036854775808 - 1', { error: 'integer overflow' }],
  ['-9223372036854775808 / -1', { error: 'integer overflow' }],
  ['9223372036854775807', 9223372036854775807n],
  ['5 / 0', { error: 'division by zero' }],
  ['5 % 0', { error: 'modulus by zero' }],
  ['-7 / 2', -3n],
  ['-7 % 2', -1n],
  ['1u - 2u', { error: 'unsigned integer overflow' }],
  ['18446744073709551615u', '18446744073709551615u'],
  ['uint(i - 8)', { error: 'unsigned integer overflow' }],
  ['int(double(i) * 1e19)', { error: 'integer overflow' }],
  ['int("42") + int(2.9)', 44n],
  ['double(1) / 0.0', Infinity],
  ['string(1.5e7)', '1.5e+07'],
  ['string(123456.0)', '123456'],
  ['string(0.0001)', '0.0001'],
  // Equality: heterogeneous at runtime, numbers across their types by value.
  ['dyn(1) == 1.0', true],
  ['dyn(1) == 1u', true],
  ['dyn(1) == "1"', false],
  ['[1, 2] == [1, 2] && [1, 2] != [2, 1]', true],
  ['{"a": 1} == {"a": 1}', true],
  ['1 in [1, 2, 3] && !(4 in [1, 2, 3])', true],
  ['"a" in {"a": 1}', true],
  // Logic absorbs errors where the other side decides.
  ['false && (1 / 0 > 0)', false],
  ['(1 / 0 > 0) || true', true],
  ['(1 / 0 > 0) && true', { error: 'division by zero' }],
  ['true ? 1 : 1 / 0', 1n],
  // Strings count code points.
  ['size(s)', 11n],
  ['s.charAt(1)', 'é'],
  ['s.indexOf("ö")', 7n],
  ['s.lastIndexOf("l")', 9n],
  ['s.substring(6)', 'wörld'],
  ['s.substring(3, 1)', { error: 'invalid substring range. start: 3, end: 1' }],
  ['s.upperAscii()', 'HéLLO WöRLD'],
  ['"  a b  ".trim()', 'a b'],
  ['"a,b,,c".split(",")', ['a', 'b', '', 'c']],
  ['"a,b,c".split(",", 2)', ['a', 'b,c']],
  ['"aaa".replace("a", "b", 2)', 'bba'],
  ['["a", "b"].join("-")', 'a-b'],
  ['"b" > "a" && "\\u00e9" < "\\U0001F600"', true],
  // Regex: RE2 syntax, partial matches.
  ['"abc123".matches("[0-9]+")', true],
  ['"abc123def45".find("[0-9]+")', '123'],
  ['"abc123def45".findAll("[0-9]+")', ['123', '45']],
  ['"abc123def45".findAll("[0-9]+", 1)', ['123']],
  ['"a".matches("(" + "")', { error: 'error parsing regexp: missing closing ): `(`' }],
  ['"a".find("(" + "")', { error: 'Illegal regex: error parsing regexp: missing closing ): `(`' }],
  // Kubernetes' lists.
  ['[1, 2, 3].isSorted() && ![2, 1].isSorted()', true],
  ['[1, 2, 3].sum()', 6n],
  ['[1.5, 2.5].sum()', 4],
  ['[3, 1, 2].min()', 1n],
  ['["b", "c", "a"].max()', 'c'],
  ['[].min()', { error: 'min called on empty list' }],
  ['[1, 2, 1].indexOf(1)', 0n],
  ['[1, 2, 1].lastIndexOf(1)', 2n],
  ['[duration("1s"), duration("2s")].sum() == duration("3s")', true],
  // Macros.
  ['[1, 2, 3].all(x, x > 0)', true],
  ['[1, 2, 3].exists(x, x > 2)', true],
  ['[1, 2, 3].exists_one(x, x > 1)', false],
  ['[1, 2, 3].map(x, x * 2)', [2n, 4n, 6n]],
  ['[1, 2, 3].map(x, x > 1, x * 10)', [20n, 30n]],
  ['[1, 2, 3].filter(x, x != 2)', [1n, 3n]],
  ['{"a": 1, "b": 2}.all(k, k != "c")', true],
  ['[0, 1].all(x, 1 / x > 0)', { error: 'division by zero' }],
  ['[0, 1].exists(x, 1 / x > 0)', true],
  // Timestamps and durations.
  ['timestamp("2024-01-15T14:30:45.123456789Z").getHours("America/New_York")', 9n],
  ['timestamp("2024-01-15T14:30:45Z").getHours("+05:30")', 20n],
  ['timestamp("2024-01-15T14:30:45Z").getDayOfWeek()', 1n],
  ['timestamp("2024-03-01T00:00:00Z").getDayOfYear()', 60n],
  ['string(timestamp("2024-01-15T14:30:45.120Z"))', '2024-01-15T14:30:45.12Z'],
  ['timestamp("2024-01-15T14:30:45Z") - timestamp("2024-01-15T14:00:00Z") == duration("30m45s")', true],
  ['duration("1h2m3.5s").getMinutes()', 62n],
  ['string(duration("1h2m3.5s"))', '3723.5s'],
  ['timestamp("9999-12-31T23:59:59Z") + duration("1s")', { error: 'timestamp out of range' }],
  // A timestamp keeps the offset it was written in, as Go's time.Time its zone: string() shows it.
  ['string(timestamp("2011-08-18T19:03:37.01+01:00"))', '2011-08-18T19:03:37.01+01:00'],
  ['string(timestamp("2011-08-18T19:03:37-05:30") + duration("1h"))', '2011-08-18T20:03:37-05:30'],
  ['string(timestamp("2011-08-18T19:03:37+00:00"))', '2011-08-18T19:03:37Z'],
  ['timestamp("2011-08-18T19:03:37+01:00") == timestamp("2011-08-18T18:03:37Z")', true],
  ['int(timestamp("1970-01-02T00:00:00Z"))', 86400n],
  // Types.
  ['type(d) == string && type(1) == int && type([]) == list', true],
  ['type(d) == int ? d < 5 : d.startsWith("t")', true],
  // URLs (Go's net/url).
  ['url("https://user@example.com:8080/a%20b?x=1&x=2&y").getScheme()', 'https'],
  ['url("https://example.com:8080/a").getHost()', 'example.com:8080'],
  ['url("https://[::1]:80/").getHostname()', '::1'],
  ['url("https://example.com:8080/a").getPort()', '8080'],
  ['url("https://example.com/a%20b").getEscapedPath()', '/a%20b'],
  ['url("https://example.com/?x=1&x=2&y").getQuery()', { x: ['1', '2'], y: [''] }],
  ['isURL("https://example.com") && !isURL("example.com")', true],
  ['url("example.com")', { error: 'URL parse error during conversion from string: parse "example.com": invalid URI for request' }],
  // Dynamic dispatch: a dyn argument meets the overload of its runtime type, or none.
  ['d + "!"', 'text!'],
  ['d + 1', { error: 'no such overload' }],
  // ... except where cel-go's operators take more: numbers compare across types (as Go does, through
  // the double), a list takes a uint or integral double index.
  ['dyn(1) < 2u && dyn(2.5) > 2 && dyn(1u) <= 1.0', true],
  ['dyn(9223372036854775807) < 9223372036854775808.0', false],
  ['dyn(-1) < 0u && dyn(18446744073709551615u) > -1.0', true],
  ['[7, 8, 9][dyn(1u)] + [7, 8, 9][dyn(2.0)]', 17n],
  ['[7, 8, 9][dyn(1.5)]', { error: "unsupported index type 'number' in list" }],
  ['dyn("a") < 1', { error: 'no such overload' }],
  // NaN is not ordered (cel-go 0.16: an error), nor equal to itself.
  ['0.0 / 0.0 < 1.0', { error: 'NaN values cannot be ordered' }],
  ['dyn(1) > 0.0 / 0.0', { error: 'NaN values cannot be ordered' }],
  ['0.0 / 0.0 == 0.0 / 0.0', false],
  ['[1.0, 0.0 / 0.0, 2.0].isSorted()', true],
  // Kubernetes' literals are homogeneous: elements (and keys, and values) of one type, or dyn.
  ['[1, dyn("a")].size()', 2n],
  // Map literals as cel-go 0.16 builds them: a repeated key keeps its last value; 1 and 1u are two
  // keys; numeric keys are found across the integer types and from an integral double.
  ['{"a": 1, "a": 2}', { a: 2n }],
  ['size({1: "i", dyn(1u): "u"})', 2n],
  ['{1: "i"}[dyn(1u)] + {1u: "u"}[dyn(1)] + {1: "i"}[dyn(1.0)]', 'iui'],
  ['{1.5: "d"}[1.5]', 'd'],
  ['{1: "i"}[dyn(1.5)]', { error: 'no such key: 1.5' }],
  // Lexical corners: a float with no integer digits, a bytes literal's characters as UTF-8.
  ['.5 + 1.0', 1.5],
  ['[.25, 1.0][0] * 4.0', 1],
  ['b"\u00ff" == b"\xc3\xbf" || true', true],
  ["b'ÿ' == b'\\303\\277' && size(b'ÿ') == 2", true],
  ["b'\\xff' != b'ÿ'", true],
];

for (const [source, want] of cases) {
  test(`evaluate: ${source}`, () => assert.deepEqual(evaluate(source), want));
}

test('evaluate: a regex with catastrophic backtracking in JavaScript runs in linear time', () => {
  // (a+)+$ on 30 a's and a b takes a backtracking engine about 2^30 steps.
  const started = process.hrtime.bigint();
  assert.deepEqual(evaluate('"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab".matches("(a+)+$")'), false);
  const longer = `"${'a'.repeat(5000)}b".matches("(a+)+$")`;
  assert.deepEqual(evaluate(longer), false);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.ok(ms < 2000, `took ${ms} ms`);
});

test('evaluate: a syntax error after a leading-point float points into the source as written', () => {
  assert.throws(() => env.compile('.5 + )'), (e: Error) => e.message.startsWith('ERROR: <input>:1:6: Syntax error'));
  assert.throws(() => env.compile('.5 + .5 + zz'), (e: Error) => e.message.includes(":1:11: undeclared reference to 'zz'"));
});

test('evaluate: qualified variable names and a container resolve as in cel-go, longest name first', () => {
  const qualified = new CelEnvironment(
    new Map([
      ['a.b.c', StringType],
      ['a.b', mapOf(StringType, StringType)],
      ['x.y', IntType],
      ['y', StringType],
    ]),
    { container: 'x' },
  );
  const run = (source: string, activation: Record<string, Value>): unknown => plain(qualified.compile(source).evaluate(activation, PER_CALL_LIMIT).value);
  const unchecked = (source: string, activation: Record<string, Value>): unknown =>
    plain(qualified.compileUnchecked(source).evaluate(activation, PER_CALL_LIMIT).value);
  assert.equal(run('a.b.c', { 'a.b.c': 'whole' }), 'whole');
  assert.equal(run('a.b.d', { 'a.b': new LiteralMap([['d', 'field']]) }), 'field');
  assert.equal(run('y + 1', { 'x.y': 41n, y: 'shadowed' }), 42n);
  assert.equal(unchecked('a.b.c', { 'a.b': new LiteralMap([['c', 'by map']]) }), 'by map');
  assert.equal(unchecked('y', { y: 'root' }), 'root');
  assert.throws(() => qualified.compile('q.r'), /undeclared reference to 'q' \(in container 'x'\)/);
});

test('compile: what Kubernetes computes ahead of time and fails fails the program (cel-go program instantiation)', () => {
  const programError = (source: string): string => {
    try {
      env.compile(source);
    } catch (error) {
      if (error instanceof ProgramError) return error.message;
      throw error;
    }
    return '';
  };
  assert.equal(programError('uint(-1) == 1u'), 'unsigned integer overflow');
  assert.equal(programError('timestamp("yesterday") > timestamp("2024-01-01T00:00:00Z")'), "type conversion error from 'string' to 'google.protobuf.Timestamp'");
  assert.equal(programError('s.matches(")")'), 'error parsing regexp: unexpected ): `)`');
  assert.equal(programError('s.findAll("[", 2).size() == 0'), 'error parsing regexp: missing closing ]: `[`');
  // Not constant: left for runtime.
  assert.equal(programError('uint(i) == 1u && s.matches(s)'), '');
  // Without the optimizations (cel-go's conformance runs) the same fail at runtime.
  const plain = new CelEnvironment(new Map(), { optimize: false });
  assert.deepEqual(plain.compile('uint(-1)').evaluate({}, PER_CALL_LIMIT).value, new ErrorValue('unsigned integer overflow'));
});

test('evaluate: `in` a list of constant scalars is a set lookup, numbers across their types, at no cost', () => {
  const run = (source: string) => env.compile(source).evaluate(activation, PER_CALL_LIMIT);
  assert.deepEqual(run('i in [1, 7, 9]'), { value: true, cost: 1, cancelled: false, interrupted: false });
  assert.deepEqual(run('dyn(7.0) in [1, 7]'), { value: true, cost: 0, cancelled: false, interrupted: false });
  assert.deepEqual(run('s in ["a", "b"]'), { value: false, cost: 1, cancelled: false, interrupted: false });
  // Not all scalars (or not constant): the ordinary `in`, costing the list's size.
  assert.deepEqual(run('i in [1, i]'), { value: true, cost: 44, cancelled: false, interrupted: false });
  // An empty list is false without reading its left side.
  assert.deepEqual(run('(1 / 0 == 1) in []'), { value: false, cost: 0, cancelled: false, interrupted: false });
});

test('compile: Kubernetes refuses a literal of mixed types, where cel-go by default makes it dyn', () => {
  assert.throws(() => env.compile('[1, "a"].size() == 2'), (e: Error) => e.message.startsWith("ERROR: <input>:1:5: expected type 'int' but found 'string'"));
  assert.throws(() => env.compile('{"a": 1, "b": true}.size() == 2'), /expected type 'int' but found 'bool'/);
  const lenient = new CelEnvironment(new Map(), { homogeneousAggregateLiterals: false });
  assert.equal(lenient.compile('[1, "a"].size()').evaluate({}, PER_CALL_LIMIT).value, 2n);
});
