// The standard string functions (contains, startsWith, endsWith, matches) and cel-go's strings
// extension at version 0, as Kubernetes 1.28 has it (charAt, indexOf, join, lastIndexOf,
// lowerAscii, replace, split, substring, trim, upperAscii). Indexes count code points.
import { BoolType, IntType, StringType, listOf } from '../types.js';
import { ArrayList, ErrorValue, ListValue, type Value } from '../values.js';
import { err, fn, global, member, type FunctionDecl } from './overload.js';
import { compileRegex } from './regex-engine.js';

const hasSurrogates = (s: string): boolean => /[\ud800-\udfff]/.test(s);
/** The code points of `s` (a string of one UTF-16 unit per point needs no splitting). */
const points = (s: string): string[] => (hasSurrogates(s) ? Array.from(s) : s.split(''));

function matches(s: string, pattern: string): Value {
  const re = compileRegex(pattern);
  return re instanceof ErrorValue ? re : re.matcher(s).find();
}

const outOfRange = (i: bigint | number): ErrorValue => err(`index out of range: ${i}`);

function charAt(s: string, i: bigint): Value {
  const p = points(s);
  if (i < 0n || i > BigInt(p.length)) return outOfRange(i);
  return p[Number(i)] ?? '';
}

function indexOf(s: string, sub: string, from: bigint): Value {
  const p = points(s);
  if (from < 0n || from > BigInt(p.length)) return outOfRange(from);
  const q = points(sub);
  for (let i = Number(from); i + q.length <= p.length; i++) {
    let j = 0;
    while (j < q.length && p[i + j] === q[j]) j++;
    if (j === q.length) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(s: string, sub: string, from: bigint | undefined): Value {
  const p = points(s);
  const q = points(sub);
  if (from !== undefined && (from < 0n || from > BigInt(p.length))) return outOfRange(from);
  let start = from === undefined ? p.length : Number(from);
  if (start + q.length > p.length) start = p.length - q.length;
  for (let i = start; i >= 0; i--) {
    let j = 0;
    while (j < q.length && p[i + j] === q[j]) j++;
    if (j === q.length) return BigInt(i);
  }
  return -1n;
}

function substring(s: string, start: bigint, end: bigint | undefined): Value {
  const p = points(s);
  const e = end ?? BigInt(p.length);
  if (start < 0n || start > BigInt(p.length)) return outOfRange(start);
  if (e < 0n || e > BigInt(p.length)) return outOfRange(e);
  if (start > e) return err(`invalid substring range. start: ${start}, end: ${e}`);
  return p.slice(Number(start), Number(e)).join('');
}

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches between every code point. */
function replace(s: string, old: string, replacement: string, n: bigint): string {
  if (n === 0n || old === replacement) return s;
  if (old === '') {
    const p = points(s);
    const out: string[] = [];
    let count = 0n;
    for (let i = 0; i <= p.length; i++) {
      if (n < 0n || count < n) {
        out.push(replacement);
        count++;
      }
      if (i < p.length) out.push(p[i]!);
    }
    return out.join('');
  }
  let out = '';
  let rest = s;
  let count = 0n;
  for (;;) {
    const at = rest.indexOf(old);
    if (at < 0 || (n >= 0n && count >= n)) break;
    out += rest.slice(0, at) + replacement;
    rest = rest.slice(at + old.length);
    count++;
  }
  return out + rest;
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
