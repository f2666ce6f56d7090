// Rules run on custom resource data (upstream's validation_test.go in behaviour: TestValidationExpressions,
// TestCELValidationLimit, TestMessageExpression, TestReasonAndFldPath): results, messages, reasons,
// field paths, transition rules, budgets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPath } from '@plat/apimachinery';
import { ExpressionTimer } from '@plat/cel';
import type { JSONSchemaProps, ValidationRule } from '../types.js';
import { RuleValidator, ruleErrors } from './validator.js';

const object = (properties: Record<string, JSONSchemaProps>, rules: ValidationRule[] = []): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...(rules.length && { 'x-kubernetes-validations': rules }),
});

function errorsOf(schema: JSONSchemaProps, data: unknown, old?: unknown, budget?: number, timer?: ExpressionTimer): string[] {
  return RuleValidator.build(schema, false)!
    .validate(newPath('root'), data, old, budget, timer)
    .errors.map(String);
}

const scalars = object({
  i: { type: 'integer' },
  d: { type: 'number' },
  s: { type: 'string' },
  b: { type: 'boolean' },
  ts: { type: 'string', format: 'date-time' },
  dur: { type: 'string', format: 'duration' },
  bytes: { type: 'string', format: 'byte' },
  ios: { 'x-kubernetes-int-or-string': true },
  list: { type: 'array', items: { type: 'integer' } },
  set: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
  map: { type: 'object', additionalProperties: { type: 'string' } },
  nullable: { type: 'string', nullable: true },
});
const data = {
  i: 9007199254740991,
  d: 1.5,
  s: 'hello',
  b: true,
  ts: '2024-05-01T12:00:00Z',
  dur: '1h30m',
  bytes: 'aGk=',
  ios: '50%',
  list: [1, 2, 3],
  set: ['x', 'y'],
  map: { k: 'v' },
  nullable: null,
};

// Rules that hold on `data` (upstream's "valid" lists, in kind).
const valid = [
  'self.i == 9007199254740991',
  'self.i + 1 > self.i',
  'self.d > 1.0 && self.d < 2.0',
  'self.s.size() == 5 && self.s.startsWith("he") && self.s.matches("^h.*o$")',
  'self.b',
  'self.ts == timestamp("2024-05-01T12:00:00Z") && self.ts.getMonth() == 4',
  'self.dur == duration("90m") && self.dur.getMinutes() == 90',
  'self.bytes == b"hi"',
  'type(self.ios) == string && self.ios.endsWith("%")',
  'self.list.all(x, x > 0) && self.list.exists(x, x == 2) && self.list.sum() == 6',
  'self.set == ["y", "x"]',
  'self.map.k == "v" && "k" in self.map',
  'has(self.nullable) == false',
  'self.s.split("l") == ["he", "", "o"]',
];
for (const rule of valid) {
  test(`rules: holds: ${rule}`, () => assert.deepEqual(errorsOf(object(scalars.properties!, [{ rule }]), data), []));
}

test('rules: a failing rule, with its message or the rule itself', () => {
  const schema = object({ x: { type: 'integer' } }, [{ rule: 'self.x > 10' }, { rule: 'self.x > 20', message: ' x must exceed 20 ' }]);
  assert.deepEqual(errorsOf(schema, { x: 5 }), ['root: Invalid value: "object": failed rule: self.x > 10', 'root: Invalid value: "object": x must exceed 20']);
});

test('rules: runtime errors are field errors naming the rule', () => {
  const schema = object({ x: { type: 'integer' }, list: { type: 'array', items: { type: 'integer' } }, ios: { 'x-kubernetes-int-or-string': true } }, [
    { rule: 'self.x / 0 == 1' },
    { rule: 'self.list[5] == 1' },
    { rule: 'self.ios + 1 > 0' },
  ]);
  assert.deepEqual(errorsOf(schema, { x: 1, list: [1], ios: 'a' }), [
    'root: Invalid value: "object": division by zero evaluating rule: self.x / 0 == 1',
    'root: Invalid value: "object": index out of bounds: 5 evaluating rule: self.list[5] == 1',
    "root: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.ios + 1 > 0",
  ]);
});

test('rules: rules at every level see their own self, at their own path', () => {
  const schema = object(
    {
      spec: object({ n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 3' }] } }, [{ rule: 'self.n != 2' }]),
      items: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != "bad"' }] } },
      labels: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 3' }] } },
    },
    [{ rule: 'has(self.spec)' }],
  );
  assert.deepEqual(errorsOf(schema, { spec: { n: 5 }, items: ['ok', 'bad'], labels: { a: 'long' } }), [
    'root.spec.n: Invalid value: "integer": failed rule: self < 3',
    'root.items[1]: Invalid value: "string": failed rule: self != "bad"',
    'root.labels[a]: Invalid value: "string": failed rule: self.size() < 3',
  ]);
});

test('rules: transition rules run only with an old value, and pair map list items by key', () => {
  const schema = object({ replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'cannot decrease' }] } });
  assert.deepEqual(errorsOf(schema, { replicas: 9 }), []);
  assert.deepEqual(errorsOf(schema, { replicas: 9 }, { replicas: 10 }), ['root.replicas: Invalid value: "integer": cannot decrease']);
  const items = object({ name: { type: 'string' }, v: { type: 'integer' } }, [{ rule: 'self.v >= oldSelf.v' }]);
  const list = object({ l: { type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } });
  const old = { l: [{ name: 'a', v: 5 }, { name: 'b', v: 5 }] };
  assert.deepEqual(errorsOf(list, { l: [{ name: 'b', v: 4 }, { name: 'a', v: 6 }, { name: 'c', v: 0 }] }, old), ['root.l[0]: Invalid value: "object": failed rule: self.v >= oldSelf.v']);
});

test('rules: reason and fieldPath choose the error type and where it is reported (TestReasonAndFldPath)', () => {
  const inner = (reason?: ValidationRule['reason'], fieldPath?: string): JSONSchemaProps =>
    object({ f: object({ m: { type: 'integer' } }, [{ rule: 'self.m == 2', ...(reason && { reason }), ...(fieldPath && { fieldPath }) }]) }, [{ rule: '1 == 1' }]);
  assert.deepEqual(errorsOf(inner('FieldValueForbidden'), { f: { m: 1 } }), ['root.f: Forbidden: failed rule: self.m == 2']);
  assert.deepEqual(errorsOf(inner(), { f: { m: 1 } }), ['root.f: Invalid value: "object": failed rule: self.m == 2']);
  assert.deepEqual(errorsOf(inner('FieldValueForbidden', '.m'), { f: { m: 1 } }), ['root.f.m: Forbidden: failed rule: self.m == 2']);
  assert.deepEqual(errorsOf(inner('FieldValueRequired'), { f: { m: 1 } }), ['root.f: Required value: failed rule: self.m == 2']);
  assert.deepEqual(errorsOf(inner('FieldValueDuplicate'), { f: { m: 1 } }), ['root.f: Duplicate value: "object"']);
});

// TestMessageExpression: a rule that always fails, on {str: "a string"}.
function messageCase(messageExpression: string, message = '', budget = 10_000_000, perCallLimit?: number): { errors: string[]; remaining: number } {
  const schema = object({ str: { type: 'string' } }, [{ rule: 'false', messageExpression, ...(message && { message }) }]);
  const outcome = RuleValidator.build(schema, false, perCallLimit)!.validate(newPath('root'), { str: 'a string' }, undefined, budget);
  return { errors: outcome.errors.map(String), remaining: outcome.remaining };
}

test('messageExpression: its string is the message, before message', () => {
  assert.deepEqual(messageCase('"static string"', '', 300), { errors: ['root: Invalid value: "object": static string'], remaining: 300 });
  assert.deepEqual(messageCase('"this is messageExpression"', 'invisible').errors, ['root: Invalid value: "object": this is messageExpression']);
});

test('messageExpression: its cost comes out of the budget', () => {
  // "str1 " + self.str: self 1, .str 1, + over 13 characters 2.
  assert.deepEqual(messageCase('"str1 " + self.str', '', 50), { errors: ['root: Invalid value: "object": str1 a string'], remaining: 46 });
  assert.deepEqual(messageCase('"string 1" + "string 2" + "string 3"', '', 1), {
    errors: ['root: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'],
    remaining: -1,
  });
  assert.deepEqual(messageCase('"string 1" + "string 2" + "string 3"', '', 10_000_000, 1), {
    errors: ['root: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: "\\"string 1\\" + \\"string 2\\" + \\"string 3\\""'],
    remaining: -1,
  });
});

test('messageExpression: an unusable message falls back to the rule\'s', () => {
  const fallback = ['root: Invalid value: "object": message not messageExpression'];
  // Its cost is kept though it failed: 3, as upstream (the constant list costs nothing, computed
  // ahead of time; the index 1 and its attribute 1; the + on "str1 " and the error 1).
  assert.deepEqual(messageCase('"str1 " + ["a", "b", "c", "d"][4]', 'message not messageExpression', 50), { errors: fallback, remaining: 47 });
  assert.deepEqual(messageCase('"str1 " + ["a", "b", "c", "d"][4]', '', 50), { errors: ['root: Invalid value: "object": failed rule: false'], remaining: 47 });
  // Not a string: the messageExpression does not compile, and the rule's message stands, at no cost.
  assert.deepEqual(messageCase('true'), { errors: ['root: Invalid value: "object": failed rule: false'], remaining: 10_000_000 });
  assert.deepEqual(messageCase('string("")', 'message not messageExpression').errors, fallback);
  assert.deepEqual(messageCase('"str with \\na newline"', 'message not messageExpression').errors, fallback);
  assert.deepEqual(messageCase(`"${'a'.repeat(5121)}"`, 'message not messageExpression').errors, fallback);
  assert.deepEqual(messageCase('string("     ")', 'message not messageExpression').errors, fallback);
});

test('budget: an exhausted budget stops validation with one error (TestCELValidationLimit)', () => {
  const schema = object({ val1: { type: 'integer' } }, [{ rule: 'self.val1 > 0' }]);
  assert.deepEqual(errorsOf(schema, { val1: 1 }, undefined, 0), ['root: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run']);
  const outcome = RuleValidator.build(schema, false, 0)!.validate(newPath('root'), { val1: 1 }, undefined);
  assert.deepEqual(outcome.errors.map(String), [
    "root: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.val1 > 0",
  ]);
});

test('budget: a nested all over 725 items passes the per-call limit at runtime', () => {
  const items = { type: 'array', maxItems: 725, items: { type: 'array', maxItems: 725, items: { type: 'string' } } } as JSONSchemaProps;
  const schema = object({ a: items }, [{ rule: 'self.a.all(x, x.all(y, y == "x"))' }]);
  const row = Array.from({ length: 725 }, () => 'x');
  // A timer of a minute: the cost, not the clock, stops it, however cold or loaded the process.
  const [error] = errorsOf(schema, { a: Array.from({ length: 725 }, () => row) }, undefined, undefined, new ExpressionTimer(60_000));
  assert.match(error!, /call cost exceeds limit for rule: self\.a\.all/);
});

test('time: a rule that runs out of time fails as upstream\'s does when its context is done, and so do the object\'s later rules', () => {
  // Comparing b and c costs by their lengths (10), not by the 200,000 items they hold: for each
  // of a's 100,000 items, minutes in all for a cost far below the limit.
  const lists = { type: 'array', items: { type: 'array', items: { type: 'integer' } } } as JSONSchemaProps;
  const schema = object({ a: { type: 'array', items: { type: 'integer' } }, b: lists, c: lists }, [
    { rule: 'self.a.all(x, self.b == self.c)' },
    { rule: 'self.a.exists(x, x < 0) == false' },
    { rule: 'self.b.size() == 10', message: 'a rule of a few steps still runs' },
    { rule: 'self.b.size() == 11', message: 'and still fails' },
  ]);
  const inner = Array<number>(20_000).fill(1);
  const data = { a: Array<number>(100_000).fill(1), b: Array.from({ length: 10 }, () => inner), c: Array.from({ length: 10 }, () => inner) };
  // The bound is on the process's CPU time (as the time bound's own clock), which a busy machine does not stretch.
  const cpuMs = (): number => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };
  const started = cpuMs();
  const errors = errorsOf(schema, data);
  const elapsed = cpuMs() - started;
  assert.deepEqual(errors, [
    'root: Invalid value: "object": operation interrupted evaluating rule: self.a.all(x, self.b == self.c)',
    'root: Invalid value: "object": operation interrupted evaluating rule: self.a.exists(x, x < 0) == false',
    'root: Invalid value: "object": and still fails',
  ]);
  assert.ok(elapsed < 2_000, `${elapsed.toFixed(0)} ms of CPU`);
});

test('time: a messageExpression that runs out of time leaves the rule\'s own message', () => {
  const schema = object({ a: { type: 'array', items: { type: 'integer' } } }, [
    { rule: 'false', message: 'the rule\'s message', messageExpression: 'self.a.all(x, x > 0) ? "all positive" : "not"' },
  ]);
  const timer = new ExpressionTimer();
  timer.expire();
  assert.deepEqual(errorsOf(schema, { a: Array<number>(1_000).fill(1) }, undefined, undefined, timer), ['root: Invalid value: "object": the rule\'s message']);
});

test('schema errors that block rules: rules are skipped, with upstream\'s note', () => {
  const validator = RuleValidator.build(object({ x: { type: 'integer' } }, [{ rule: 'self.x > 0' }]), true);
  const blocking = [{ type: 'FieldValueTypeInvalid' }] as never;
  assert.deepEqual(ruleErrors(validator, blocking, { x: 'a' }, undefined).map(String), [
    '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  ]);
  assert.deepEqual(ruleErrors(validator, [], { x: -1 }, undefined).map(String), ['<nil>: Invalid value: "object": failed rule: self.x > 0']);
});
