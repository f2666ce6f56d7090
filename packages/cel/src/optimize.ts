// What Kubernetes' cel.OptOptimize lets cel-go compute when it plans an expression (its
// interpreter/decorators.go decOptimize and regex optimizations): the functions whose constant
// calls are computed then, and `in` against a constant list turned into a set lookup.
import { ListValue, UInt, type Value } from './values.js';

/** Conversions: a call of one of these on a constant is computed when the expression is planned. */
export const CONVERSIONS: ReadonlySet<string> = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'string', 'timestamp', 'type', 'uint']);

/** Functions whose constant regular expression (the second argument, the target first) is compiled when planned. */
export const REGEX_FUNCTIONS: ReadonlySet<string> = new Set(['matches', 'find', 'findAll']);

const MAX_INT64 = (1n << 63n) - 1n;

/** A value's identity in a constant set: its type and value, as a Go map keys cel-go's values. */
export function setKey(v: Value): string | undefined {
  if (typeof v === 'bigint') return `i${v}`;
  if (v instanceof UInt) return `u${v.value}`;
  if (typeof v === 'number') return Number.isNaN(v) ? undefined : `d${v}`;
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'boolean') return `b${v}`;
  return undefined;
}

/**
 * The set cel-go builds for `x in [constants]` (maybeOptimizeSetMembership): each element's key,
 * with its exact conversions to the other numeric types; 'empty' for an empty list (the test is
 * then false without evaluating x); undefined when an element is not a bool, number or string.
 */
export function constantSet(list: ListValue): Set<string | undefined> | 'empty' | undefined {
  if (list.size() === 0) return 'empty';
  const set = new Set<string | undefined>();
  for (const v of list.values()) {
    const key = setKey(v);
    if (key === undefined && !(typeof v === 'number')) return undefined;
    set.add(key);
    if (typeof v === 'number') {
      if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) set.add(`i${BigInt(v)}`);
      if (Number.isInteger(v) && v >= 0 && v < 2 ** 64) set.add(`u${BigInt(v)}`);
    } else if (typeof v === 'bigint') {
      set.add(`d${Number(v)}`);
      if (v >= 0n) set.add(`u${v}`);
    } else if (v instanceof UInt) {
      set.add(`d${Number(v.value)}`);
      if (v.value <= MAX_INT64) set.add(`i${v.value}`);
    }
  }
  // A NaN element adds no key: nothing finds it.
  set.delete(undefined);
  return set;
}
