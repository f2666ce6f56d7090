// The vendored cel-spec conformance files (packages/cel/testdata/cel-spec) run against this
// package, each case judged against expectations.ts: counts by file, and every case whose outcome
// is not the one expected.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KNOWN_FAILURES, NOT_APPLICABLE, exclusionOf, matches } from './expectations.js';
import { runSimpleTest } from './run.js';
import { readSimpleTests } from './simple-tests.js';

export const TESTDATA = fileURLToPath(new URL('../../testdata/cel-spec/', import.meta.url));

export interface FileCounts {
  cases: number;
  notApplicable: number;
  applicable: number;
  passing: number;
  knownFailures: number;
}

export interface CaseResult {
  readonly id: string;
  readonly passed: boolean;
  readonly detail?: string;
  readonly category: 'applicable' | 'not-applicable' | 'known-failure';
}

export interface SuiteResult {
  readonly files: Record<string, FileCounts>;
  readonly total: FileCounts;
  readonly cases: readonly CaseResult[];
  /** Cases whose outcome is not what expectations.ts says, and entries there that match no case. */
  readonly unexpected: readonly string[];
}

export const conformanceFiles = (dir = TESTDATA): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.textproto'))
    .sort();

/** Runs one file's cases. */
export function runFile(file: string, dir = TESTDATA): CaseResult[] {
  const name = file.replace(/\.textproto$/, '');
  return readSimpleTests(name, readFileSync(`${dir}/${file}`, 'utf8')).map((test) => {
    const category = exclusionOf(NOT_APPLICABLE, test.id) ? 'not-applicable' : exclusionOf(KNOWN_FAILURES, test.id) ? 'known-failure' : 'applicable';
    if ('unrepresentable' in test) return { id: test.id, passed: false, detail: `cannot represent ${test.unrepresentable}`, category };
    const outcome = runSimpleTest(test);
    return { id: test.id, passed: outcome.passed, ...(outcome.detail && { detail: outcome.detail }), category };
  });
}

/** What is wrong with a case's outcome, given its category; undefined when it is as expected. */
export function unexpectedOutcome(c: CaseResult): string | undefined {
  if (c.category === 'applicable' && !c.passed) return `${c.id}: fails: ${c.detail}`;
  if (c.category === 'known-failure' && c.passed) return `${c.id}: passes, but is listed as a known failure`;
  if (c.category === 'not-applicable' && c.passed) return `${c.id}: passes, but is listed as not applicable`;
  return undefined;
}

export function countsOf(cases: readonly CaseResult[]): FileCounts {
  const notApplicable = cases.filter((c) => c.category === 'not-applicable').length;
  return {
    cases: cases.length,
    notApplicable,
    applicable: cases.length - notApplicable,
    passing: cases.filter((c) => c.category !== 'not-applicable' && c.passed).length,
    knownFailures: cases.filter((c) => c.category === 'known-failure').length,
  };
}

/** Entries of expectations.ts that name no case. */
export function staleEntries(ids: readonly string[]): string[] {
  return [...NOT_APPLICABLE, ...KNOWN_FAILURES].flatMap((e) => e.cases.filter((pattern) => !ids.some((id) => matches(pattern, id))).map((p) => `${p}: listed in expectations.ts, matches no case`));
}

export function runSuite(dir = TESTDATA): SuiteResult {
  const files: Record<string, FileCounts> = {};
  const cases: CaseResult[] = [];
  for (const file of conformanceFiles(dir)) {
    const results = runFile(file, dir);
    files[file.replace(/\.textproto$/, '')] = countsOf(results);
    cases.push(...results);
  }
  const unexpected = [...cases.flatMap((c) => unexpectedOutcome(c) ?? []), ...staleEntries(cases.map((c) => c.id))];
  return { files, total: countsOf(cases), cases, unexpected };
}
