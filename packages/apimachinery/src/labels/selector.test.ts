import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SelectorParseError } from '../selector-parse-error.js';
import { labelSelectorFromObject, type LabelSelectorObject } from './from-object.js';
import { parseLabelSelector } from './selector.js';

const keyMessage =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

// Upstream's selector_test.go: the text, and the canonical string it parses to.
const parses: { text: string; want: string }[] = [
  { text: '', want: '' },
  { text: '  ', want: '' },
  { text: 'x=a', want: 'x=a' },
  { text: 'x=a,y=b,z=c', want: 'x=a,y=b,z=c' },
  { text: 'z=c,y=b,x=a', want: 'x=a,y=b,z=c' },
  { text: 'x==a', want: 'x==a' },
  { text: 'x!=a', want: 'x!=a' },
  { text: 'x=', want: 'x=' },
  { text: 'x= ', want: 'x=' },
  { text: 'x=,z= ', want: 'x=,z=' },
  { text: 'x in (a)', want: 'x in (a)' },
  { text: 'x in(a)', want: 'x in (a)' },
  { text: 'x in (b,a,a)', want: 'x in (a,b)' },
  { text: 'x in (foo,,baz),y,z notin ()', want: 'x in (,baz,foo),y,z notin ()' },
  { text: 'x notin (a, b)', want: 'x notin (a,b)' },
  { text: 'x in (,)', want: 'x in ()' },
  { text: 'x in (a,)', want: 'x in (,a)' },
  { text: 'x', want: 'x' },
  { text: '!x', want: '!x' },
  { text: ' !x , y ', want: '!x,y' },
  { text: 'x>1', want: 'x>1' },
  { text: 'in in (in)', want: 'in in (in)' },
  { text: 'notin notin (in, notin)', want: 'notin notin (in,notin)' },
  { text: 'x=a\t,\ny=b', want: 'x=a,y=b' },
  { text: 'example.com/tier=front_end.1', want: 'example.com/tier=front_end.1' },
  { text: 'b=1,a=2,b!=3', want: 'a=2,b=1,b!=3' },
];

for (const { text, want } of parses) test(`parse: ${JSON.stringify(text)}`, () => assert.equal(parseLabelSelector(text).toString(), want));

test('parse: requirements carry the operator and sorted, deduplicated values', () => {
  assert.deepEqual(parseLabelSelector('z notin (b,a,b),!y,x>3,w==v').requirements, [
    { key: 'w', operator: '==', values: ['v'] },
    { key: 'x', operator: 'gt', values: ['3'] },
    { key: 'y', operator: '!', values: [] },
    { key: 'z', operator: 'notin', values: ['a', 'b'] },
  ]);
  assert.deepEqual(parseLabelSelector('a').requirements, [{ key: 'a', operator: 'exists', values: [] }]);
});

const errors: { text: string; want: string }[] = [
  { text: 'x=a||y=b', want: `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueMessage}` },
  { text: 'x a', want: "unable to parse requirement: found 'a', expected: in, notin, =, ==, !=, gt, lt" },
  { text: 'x in a', want: "unable to parse requirement: found 'a' expected: '('" },
  { text: 'x in (a', want: "unable to parse requirement: found '', expected: ',' or ')'" },
  { text: 'x in (a b)', want: "unable to parse requirement: found 'b', expected: ',' or ')'" },
  { text: 'x in (=)', want: "unable to parse requirement: found '=', expected: ',', ')' or identifier" },
  { text: 'x in (a,=)', want: "unable to parse requirement: found '=', expected: ',', or identifier" },
  { text: 'x=(a)', want: "unable to parse requirement: found '(', expected: identifier" },
  { text: 'x=a,', want: "found '', expected: identifier after ','" },
  { text: 'x=a,,y=b', want: "found ',', expected: identifier after ','" },
  { text: ',x=a', want: "found ',', expected: !, identifier, or 'end of string'" },
  { text: '=a', want: "found '=', expected: !, identifier, or 'end of string'" },
  { text: 'x=a=b', want: "found '=', expected: ',' or 'end of string'" },
  { text: 'x=a b', want: "found 'b', expected: ',' or 'end of string'" },
  { text: '!x=a', want: "found '=', expected: ',' or 'end of string'" },
  { text: '!!x', want: "unable to parse requirement: found '!', expected: identifier" },
  { text: '-x=a', want: `unable to parse requirement: <nil>: Invalid value: "-x": ${keyMessage}` },
  { text: 'a/b/c', want: `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${keyMessage.slice(10)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')` },
  { text: 'x=-a', want: `unable to parse requirement: values[0][x]: Invalid value: "-a": ${valueMessage}` },
  {
    text: 'x in (-b,-a)',
    want: `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${valueMessage}, values[1][x]: Invalid value: "-b": ${valueMessage}]`,
  },
  { text: 'x>a', want: `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer` },
  // The value must be a label value too, so no negative numbers.
  { text: 'x<-1', want: `unable to parse requirement: values[0][x]: Invalid value: "-1": ${valueMessage}` },
  { text: 'x<9223372036854775808', want: `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer` },
];

for (const { text, want } of errors) {
  test(`parse error: ${JSON.stringify(text)}`, () => {
    assert.throws(() => parseLabelSelector(text), (error: unknown) => {
      assert.ok(error instanceof SelectorParseError);
      assert.equal(error.message, want);
      return true;
    });
  });
}

const labels = { app: 'web', tier: 'front', empty: '', n: '5' };
const matches: { text: string; want: boolean }[] = [
  { text: '', want: true },
  { text: 'app=web', want: true },
  { text: 'app==web', want: true },
  { text: 'app=db', want: false },
  { text: 'app!=db', want: true },
  { text: 'missing!=x', want: true },
  { text: 'missing=', want: false },
  { text: 'empty=', want: true },
  { text: 'app in (db,web)', want: true },
  { text: 'missing in (a)', want: false },
  { text: 'app notin (web)', want: false },
  { text: 'missing notin (a)', want: true },
  { text: 'app', want: true },
  { text: 'missing', want: false },
  { text: '!missing', want: true },
  { text: '!app', want: false },
  { text: 'n>4', want: true },
  { text: 'n>5', want: false },
  { text: 'n<6', want: true },
  { text: 'app>1', want: false },
  { text: 'missing<1', want: false },
  { text: 'app=web,tier=back', want: false },
  { text: 'app=web,tier in (front,back),!missing', want: true },
];

for (const { text, want } of matches) test(`matches: ${JSON.stringify(text)}`, () => assert.equal(parseLabelSelector(text).matches(labels), want));

test('matches: undefined labels are no labels', () => {
  assert.equal(parseLabelSelector('!a').matches(undefined), true);
  assert.equal(parseLabelSelector('a').matches(undefined), false);
});

test('empty and requiresExactMatch', () => {
  assert.equal(parseLabelSelector('').empty, true);
  assert.equal(parseLabelSelector('a').empty, false);
  const selector = parseLabelSelector('a=1,b in (2),c in (3,4),d!=5');
  assert.equal(selector.requiresExactMatch('a'), '1');
  assert.equal(selector.requiresExactMatch('b'), '2');
  assert.equal(selector.requiresExactMatch('c'), undefined);
  assert.equal(selector.requiresExactMatch('d'), undefined);
  assert.equal(selector.requiresExactMatch('e'), undefined);
});

// metav1.LabelSelectorAsSelector's cases.
const objects: { name: string; selector: LabelSelectorObject | null | undefined; want: string; empty: boolean; matches: boolean }[] = [
  { name: 'null matches nothing', selector: null, want: '', empty: false, matches: false },
  { name: 'absent matches nothing', selector: undefined, want: '', empty: false, matches: false },
  { name: '{} matches everything', selector: {}, want: '', empty: true, matches: true },
  { name: 'empty lists match everything', selector: { matchLabels: {}, matchExpressions: [] }, want: '', empty: true, matches: true },
  { name: 'matchLabels', selector: { matchLabels: { tier: 'front', app: 'web' } }, want: 'app=web,tier=front', empty: false, matches: true },
  {
    name: 'expressions',
    selector: {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'back'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'app', operator: 'Exists' },
        { key: 'gone', operator: 'DoesNotExist', values: [] },
      ],
    },
    want: 'app=web,app,env notin (prod),!gone,tier in (back,front)',
    empty: false,
    matches: true,
  },
];

for (const { name, selector, want, empty, matches: match } of objects) {
  test(`from object: ${name}`, () => {
    const converted = labelSelectorFromObject(selector);
    assert.equal(converted.toString(), want);
    assert.equal(converted.empty, empty);
    assert.equal(converted.matches({ app: 'web', tier: 'front' }), match);
  });
}

test('from object: values keep their order; the text sorts them', () => {
  const converted = labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: ['z', 'y'] }] });
  assert.deepEqual(converted.requirements[0]!.values, ['z', 'y']);
  assert.equal(converted.toString(), 'a in (y,z)');
});

const objectErrors: { name: string; selector: LabelSelectorObject; want: string }[] = [
  { name: 'unknown operator', selector: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] }, want: '"Equals" is not a valid label selector operator' },
  {
    name: 'In without values',
    selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
    want: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
  },
  {
    name: 'Exists with values',
    selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] },
    want: 'values: Invalid value: []string{"b"}: values set must be empty for exists and does not exist',
  },
  { name: 'bad key', selector: { matchLabels: { '-a': 'b' } }, want: `key: Invalid value: "-a": ${keyMessage}` },
  { name: 'bad value', selector: { matchLabels: { a: '-b' } }, want: `values[0][a]: Invalid value: "-b": ${valueMessage}` },
  {
    name: 'several problems',
    selector: { matchExpressions: [{ key: '-a', operator: 'NotIn' }] },
    want: `[key: Invalid value: "-a": ${keyMessage}, values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]`,
  },
];

for (const { name, selector, want } of objectErrors) {
  test(`from object error: ${name}`, () => {
    assert.throws(() => labelSelectorFromObject(selector), (error: unknown) => {
      assert.ok(error instanceof SelectorParseError);
      assert.equal(error.message, want);
      return true;
    });
  });
}
