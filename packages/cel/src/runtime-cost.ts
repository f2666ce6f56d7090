// What one call costs at runtime, from its actual arguments (the target first): cel-go's
// CostTracker.costCall with Kubernetes' library costs (k8s.io/apiserver pkg/cel/library/cost.go)
// consulted first, as upstream does. Upstream charges a call after it returns; here the cost is
// known from the arguments alone and charged, and checked against the limit, before the call, so
// that a call past the limit never runs (a replace whose result would not fit in memory is never
// built). The two functions whose cost depends on their result, join and replace, measure their
// result without building it.
import { joinedSize, replacedSize } from './functions/strings.js';
import { AUTHZ_NOMINAL_FUNCTIONS, COST, TRAVERSAL_FUNCTIONS } from './limits.js';
import { ListValue, MapValue, actualSize, type Value } from './values.js';

const ceil = Math.ceil;
const traverse = COST.stringTraversalFactor;

/** Kubernetes' traversal cost of a value: its strings' lengths (in UTF-8 bytes) x 0.1, 1 per other leaf. */
function traversalCost(v: Value): number {
  if (typeof v === 'string') return Math.trunc(Buffer.byteLength(v, 'utf8') * traverse);
  if (v instanceof Uint8Array) return Math.trunc(v.length * traverse);
  if (v instanceof ListValue) {
    let cost = 0;
    for (const item of v.values()) cost += traversalCost(item);
    return cost;
  }
  if (v instanceof MapValue) {
    let cost = 0;
    for (const key of v.keys()) cost += traversalCost(key) + traversalCost(v.get(key)!);
    return cost;
  }
  return 1;
}

const regexCost = (str: Value, pattern: Value): number =>
  ceil((1 + actualSize(str)) * traverse) * ceil(actualSize(pattern) * COST.regexStringLengthFactor);

/**
 * replace: Kubernetes 1.28 charges ceil(len x 0.2), "the traversal plus the construction of the
 * result", for a result as long as the input. A result can be far longer (`s.replace('a', s)`
 * squares s: 20,000 characters make 400,000,000), so its construction is charged by the result's
 * own length where that is longer: ceil((len + max(len, result length)) x 0.1), which is 1.28's
 * figure whenever the result is no longer than the input. (cel-go v0.28.1 made replace's cost
 * depend on its result too, in its strings extension version 5, #1307: 1 + the search + the
 * result's length; Kubernetes, on version 2 of the extension, has not taken it.)
 */
function replaceCost(args: readonly Value[]): number {
  const [s, old, replacement, n] = args;
  if (typeof s !== 'string' || typeof old !== 'string' || typeof replacement !== 'string' || (n !== undefined && typeof n !== 'bigint')) {
    return ceil(actualSize(s!) * 2 * traverse);
  }
  const size = actualSize(s);
  return ceil((size + Math.max(size, replacedSize(s, old, replacement, n ?? -1n))) * traverse);
}

/** join: Kubernetes charges ceil(result length x 0.2); the length is summed before anything is joined. */
function joinCost(args: readonly Value[]): number {
  const [list, separator] = args;
  if (!(list instanceof ListValue) || (separator !== undefined && typeof separator !== 'string')) return ceil(2 * traverse);
  return ceil(joinedSize(list, separator ?? '') * 2 * traverse);
}

/** Kubernetes' library costs, by function name; undefined where it has none. */
function libraryCallCost(fn: string, args: readonly Value[]): number | undefined {
  if (AUTHZ_NOMINAL_FUNCTIONS.has(fn)) return 1;
  if (TRAVERSAL_FUNCTIONS.has(fn)) return args.length > 0 ? traversalCost(args[0]!) : 0;
  switch (fn) {
    case 'check':
      return COST.authzCheck;
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return args.length >= 1 ? ceil(actualSize(args[0]!) * traverse) : undefined;
    case 'replace':
      return args.length >= 3 ? replaceCost(args) : undefined;
    case 'split':
      return args.length >= 1 ? ceil(actualSize(args[0]!) * 2 * traverse) : undefined;
    case 'join':
      return args.length >= 1 ? joinCost(args) : undefined;
    case 'find':
    case 'findAll':
      return args.length >= 2 ? regexCost(args[0]!, args[1]!) : undefined;
  }
  return undefined;
}

/** The runtime cost of one call of `fn` resolved to `overloadId`, with these arguments. */
export function callCost(fn: string, overloadId: string, args: readonly Value[]): number {
  const library = libraryCallCost(fn, args);
  if (library !== undefined) return library;
  switch (overloadId) {
    case 'starts_with_string':
    case 'ends_with_string':
    case 'string_to_bytes':
    case 'bytes_to_string':
      return ceil(actualSize(args[0]!) * traverse);
    case 'in_list':
      return actualSize(args[1]!);
    case 'less_string':
    case 'greater_string':
    case 'less_equals_string':
    case 'greater_equals_string':
    case 'less_bytes':
    case 'greater_bytes':
    case 'less_equals_bytes':
    case 'greater_equals_bytes':
    case 'equals':
    case 'not_equals':
      return ceil(Math.min(actualSize(args[0]!), actualSize(args[1]!)) * traverse);
    case 'add_string':
    case 'add_bytes':
      return ceil((actualSize(args[0]!) + actualSize(args[1]!)) * traverse);
    case 'matches_string':
      return regexCost(args[0]!, args[1]!);
    case 'contains_string':
      return ceil(actualSize(args[0]!) * traverse) * ceil(actualSize(args[1]!) * traverse);
    default:
      return 1;
  }
}
