// Compile errors, reported as cel-go reports them (users match on these texts):
//   ERROR: <input>:1:6: undefined field 'z'
//    | self.z == 1
//    | .....^

import { MAX_SNIPPET_LENGTH } from './limits.js';
import type { CelType } from './types.js';

export interface Issue {
  /** Where in the source; NO_LOCATION for what concerns the whole source (its size, its depth). */
  readonly offset: number;
  readonly message: string;
}

/** cel-go's NoLocation: shown as line -1, column 0, without the source line. */
export const NO_LOCATION = -1;

/** A failed compilation: its issues, and their display as one string. */
export class CompileError extends Error {
  constructor(
    readonly source: string,
    readonly issues: readonly Issue[],
  ) {
    super(formatIssues(source, issues));
    this.name = 'CompileError';
  }
}

/** The line of a (UTF-16) offset: its number and where it starts and ends. */
function lineOf(source: string, offset: number): { line: number; start: number; end: number } {
  let line = 1;
  let start = 0;
  for (let i = source.indexOf('\n'); i >= 0 && i < offset; i = source.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  const end = source.indexOf('\n', start);
  return { line, start, end: end < 0 ? source.length : end };
}

/** The code points of `s` (a surrogate pair is one). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

export function formatIssue(source: string, issue: Issue): string {
  if (issue.offset === NO_LOCATION) return `ERROR: <input>:-1:0: ${issue.message}`;
  const offset = Math.min(issue.offset, source.length);
  const { line, start, end } = lineOf(source, offset);
  const head = `ERROR: <input>:${line}:${codePoints(source.slice(start, offset)) + 1}: ${issue.message}`;
  // cel-go leaves out a source line too long to be worth showing (it would repeat the expression).
  if (Buffer.byteLength(source.slice(start, end)) > MAX_SNIPPET_LENGTH) return head;
  const snippet = source.slice(start, end).replaceAll('\t', ' ');
  const before = snippet.slice(0, offset - start);
  // A mark per code point before the error, a wide one under a wide (non-ASCII) character, so that
  // the caret stays under it: whole-string replacements, not a string per character.
  const marks = before.replace(/[\x00-\x7f]/g, '.').replace(/[^.]/gu, '\uff0e');
  const caret = (source.codePointAt(offset) ?? 0) > 0x7f && offset < end ? '\uff3e' : '^';
  return `${head}\n | ${snippet}\n | ${marks}${caret}`;
}

/** cel-go's maxErrorsToReport: the errors kept and shown; the rest are counted. */
export const MAX_ISSUES_SHOWN = 100;

/**
 * The issues as cel-go shows them: the first 100 reported, sorted by where they are, then how many
 * more there were (each shows its whole source line: thousands of them made a message of many
 * megabytes, past V8's longest string for a long enough source).
 */
export function formatIssues(source: string, issues: readonly Issue[]): string {
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).sort((a, b) => a.offset - b.offset);
  const lines = shown.map((i) => formatIssue(source, i));
  if (issues.length > MAX_ISSUES_SHOWN) lines.push(`${issues.length - MAX_ISSUES_SHOWN} more errors were truncated`);
  return lines.join('\n');
}

/**
 * An expression that checks but cannot be planned, as cel-go's program instantiation fails: a
 * conversion of a constant that fails (`timestamp('x')`) or a constant regular expression that
 * does not compile, found when Kubernetes' optimizations evaluate them ahead of time.
 */
export class ProgramError extends Error {
  constructor(
    message: string,
    /** The type the expression checked to (it did check), when known. */
    readonly outputType?: CelType,
  ) {
    super(message);
    this.name = 'ProgramError';
  }
}
