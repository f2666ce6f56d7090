// The conformance runner's own parts: the text format reader, value comparison, and that a case
// whose expectation is wrong fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArrayList, LiteralMap, UInt } from '../values.js';
import { runSimpleTest, sameValue } from './run.js';
import { readSimpleTests, type SimpleTest } from './simple-tests.js';
import { parseTextProto } from './textproto.js';

test('textproto: fields, nested messages, lists, comments and escaped strings', () => {
  const m = parseTextProto(`
    name: "a" # a comment
    section { test: { expr: 'b\\'\\303\\251\\x41\\u00e9' "\\n" } }
    section < test { expr: "2" } >
    nums: [1, -2.5e3, inf]
    [type.googleapis.com/x] { seconds: 3 }
  `);
  assert.equal(m.string('name'), 'a');
  assert.deepEqual(
    m.messages('section').map((s) => s.message('test')!.string('expr')),
    ["b'éAé\n", '2'],
  );
  assert.deepEqual(
    m.all('nums').map((v) => (v.kind === 'number' || v.kind === 'identifier' ? v.text : '?')),
    ['1', '-2.5e3', 'inf'],
  );
  assert.equal(m.message('[type.googleapis.com/x]')!.token('seconds'), '3');
  assert.throws(() => parseTextProto('name "unterminated'), /line 1/);
});

test('conformance: values match exactly, by type, maps in any order', () => {
  assert.ok(sameValue(1n, 1n));
  assert.ok(!sameValue(1n, new UInt(1n)));
  assert.ok(!sameValue(1n, 1));
  assert.ok(sameValue(NaN, NaN));
  assert.ok(!sameValue(0, -0));
  assert.ok(sameValue(new LiteralMap([['a', 1n], ['b', 2n]]), new LiteralMap([['b', 2n], ['a', 1n]])));
  assert.ok(!sameValue(new ArrayList([1n, 2n]), new ArrayList([2n, 1n])));
});

test('conformance: a case fails when the value, the error or the check is not as expected', () => {
  const [wrong, error, checked, passing] = readSimpleTests(
    'f',
    `section { name: "s"
       test { name: "wrong" expr: "1 + 1" value: { int64_value: 3 } }
       test { name: "error" expr: "1 / 0" value: { int64_value: 0 } }
       test { name: "check" expr: "x + 1" value: { int64_value: 2 } }
       test { name: "ok" expr: "x + 1" type_env { name: "x" ident { type { primitive: INT64 } } }
              bindings { key: "x" value { value { int64_value: 1 } } } value: { int64_value: 2 } } }`,
  ) as SimpleTest[];
  assert.equal(wrong!.id, 'f/s/wrong');
  assert.match(runSimpleTest(wrong!).detail!, /got 2, want 3/);
  assert.match(runSimpleTest(error!).detail!, /got error\(division by zero\)/);
  assert.match(runSimpleTest(checked!).detail!, /check: .*undeclared reference to 'x'/);
  assert.deepEqual(runSimpleTest(passing!), { passed: true });
});
