import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { Query, parseWriteOptions } from './query.js';

const parse = (search: string) => parseWriteOptions(new Query(new URLSearchParams(search)), 'CreateOptions', 'k8s.io');

// Upstream's ValidateCreateOptions: fieldManager, dryRun, fieldValidation, one 422 for all of them.
const cases: { query: string; want?: { dryRun: boolean; fieldManager?: string; fieldValidation: string }; message?: string }[] = [
  { query: '', want: { dryRun: false, fieldValidation: 'Warn' } },
  { query: 'dryRun=All&fieldManager=tool&fieldValidation=Strict', want: { dryRun: true, fieldManager: 'tool', fieldValidation: 'Strict' } },
  // Spec 4.10: an empty dryRun is a real request.
  { query: 'dryRun', want: { dryRun: false, fieldValidation: 'Warn' } },
  { query: 'dryRun=&dryRun=All', want: { dryRun: true, fieldValidation: 'Warn' } },
  { query: 'fieldValidation=', want: { dryRun: false, fieldValidation: 'Warn' } },
  { query: `fieldManager=${encodeURIComponent('ünïcode tool ✓')}`, want: { dryRun: false, fieldManager: 'ünïcode tool ✓', fieldValidation: 'Warn' } },
  { query: 'dryRun=Some', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"' },
  { query: 'dryRun=All&dryRun=x', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}: supported values: "All"' },
  {
    query: 'fieldValidation=strict',
    message: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
  },
  { query: 'fieldManager=a%07b', message: 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)' },
  // Positions count bytes, as Go's range over a string.
  { query: `fieldManager=${encodeURIComponent('é\u0085')}`, message: 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "é\\u0085": invalid character U+0085 (at position 2)' },
  {
    query: 'fieldManager=a%00&dryRun=No',
    message:
      'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Invalid value: "a\\x00": invalid character U+0000 (at position 1), dryRun: Unsupported value: []string{"No"}: supported values: "All"]',
  },
];
for (const c of cases) {
  test(`write options: ?${c.query}`, () => {
    if (c.want) {
      const { fieldManager, ...rest } = parse(c.query);
      assert.deepEqual({ ...rest, ...(fieldManager !== undefined && { fieldManager }) }, c.want);
      return;
    }
    assert.throws(() => parse(c.query), (error: unknown) => isStatusError(error) && error.code === 422 && error.message === c.message);
  });
}
