import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResults, parseJSONPath } from './json-path.js';
import { checkPrinterColumnPath, printerColumnValue } from './printer-column.js';

const object = {
  metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'web', plain: 'p' } },
  spec: { replicas: 3, ratio: 0.5, big: 1234567.5, enabled: true, empty: null, nested: { a: [1, 2] }, html: { x: '<&>' } },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' },
      { type: 'Synced', status: 'False', count: 2 },
    ],
    started: '2024-01-01T00:00:00Z',
    bad: 'yesterday',
  },
};

const now = Date.parse('2024-01-01T00:05:12Z');

const cases: { name: string; jsonPath: string; type: string; want: unknown }[] = [
  { name: 'a dotted path', jsonPath: '.spec.replicas', type: 'integer', want: 3 },
  { name: 'a float as an integer column is truncated', jsonPath: '.spec.ratio', type: 'integer', want: 0 },
  { name: 'a number column', jsonPath: '.spec.ratio', type: 'number', want: 0.5 },
  { name: 'a boolean column', jsonPath: '.spec.enabled', type: 'boolean', want: true },
  { name: 'a value of another type is empty', jsonPath: '.spec.enabled', type: 'integer', want: null },
  { name: 'a missing field is empty', jsonPath: '.spec.missing', type: 'string', want: null },
  { name: 'a null prints as <no value> in a string column', jsonPath: '.spec.empty', type: 'string', want: '<no value>' },
  { name: 'a null is empty elsewhere', jsonPath: '.spec.empty', type: 'integer', want: null },
  { name: 'numbers print as Go prints them', jsonPath: '.spec.big', type: 'string', want: '1.2345675e+06' },
  { name: 'objects print as JSON', jsonPath: '.spec.nested', type: 'string', want: '{"a":[1,2]}' },
  { name: 'JSON is HTML-escaped as Go writes it', jsonPath: '.spec.html', type: 'string', want: '{"x":"\\u003c\\u0026\\u003e"}' },
  { name: 'an index', jsonPath: '.status.conditions[1].type', type: 'string', want: 'Synced' },
  { name: 'a negative index', jsonPath: '.status.conditions[-1].type', type: 'string', want: 'Synced' },
  { name: 'the first of [*]', jsonPath: '.status.conditions[*].type', type: 'string', want: 'Ready' },
  { name: 'an index out of bounds is empty', jsonPath: '.status.conditions[5].type', type: 'string', want: null },
  { name: 'a filter', jsonPath: '.status.conditions[?(@.type=="Synced")].status', type: 'string', want: 'False' },
  { name: 'a filter with spaces and single quotes', jsonPath: ".status.conditions[?(@.type == 'Ready')].status", type: 'string', want: 'True' },
  { name: 'an exists filter', jsonPath: '.status.conditions[?(@.count)].type', type: 'string', want: 'Synced' },
  { name: 'a numeric filter', jsonPath: '.status.conditions[?(@.count>1)].type', type: 'string', want: 'Synced' },
  { name: 'an escaped dot in a key', jsonPath: '.metadata.labels.app\\.kubernetes\\.io/name', type: 'string', want: 'web' },
  { name: "a quoted key is a path ['a.b'] = .a.b", jsonPath: ".metadata['labels.plain']", type: 'string', want: 'p' },
  { name: 'recursive descent', jsonPath: '..lastTransitionTime', type: 'string', want: '2024-01-01T00:00:00Z' },
  { name: 'a date column is an age', jsonPath: '.status.started', type: 'date', want: '5m12s' },
  { name: 'a date that is no RFC 3339 time', jsonPath: '.status.bad', type: 'date', want: '<invalid>' },
  { name: 'an unparsable path is empty', jsonPath: '.status[', type: 'string', want: null },
];

for (const c of cases) {
  test(`printerColumnValue: ${c.name}`, () => assert.deepEqual(printerColumnValue(object, { jsonPath: c.jsonPath, type: c.type }, now), c.want));
}

test('checkPrinterColumnPath: upstream refuses what it cannot parse', () => {
  checkPrinterColumnPath('.status.conditions[?(@.type=="Ready")].status');
  assert.throws(() => checkPrinterColumnPath('.status['), { message: 'unrecognized column definition ".status["' });
  assert.throws(() => checkPrinterColumnPath('.a[?(@.x==1)'), { message: 'unrecognized column definition ".a[?(@.x==1)"' });
});

const templateCases: { name: string; template: string; want: unknown[][] }[] = [
  { name: 'slices with a step', template: '{.list[0:5:2]}', want: [[0, 2, 4]] },
  { name: 'a union', template: "{.list[0,1]}", want: [[0, 1]] },
  { name: 'a union of quoted paths', template: "{.items[*]['name', 'kind']}", want: [['a', 'b', 'K', 'L']] },
  { name: 'a wildcard over a map', template: '{.map.*}', want: [[1, 2]] },
  { name: 'text outside the braces', template: 'n={.items[0].name}', want: [['n='], ['a']] },
];

const data = { list: [0, 1, 2, 3, 4, 5], items: [{ name: 'a', kind: 'K' }, { name: 'b', kind: 'L' }], map: { x: 1, y: 2 } };

for (const c of templateCases) {
  test(`findResults: ${c.name}`, () => assert.deepEqual(findResults(parseJSONPath(c.template), data), c.want));
}

test('findResults: comparing an integer with a float literal fails as upstream', () => {
  assert.throws(() => findResults(parseJSONPath('{.list[?(@ > 1.5)]}'), data), { message: 'incompatible types for comparison' });
});
