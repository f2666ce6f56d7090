// Expressions built to hold the event loop: results far larger than their inputs (stopped by cost
// before they are built), work the cost model does not see (stopped by the clock), and library
// searches and set operations that must stay linear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelEnvironment } from './environment.js';
import { EXPRESSION_TIME_LIMIT_MS, ExpressionTimer, INTERRUPTED } from './interrupt.js';
import { PER_CALL_LIMIT } from './limits.js';
import { schemaDeclType, type SchemaNode } from './schema-types.js';
import { valueOf } from './schema-values.js';
import { IntType, StringType, listOf, DynType } from './types.js';
import { ArrayList, ErrorValue, type Value } from './values.js';

const COST_MESSAGE = 'operation cancelled: actual cost limit exceeded';

const env = new CelEnvironment(
  new Map([
    ['s', StringType],
    ['t', StringType],
    ['n', IntType],
    ['l', listOf(StringType)],
    ['a', listOf(IntType)],
    ['b', DynType],
    ['c', DynType],
  ]),
);

/** Runs `source`, with how long it took and how much the heap grew. */
/**
 * An evaluation's outcome, the time it ran and what it grew the heap by. The time is the process's
 * CPU time, as the bound counts it: on a machine other processes keep busy, the wall clock also
 * counts the time this one was not running.
 */
function measure(compiledEnv: CelEnvironment, source: string, activation: Record<string, Value>, timer?: ExpressionTimer) {
  const compiled = compiledEnv.compile(source);
  const heap = process.memoryUsage().heapUsed;
  const started = process.cpuUsage();
  const result = compiled.evaluate(activation, PER_CALL_LIMIT, timer);
  const ran = process.cpuUsage(started);
  return { ...result, ms: (ran.user + ran.system) / 1000, heapGrowth: process.memoryUsage().heapUsed - heap };
}

// The probe's rule, as a CRD declares it: `s` of maxLength 100,000.
const crdSchema: SchemaNode = { type: 'object', properties: { s: { type: 'string', maxLength: 100_000 } } } as SchemaNode;
const crdEnv = new CelEnvironment(new Map([['self', schemaDeclType(crdSchema, false)!.type]]));

for (const length of [20_000, 100_000]) {
  test(`replace: a rule squaring a ${length}-character string is stopped by cost before the result is built`, () => {
    const self = valueOf({ s: 'a'.repeat(length) }, crdSchema);
    const result = measure(crdEnv, "self.s.replace('a', self.s).size() > 0", { self });
    assert.deepEqual(result.value, new ErrorValue(COST_MESSAGE));
    assert.equal(result.cancelled, true);
    // Building it took 2 s and 370 MiB at 20,000 characters; at 100,000 V8 cannot hold it.
    assert.ok(result.ms < 50, `${result.ms.toFixed(1)} ms`);
    assert.ok(result.heapGrowth < 50 * 1024 * 1024, `${(result.heapGrowth / 1048576).toFixed(0)} MiB`);
  });
}

// [source, s, cost]: Kubernetes 1.28's ceil(len x 0.2) while the result is no longer than the
// input; past that, the construction is charged by the result's length: ceil((len + result) x 0.1).
// Each expression also reads s (1).
const replaceCosts: [string, string, number][] = [
  ["s.replace('a', 'b')", 'a'.repeat(100), 1 + 20],
  ["s.replace('aa', 'b')", 'a'.repeat(100), 1 + 20],
  ["s.replace('x', 'yyyy')", 'a'.repeat(100), 1 + 20],
  ["s.replace('a', 'bb')", 'a'.repeat(100), 1 + 30],
  ["s.replace('a', 'bb', 10)", 'a'.repeat(100), 1 + 21],
  ["s.replace('', 'x')", 'a'.repeat(100), 1 + 31],
  ["s.replace('a', 'bb', 0)", 'a'.repeat(100), 1 + 20],
  // Sizes are code points, as cel-go's.
  ["s.replace('😀', '😀😀')", '😀'.repeat(10), 1 + 3],
];

for (const [source, s, cost] of replaceCosts) {
  test(`replace cost: ${source} over ${s.length} UTF-16 units`, () => {
    assert.equal(env.compile(source).evaluate({ s }, PER_CALL_LIMIT).cost, cost);
  });
}

test('replace: results are Go strings.Replace results', () => {
  const run = (source: string, s: string): Value => env.compile(source).evaluate({ s }, PER_CALL_LIMIT).value;
  assert.equal(run("s.replace('a', 'bc')", 'banana'), 'bbcnbcnbc');
  assert.equal(run("s.replace('a', 'bc', 2)", 'banana'), 'bbcnbcna');
  assert.equal(run("s.replace('', '-')", 'a😀b'), '-a-😀-b-');
  assert.equal(run("s.replace('', '-', 2)", 'ab'), '-a-b');
  assert.equal(run("s.replace('aa', 'a')", 'aaaaa'), 'aaa');
});

test('join: a result past the limit is stopped before it is built; within it, 1.28 charges result length x 0.2', () => {
  const l = new ArrayList(Array<Value>(20_000).fill('a'.repeat(1_000)));
  const big = measure(env, "l.join(s).size() > 0", { l, s: 'b'.repeat(1_000) });
  assert.equal(big.cancelled, true);
  assert.ok(big.ms < 100, `${big.ms.toFixed(1)} ms`);
  assert.ok(big.heapGrowth < 50 * 1024 * 1024, `${(big.heapGrowth / 1048576).toFixed(0)} MiB`);
  // 'a-b-c' is 5 code points: ceil(5 x 0.2) = 1, and reading l 1.
  const small = env.compile("l.join('-')").evaluate({ l: new ArrayList(['a', 'b', 'c']) }, PER_CALL_LIMIT);
  assert.deepEqual([small.value, small.cost], ['a-b-c', 2]);
});

test('matches: a pattern too costly to match is never compiled', () => {
  // 3,000,000 characters against themselves: the cost is known from the sizes, the regular
  // expression never built (re2js takes 7.8 s to find it too large).
  const s = 'a'.repeat(3_000_000);
  const result = measure(env, 's.matches(t)', { s, t: s });
  assert.equal(result.cancelled, true);
  assert.ok(result.ms < 1_000, `${result.ms.toFixed(1)} ms`);
});

test('interruption: a comprehension stops at its next clock reading once its group is interrupted', () => {
  const a = new ArrayList(Array.from({ length: 1_000 }, (_, i) => BigInt(i)));
  const timer = new ExpressionTimer();
  timer.expire();
  const result = env.compile('a.all(x, x >= 0)').evaluate({ a }, PER_CALL_LIMIT, timer);
  assert.deepEqual(result.value, new ErrorValue(INTERRUPTED));
  assert.equal(result.interrupted, true);
  assert.equal(result.cancelled, false);
  assert.ok(result.cost < 100, 'stopped within a few steps');
  // An expression of a few steps never reads the clock: it completes, as in cel-go, which checks
  // only in comprehensions.
  assert.equal(env.compile('n + 1 == 2').evaluate({ n: 1n }, PER_CALL_LIMIT, timer).value, true);
});

test(`interruption: work the cost does not see is stopped at the time bound (${EXPRESSION_TIME_LIMIT_MS} ms beyond what its cost accounts for)`, () => {
  // Comparing two lists costs by their lengths (10 here), whatever their items hold: 10 lists of
  // 20,000 items on each side, compared for each of 100,000 items: minutes of comparisons for a
  // cost of a few hundred thousand.
  const inner = () => new ArrayList(Array<Value>(20_000).fill(1n));
  const b = new ArrayList(Array.from({ length: 10 }, inner));
  const c = new ArrayList(Array.from({ length: 10 }, inner));
  const a = new ArrayList(Array<Value>(100_000).fill(1n));
  const result = measure(env, 'a.all(x, b == c)', { a, b, c });
  assert.equal(result.interrupted, true);
  assert.deepEqual(result.value, new ErrorValue(INTERRUPTED));
  assert.ok(result.cost < PER_CALL_LIMIT);
  assert.ok(result.ms < EXPRESSION_TIME_LIMIT_MS + 800, `${result.ms.toFixed(0)} ms`);
});

test('interruption: work the cost sees is stopped by the cost limit, as upstream stops it, not by the clock', () => {
  // 1,000,000 iterations of a cheap step: 20 to 200 ms, under the 100 ms + 2 us a unit it accounts for.
  const a = new ArrayList(Array.from({ length: 1_000 }, (_, i) => BigInt(i)));
  const result = env.compile('a.all(x, a.all(y, y >= 0))').evaluate({ a }, PER_CALL_LIMIT);
  assert.equal(result.cancelled, true);
  assert.equal(result.interrupted, false);
});

test('interruption: the clock is read within one long comparison, not only between steps', () => {
  // One step: 1,000 lists of 20,000 items on each side (20,000,000 comparisons, cost 100).
  const one = new ArrayList(Array<Value>(20_000).fill(1n));
  const other = new ArrayList(Array<Value>(20_000).fill(1n));
  const b = new ArrayList(Array<Value>(1_000).fill(one));
  const c = new ArrayList(Array<Value>(1_000).fill(other));
  const result = measure(env, 'b == c', { b, c }, new ExpressionTimer(20));
  assert.equal(result.interrupted, true);
});

test('findAll: an empty pattern costs nothing (as upstream) and matches between every character: the clock stops it', () => {
  const result = measure(env, "s.findAll('').size() > 0", { s: 'ab'.repeat(1_500_000) });
  assert.equal(result.interrupted, true);
  assert.ok(result.ms < EXPRESSION_TIME_LIMIT_MS + 800, `${result.ms.toFixed(0)} ms`);
});

test('strings: searches stay linear, on long adversarial patterns too', () => {
  const s = 'a'.repeat(1_000_000);
  const t = `${'a'.repeat(200_000)}b`;
  // V8's own lastIndexOf takes 48 s on this pair (cel-go's loop compares as naively).
  for (const source of ['s.lastIndexOf(t)', 's.indexOf(t)', 's.lastIndexOf(t, 500000)', 's.indexOf(t, 10)']) {
    const result = measure(env, source, { s, t });
    assert.equal(result.value, -1n, source);
    assert.ok(result.ms < 1_000, `${source}: ${result.ms.toFixed(0)} ms`);
  }
});

// Indexes count code points; the searches run on UTF-16 units and convert.
const stringCases: [string, string, Value][] = [
  ['s.indexOf("b")', 'a😀b😀b', 2n],
  ['s.indexOf("b", 3)', 'a😀b😀b', 4n],
  ['s.indexOf("😀", 2)', 'a😀b😀b', 3n],
  ['s.indexOf("")', 'a😀b', 0n],
  ['s.indexOf("", 2)', 'a😀b', 2n],
  ['s.lastIndexOf("b")', 'a😀b😀b', 4n],
  ['s.lastIndexOf("b", 3)', 'a😀b😀b', 2n],
  ['s.lastIndexOf("😀b")', 'a😀b😀b', 3n],
  ['s.lastIndexOf("😀b", 2)', 'a😀b😀b', 1n],
  ['s.lastIndexOf("")', 'a😀b', 3n],
  ['s.lastIndexOf("x")', 'a😀b', -1n],
  ['s.lastIndexOf("abc")', 'ab', -1n],
  ['s.charAt(1)', 'a😀b', '😀'],
  ['s.charAt(2)', 'a😀b', 'b'],
  ['s.charAt(3)', 'a😀b', ''],
  ['s.substring(1, 2)', 'a😀b', '😀'],
  ['s.substring(1)', 'a😀b😀', '😀b😀'],
  ['s.charAt(4)', 'a😀b', new ErrorValue('index out of range: 4')],
  ['s.indexOf("a", 4)', 'a😀b', new ErrorValue('index out of range: 4')],
  ['s.lastIndexOf("a", -1)', 'a😀b', new ErrorValue('index out of range: -1')],
];

for (const [source, s, expected] of stringCases) {
  test(`strings: ${source} of ${JSON.stringify(s)}`, () => {
    assert.deepEqual(env.compile(source).evaluate({ s }, PER_CALL_LIMIT).value, expected);
  });
}

test('set lists: + and == are linear in their lengths, as upstream looks elements up by key', () => {
  const schema = { type: 'array', items: { type: 'integer' }, 'x-kubernetes-list-type': 'set' } as SchemaNode;
  const setEnv = new CelEnvironment(new Map([['self', schemaDeclType(schema, false)!.type]]));
  const self = valueOf(Array.from({ length: 100_000 }, (_, i) => i), schema);
  // Each was 10,000,000,000 comparisons. A timer of a minute: this is about the algorithm, not the clock.
  const result = measure(setEnv, '(self + self).size() == self.size() && self + [100000] != self && self == self + []', { self }, new ExpressionTimer(60_000));
  assert.equal(result.value, true);
  assert.ok(result.ms < 5_000, `${result.ms.toFixed(0)} ms`);
  const union = setEnv.compile('self + [1, 7, 1]').evaluate({ self: valueOf([1, 2], schema) }, PER_CALL_LIMIT).value as ArrayList;
  assert.deepEqual([...union.values()], [1n, 2n, 7n]);
});
