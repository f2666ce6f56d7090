// Kubernetes' regex library (pkg/cel/library/regex.go): find and findAll, on the linear-time engine.
import { IntType, StringType, listOf } from '../types.js';
import { poll } from '../interrupt.js';
import { ArrayList, ErrorValue, type Value } from '../values.js';
import { fn, member, type FunctionDecl } from './overload.js';
import { compileRegex } from './regex-engine.js';

/** Kubernetes' library reports a pattern that does not compile as an illegal regex. */
function compiled(pattern: string): ReturnType<typeof compileRegex> {
  const re = compileRegex(pattern);
  return re instanceof ErrorValue ? new ErrorValue(`Illegal regex: ${re.message}`) : re;
}

function find(s: string, pattern: string): Value {
  const re = compiled(pattern);
  if (re instanceof ErrorValue) return re;
  const m = re.matcher(s);
  return m.find() ? (m.group() ?? '') : '';
}

/** The first `limit` matches (all when negative), as Go's FindAllString. */
function findAll(s: string, pattern: string, limit: bigint): Value {
  const re = compiled(pattern);
  if (re instanceof ErrorValue) return re;
  if (limit === 0n) return new ArrayList([]);
  const m = re.matcher(s);
  const out: string[] = [];
  // Its cost is by the pattern's length: an empty pattern costs nothing, and matches between every
  // character (3,000,000 matches take 1.8 s here). The clock bounds it.
  while ((limit < 0n || BigInt(out.length) < limit) && m.find()) {
    poll();
    out.push(m.group() ?? '');
  }
  return new ArrayList(out);
}

const S = StringType;
export const regexLibrary: readonly FunctionDecl[] = [
  fn('find', member('string_find_string', [S, S], S, ([s, p]) => find(s as string, p as string))),
  fn(
    'findAll',
    member('string_find_all_string', [S, S], listOf(S), ([s, p]) => findAll(s as string, p as string, -1n)),
    member('string_find_all_string_int', [S, S, IntType], listOf(S), ([s, p, n]) => findAll(s as string, p as string, n as bigint)),
  ),
];
