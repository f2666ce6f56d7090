// The standard string functions (contains, startsWith, endsWith, matches) and cel-go's strings
// extension at version 0, as Kubernetes 1.28 has it (charAt, indexOf, join, lastIndexOf,
// lowerAscii, replace, split, substring, trim, upperAscii). Indexes count code points.
import { BoolType, IntType, StringType, listOf } from '../types.js';
import { poll } from '../interrupt.js';
import { ArrayList, ErrorValue, ListValue, codePointLength, type Value } from '../values.js';
import { err, fn, global, member, type FunctionDecl } from './overload.js';
import { compileRegex } from './regex-engine.js';

const hasSurrogates = (s: string): boolean => /[\ud800-\udfff]/.test(s);
/** The code points of `s` (a string of one UTF-16 unit per point needs no splitting). */
const points = (s: string): string[] => (hasSurrogates(s) ? Array.from(s) : s.split(''));

// Indexes count code points; the searches below run on UTF-16 units (V8's own, linear searches)
// and convert at the ends. A string whose code points are its units (the common case: measured
// once, then remembered) converts for free.
const isPairAt = (s: string, u: number): boolean => {
  const c = s.charCodeAt(u);
  return c >= 0xd800 && c <= 0xdbff && u + 1 < s.length && (s.charCodeAt(u + 1) & 0xfc00) === 0xdc00;
};

/** The UTF-16 offset of code point `i` of `s` (i at most its code points). */
function unitOffset(s: string, i: number): number {
  if (codePointLength(s) === s.length) return i;
  let u = 0;
  for (let k = 0; k < i; k++) u += isPairAt(s, u) ? 2 : 1;
  return u;
}

/** The code point index of the UTF-16 offset `u` of `s`. */
function pointIndex(s: string, u: number): number {
  if (codePointLength(s) === s.length) return u;
  let i = 0;
  for (let k = 0; k < u; k += isPairAt(s, k) ? 2 : 1) i++;
  return i;
}

/** `s` with its UTF-16 units in reverse order (a match of reversed units is a match reversed). */
function reverseUnits(s: string): string {
  const units = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) units[s.length - 1 - i] = s.charCodeAt(i);
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
}

function matches(s: string, pattern: string): Value {
  const re = compileRegex(pattern);
  return re instanceof ErrorValue ? re : re.matcher(s).find();
}

const outOfRange = (i: bigint | number): ErrorValue => err(`index out of range: ${i}`);

function charAt(s: string, i: bigint): Value {
  const length = codePointLength(s);
  if (i < 0n || i > BigInt(length)) return outOfRange(i);
  if (i === BigInt(length)) return '';
  const u = unitOffset(s, Number(i));
  return s.slice(u, isPairAt(s, u) ? u + 2 : u + 1);
}

function indexOf(s: string, sub: string, from: bigint): Value {
  if (from < 0n || from > BigInt(codePointLength(s))) return outOfRange(from);
  if (sub === '') return from;
  const found = s.indexOf(sub, unitOffset(s, Number(from)));
  return found < 0 ? -1n : BigInt(pointIndex(s, found));
}

/** The last match starting at or before code point `from` (the end when undefined). */
function lastIndexOf(s: string, sub: string, from: bigint | undefined): Value {
  const length = codePointLength(s);
  if (from !== undefined && (from < 0n || from > BigInt(length))) return outOfRange(from);
  if (sub === '') return from ?? BigInt(length);
  let start = from === undefined ? length : Number(from);
  if (start + codePointLength(sub) > length) start = length - codePointLength(sub);
  if (start < 0) return -1n;
  // V8's lastIndexOf compares naively (quadratic on a long pattern): the reversed strings are
  // searched forward instead, from where a match starting at `start` would end.
  const last = unitOffset(s, start);
  const found = reverseUnits(s).indexOf(reverseUnits(sub), s.length - last - sub.length);
  return found < 0 ? -1n : BigInt(pointIndex(s, s.length - found - sub.length));
}

function substring(s: string, start: bigint, end: bigint | undefined): Value {
  const length = BigInt(codePointLength(s));
  const e = end ?? length;
  if (start < 0n || start > length) return outOfRange(start);
  if (e < 0n || e > length) return outOfRange(e);
  if (start > e) return err(`invalid substring range. start: ${start}, end: ${e}`);
  return s.slice(unitOffset(s, Number(start)), unitOffset(s, Number(e)));
}

/** How many replacements Go's strings.Replace makes (n < 0: all; an empty `old` matches around every code point). */
function replacements(s: string, old: string, n: bigint): number {
  if (n === 0n) return 0;
  const limit = n < 0n ? Infinity : Number(n);
  if (old === '') return Math.min(codePointLength(s) + 1, limit);
  let count = 0;
  for (let at = s.indexOf(old); at >= 0 && count < limit; at = s.indexOf(old, at + old.length)) count++;
  return count;
}

/**
 * The size (code points) of what replace would return, found without building it: the cost of
 * a replace is charged, and checked against the limit, before the call (runtime-cost.ts).
 */
export function replacedSize(s: string, old: string, replacement: string, n: bigint): number {
  const size = codePointLength(s);
  if (old === replacement) return size;
  return size + replacements(s, old, n) * (codePointLength(replacement) - codePointLength(old));
}

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches between every code point. */
function replace(s: string, old: string, replacement: string, n: bigint): string {
  if (n === 0n || old === replacement) return s;
  if (old === '') {
    const p = points(s);
    const out: string[] = [];
    let count = 0n;
    for (let i = 0; i <= p.length; i++) {
      poll();
      if (n < 0n || count < n) {
        out.push(replacement);
        count++;
      }
      if (i < p.length) out.push(p[i]!);
    }
    return out.join('');
  }
  if (n < 0n) return s.split(old).join(replacement);
  const parts: string[] = [];
  let from = 0;
  for (let count = 0n, at = s.indexOf(old); at >= 0 && count < n; count++, at = s.indexOf(old, from)) {
    parts.push(s.slice(from, at), replacement);
    from = at + old.length;
  }
  parts.push(s.slice(from));
  return parts.join('');
}

/** Go's strings.SplitN: n < 0 all, n == 0 none, an empty separator splits into code points. */
function split(s: string, sep: string, n: bigint): ListValue {
  if (n === 0n) return new ArrayList([]);
  let parts: string[];
  if (sep === '') {
    parts = points(s);
    if (n > 0n && BigInt(parts.length) > n) parts = [...parts.slice(0, Number(n) - 1), parts.slice(Number(n) - 1).join('')];
  } else {
    parts = s.split(sep);
    if (n > 0n && BigInt(parts.length) > n) parts = [...parts.slice(0, Number(n) - 1), parts.slice(Number(n) - 1).join(sep)];
  }
  return new ArrayList(parts);
}

const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());
// Go's unicode.IsSpace, as strings.TrimSpace trims.
const trimSpace = (s: string): string => s.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g, '');

function join(list: ListValue, separator: string): Value {
  const parts: string[] = [];
  for (const v of list.values()) {
    if (typeof v !== 'string') return err('join: list elements must be strings');
    parts.push(v);
  }
  return parts.join(separator);
}

/**
 * The size (code points) of what join would return, found without building it (1, an error's
 * size, when an element is not a string): its cost is charged before the call.
 */
export function joinedSize(list: ListValue, separator: string): number {
  let size = 0;
  for (const v of list.values()) {
    poll();
    if (typeof v !== 'string') return 1;
    size += codePointLength(v);
  }
  return size + Math.max(0, list.size() - 1) * codePointLength(separator);
}

const S = StringType;
const str = (v: Value | undefined): string => v as string;
const int = (v: Value | undefined): bigint => v as bigint;

export const standardStringFunctions: readonly FunctionDecl[] = [
  fn('contains', member('contains_string', [S, S], BoolType, ([a, b]) => str(a).includes(str(b)))),
  fn('startsWith', member('starts_with_string', [S, S], BoolType, ([a, b]) => str(a).startsWith(str(b)))),
  fn('endsWith', member('ends_with_string', [S, S], BoolType, ([a, b]) => str(a).endsWith(str(b)))),
  fn(
    'matches',
    global('matches', [S, S], BoolType, ([a, b]) => matches(str(a), str(b))),
    member('matches_string', [S, S], BoolType, ([a, b]) => matches(str(a), str(b))),
  ),
];

export const stringsExtension: readonly FunctionDecl[] = [
  fn('charAt', member('string_char_at_int', [S, IntType], S, ([s, i]) => charAt(str(s), int(i)))),
  fn(
    'indexOf',
    member('string_index_of_string', [S, S], IntType, ([s, sub]) => indexOf(str(s), str(sub), 0n)),
    member('string_index_of_string_int', [S, S, IntType], IntType, ([s, sub, i]) => indexOf(str(s), str(sub), int(i))),
  ),
  fn(
    'lastIndexOf',
    member('string_last_index_of_string', [S, S], IntType, ([s, sub]) => lastIndexOf(str(s), str(sub), undefined)),
    member('string_last_index_of_string_int', [S, S, IntType], IntType, ([s, sub, i]) => lastIndexOf(str(s), str(sub), int(i))),
  ),
  fn('lowerAscii', member('string_lower_ascii', [S], S, ([s]) => lowerAscii(str(s)))),
  fn('upperAscii', member('string_upper_ascii', [S], S, ([s]) => upperAscii(str(s)))),
  fn(
    'replace',
    member('string_replace_string_string', [S, S, S], S, ([s, a, b]) => replace(str(s), str(a), str(b), -1n)),
    member('string_replace_string_string_int', [S, S, S, IntType], S, ([s, a, b, n]) => replace(str(s), str(a), str(b), int(n))),
  ),
  fn(
    'split',
    member('string_split_string', [S, S], listOf(S), ([s, sep]) => split(str(s), str(sep), -1n)),
    member('string_split_string_int', [S, S, IntType], listOf(S), ([s, sep, n]) => split(str(s), str(sep), int(n))),
  ),
  fn(
    'substring',
    member('string_substring_int', [S, IntType], S, ([s, a]) => substring(str(s), int(a), undefined)),
    member('string_substring_int_int', [S, IntType, IntType], S, ([s, a, b]) => substring(str(s), int(a), int(b))),
  ),
  fn('trim', member('string_trim', [S], S, ([s]) => trimSpace(str(s)))),
  fn(
    'join',
    member('list_join', [listOf(S)], S, ([l]) => join(l as ListValue, '')),
    member('list_join_string', [listOf(S), S], S, ([l, sep]) => join(l as ListValue, str(sep))),
  ),
];

export { matches };
