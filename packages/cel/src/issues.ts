// Compile errors, reported as cel-go reports them (users match on these texts):
//   ERROR: <input>:1:6: undefined field 'z'
//    | self.z == 1
//    | .....^

import { MAX_SNIPPET_LENGTH } from './limits.js';
import type { CelType } from './types.js';

export interface Issue {
  /** Where in the source, in UTF-16 units; NO_LOCATION for an issue of the whole expression. */
  readonly offset: number;
  readonly message: string;
}

/** cel-go's NoLocation: shown as line -1, column 0, with no source line. */
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

function location(source: string, offset: number): { line: number; column: number; text: string } {
  const points = Array.from(source.slice(0, offset));
  let line = 1;
  let lineStart = 0;
  points.forEach((c, i) => {
    if (c === '\n') {
      line++;
      lineStart = i + 1;
    }
  });
  const allPoints = Array.from(source);
  let lineEnd = allPoints.indexOf('\n', lineStart);
  if (lineEnd < 0) lineEnd = allPoints.length;
  return { line, column: points.length - lineStart, text: allPoints.slice(lineStart, lineEnd).join('') };
}

export function formatIssue(source: string, issue: Issue): string {
  if (issue.offset === NO_LOCATION) return `ERROR: <input>:-1:0: ${issue.message}`;
  const { line, column, text } = location(source, Math.min(issue.offset, source.length));
  const head = `ERROR: <input>:${line}:${column + 1}: ${issue.message}`;
  // cel-go leaves out a source line too long to be worth showing (it would repeat the expression).
  if (Buffer.byteLength(text) > MAX_SNIPPET_LENGTH) return head;
  const snippet = text.replaceAll('\t', ' ');
  const chars = Array.from(snippet);
  // A wide character is pointed at with wide marks, so that the caret stays under it.
  const wide = (c: string | undefined): boolean => c !== undefined && new TextEncoder().encode(c).length > 1;
  let indicator = '';
  for (let i = 0; i < column && i < chars.length; i++) indicator += wide(chars[i]) ? '\uff0e' : '.';
  indicator += wide(chars[column]) ? '\uff3e' : '^';
  return `${head}\n | ${snippet}\n | ${indicator}`;
}

export const formatIssues = (source: string, issues: readonly Issue[]): string => issues.map((i) => formatIssue(source, i)).join('\n');

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
