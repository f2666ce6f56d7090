// cel-spec's simple conformance tests (the version cel-go 0.16, Kubernetes 1.28's, was held to;
// packages/cel/testdata/cel-spec) against our parser, checker and interpreter: every applicable
// case passes but those expectations.ts lists, each with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conformanceFiles, countsOf, runFile, staleEntries, unexpectedOutcome, type CaseResult } from './suite.js';

const all: CaseResult[] = [];

for (const file of conformanceFiles()) {
  test(`cel-spec: ${file}`, (t) => {
    const results = runFile(file);
    all.push(...results);
    const c = countsOf(results);
    t.diagnostic(`${c.cases} cases, ${c.applicable} applicable, ${c.passing} passing, ${c.knownFailures} known failures`);
    assert.deepEqual(results.flatMap((r) => unexpectedOutcome(r) ?? []), []);
  });
}

test('cel-spec: every entry of expectations.ts names a case, and the totals', (t) => {
  assert.deepEqual(staleEntries(all.map((c) => c.id)), []);
  const c = countsOf(all);
  t.diagnostic(`total: ${c.cases} cases, ${c.applicable} applicable, ${c.passing} passing, ${c.knownFailures} known failures`);
  assert.equal(c.passing + c.knownFailures, c.applicable);
});
