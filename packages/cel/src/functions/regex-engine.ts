// Regular expressions for matches(), find() and findAll(): RE2's syntax on re2js, an engine that
// runs in time linear in the input (no backtracking), since the patterns come from users. Compiled
// patterns are kept, as most come from constants in rules that run again and again.
import { RE2JS } from 're2js';
import { ErrorValue } from '../values.js';

const cache = new Map<string, RE2JS | ErrorValue>();
const CACHE_LIMIT = 512;

/** The compiled pattern, or Go's error for an invalid one (`error parsing regexp: ...`). */
export function compileRegex(pattern: string): RE2JS | ErrorValue {
  let compiled = cache.get(pattern);
  if (compiled) return compiled;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    compiled = new ErrorValue((error as Error).message);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(pattern, compiled);
  return compiled;
}
