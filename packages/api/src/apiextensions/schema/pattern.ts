// A schema's `pattern`, compiled once. Upstream matches it with Go's regexp (RE2 syntax, unanchored
// as MatchString is); so do we, on re2js, whose engines run in time linear in the input. The
// patterns come from CRD authors and the values from anyone who may write a custom object, so a
// backtracking engine would let one such object hold the event loop for good (`^(a+)+$` against
// thirty a's and a `!` took 10 s of CPU on ECMAScript's engine). RE2's syntax is what the CRD
// validator accepts (go-regexp-syntax.ts): `(?i)`, `\pL`, `[[:alpha:]]`, `\Q...\E` match here as
// in Go, and `\s`, `\d`, `\w` and `\b` are ASCII, `$` is the end of the text.
import { RE2JS } from 're2js';
import { goRegexpError } from '../go-regexp-syntax.js';

/** Patterns kept compiled; they come from CRDs, so the set is small, but it is bounded all the same. */
const CACHE_LIMIT = 4096;
const compiled = new Map<string, RE2JS | string>();

/** The compiled pattern, or why it does not compile, in Go's words (`error parsing regexp: ...`). */
export function compilePattern(pattern: string): RE2JS | string {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    entry = goRegexpError(pattern);
    if (entry === undefined) {
      try {
        entry = RE2JS.compile(pattern);
      } catch (error) {
        entry = (error as Error).message;
      }
    }
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, entry);
  }
  return entry;
}
