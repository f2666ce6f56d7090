import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPath } from '../field-errors.js';
import { validateLabelSelectorObject } from './validate-object.js';

const keyMessage =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const path = newPath('spec', 'selector');

// metav1validation.ValidateLabelSelector's cases.
const cases: { name: string; selector: unknown; want: string[] }[] = [
  { name: 'null', selector: null, want: [] },
  { name: 'absent', selector: undefined, want: [] },
  { name: 'empty', selector: {}, want: [] },
  {
    name: 'valid',
    selector: {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'example.com/x', operator: 'Exists' },
        { key: 'y', operator: 'DoesNotExist', values: [] },
      ],
    },
    want: [],
  },
  {
    name: 'In without values',
    selector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
    want: ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
  },
  {
    name: 'NotIn with an empty list',
    selector: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
    want: ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
  },
  {
    name: 'Exists with values',
    selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] },
    want: ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
  },
  {
    name: 'unknown operator',
    selector: { matchExpressions: [{ key: 'a', operator: 'in', values: ['b'] }] },
    want: ['spec.selector.matchExpressions[0].operator: Invalid value: "in": not a valid selector operator'],
  },
  {
    name: 'bad key',
    selector: { matchExpressions: [{ key: 'a b', operator: 'Exists' }] },
    want: [`spec.selector.matchExpressions[0].key: Invalid value: "a b": ${keyMessage}`],
  },
  {
    name: 'bad value',
    selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }] },
    want: [`spec.selector.matchExpressions[0].values[1]: Invalid value: "not ok": ${valueMessage}`],
  },
  {
    name: 'matchLabels are labels',
    selector: { matchLabels: { 'a b': 'c d' } },
    want: [`spec.selector.matchLabels: Invalid value: "a b": ${keyMessage}`, `spec.selector.matchLabels: Invalid value: "c d": ${valueMessage}`],
  },
  { name: 'not an object', selector: 'app=web', want: ['spec.selector: Invalid value: "app=web": must be a label selector'] },
];

for (const { name, selector, want } of cases) {
  test(`validate label selector object: ${name}`, () => assert.deepEqual(validateLabelSelectorObject(selector, path).map(String), want));
}
