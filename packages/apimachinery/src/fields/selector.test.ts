import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SelectorParseError } from '../selector-parse-error.js';
import { parseFieldSelector } from './selector.js';

// Upstream's fields/selector_test.go: the text, its canonical string, and its requirements.
const parses: { text: string; want: string; requirements?: [string, '=' | '!=', string][] }[] = [
  { text: '', want: '', requirements: [] },
  { text: 'a=b', want: 'a=b', requirements: [['a', '=', 'b']] },
  { text: 'a==b', want: 'a=b', requirements: [['a', '=', 'b']] },
  { text: 'a!=b', want: 'a!=b', requirements: [['a', '!=', 'b']] },
  { text: 'a=', want: 'a=', requirements: [['a', '=', '']] },
  { text: 'x=a,y=b,z=c', want: 'x=a,y=b,z=c' },
  { text: 'z=c,y=b,x=a', want: 'x=a,y=b,z=c' },
  { text: 'x=a,,y=b', want: 'x=a,y=b' },
  { text: 'metadata.name=web,status.phase!=Running', want: 'metadata.name=web,status.phase!=Running' },
  { text: 'x=a\\,b', want: 'x=a\\,b', requirements: [['x', '=', 'a,b']] },
  { text: 'x=a\\=b', want: 'x=a\\=b', requirements: [['x', '=', 'a=b']] },
  { text: 'x=a\\\\b', want: 'x=a\\\\b', requirements: [['x', '=', 'a\\b']] },
  { text: 'x!=\\,', want: 'x!=\\,', requirements: [['x', '!=', ',']] },
  { text: 'x=a b', want: 'x=a b', requirements: [['x', '=', 'a b']] },
  { text: ' x = a ', want: ' x = a ', requirements: [[' x ', '=', ' a ']] },
  { text: 'x=!a', want: 'x=!a', requirements: [['x', '=', '!a']] },
  // A term with no field and no value selects everything, as upstream's transform drops it.
  { text: '=', want: '', requirements: [] },
  { text: '!=', want: '', requirements: [] },
  { text: '=a', want: '=a', requirements: [['', '=', 'a']] },
];

for (const { text, want, requirements } of parses) {
  test(`field selector parse: ${JSON.stringify(text)}`, () => {
    const selector = parseFieldSelector(text);
    assert.equal(selector.toString(), want);
    if (requirements) {
      assert.deepEqual(
        selector.requirements,
        requirements.map(([field, operator, value]) => ({ field, operator, value })),
      );
    }
  });
}

const errors: { text: string; want: string }[] = [
  { text: 'abc', want: "invalid selector: 'abc'; can't understand 'abc'" },
  { text: 'a=b,abc', want: "invalid selector: 'a=b,abc'; can't understand 'abc'" },
  { text: 'a=b=c', want: 'invalid field selector: unescaped character in value: 61' },
  { text: 'a===b', want: 'invalid field selector: unescaped character in value: 61' },
  { text: 'a=\\x', want: 'invalid field selector: invalid escape sequence: \\x' },
  { text: 'a=b\\', want: 'invalid field selector: invalid escape sequence: \\' },
];

for (const { text, want } of errors) {
  test(`field selector error: ${JSON.stringify(text)}`, () => {
    assert.throws(() => parseFieldSelector(text), (error: unknown) => {
      assert.ok(error instanceof SelectorParseError);
      assert.equal(error.message, want);
      return true;
    });
  });
}

const fields = { 'metadata.name': 'web', 'metadata.namespace': 'default', 'status.phase': '' };
const matches: { text: string; want: boolean }[] = [
  { text: '', want: true },
  { text: 'metadata.name=web', want: true },
  { text: 'metadata.name==web', want: true },
  { text: 'metadata.name=db', want: false },
  { text: 'metadata.name!=db', want: true },
  { text: 'metadata.name=web,metadata.namespace=default', want: true },
  { text: 'metadata.name=web,metadata.namespace=kube-system', want: false },
  { text: 'status.phase=', want: true },
  // A field the object lacks compares as "".
  { text: 'spec.nodeName=', want: true },
  { text: 'spec.nodeName!=', want: false },
  { text: 'spec.nodeName=a', want: false },
];

for (const { text, want } of matches) {
  test(`field selector matches: ${JSON.stringify(text)}`, () => assert.equal(parseFieldSelector(text).matches(fields), want));
}

test('field selector: empty and requiresExactMatch', () => {
  assert.equal(parseFieldSelector('').empty, true);
  assert.equal(parseFieldSelector('=').empty, true);
  assert.equal(parseFieldSelector('a=').empty, false);
  const selector = parseFieldSelector('metadata.namespace!=x,metadata.name=web\\,1,metadata.namespace=default');
  assert.equal(selector.requiresExactMatch('metadata.name'), 'web,1');
  assert.equal(selector.requiresExactMatch('metadata.namespace'), 'default');
  assert.equal(selector.requiresExactMatch('spec.nodeName'), undefined);
  assert.equal(parseFieldSelector('a!=b').requiresExactMatch('a'), undefined);
});
