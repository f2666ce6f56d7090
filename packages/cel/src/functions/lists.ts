// Kubernetes' list library (k8s.io/apiserver pkg/cel/library/lists.go): isSorted, sum, min, max,
// indexOf and lastIndexOf on lists.
import { BoolType, BytesType, DoubleType, DurationType, IntType, StringType, TimestampType, UintType, listOf, param, type CelType } from '../types.js';
import { Duration, ListValue, UInt, valuesEqual, ErrorValue, type Value } from '../values.js';
import { checkedDuration } from './time-values.js';
import { checkedInt, checkedUint } from './int64.js';
import { compareValues } from './operators.js';
import { err, fn, member, type FunctionDecl } from './overload.js';

const A = param('A');

const comparableTypes: [string, CelType][] = [
  ['int', IntType],
  ['uint', UintType],
  ['double', DoubleType],
  ['bool', BoolType],
  ['duration', DurationType],
  ['timestamp', TimestampType],
  ['string', StringType],
  ['bytes', BytesType],
];
const summableTypes: [string, CelType, Value][] = [
  ['int', IntType, 0n],
  ['uint', UintType, new UInt(0n)],
  ['double', DoubleType, 0],
  ['duration', DurationType, new Duration(0n)],
];

function isSorted(list: ListValue): Value {
  let previous: Value | undefined;
  for (const v of list.values()) {
    if (previous !== undefined) {
      // As Kubernetes' library: only an ordered pair out of order counts (NaN is passed over).
      if (compareValues(previous, v) === 1) return false;
    }
    previous = v;
  }
  return true;
}

function sum(list: ListValue, zero: Value): Value {
  let total = zero;
  for (const v of list.values()) {
    if (typeof total === 'bigint') total = checkedInt(total + (v as bigint));
    else if (total instanceof UInt) total = checkedUint(total.value + (v as UInt).value);
    else if (typeof total === 'number') total = total + (v as number);
    else if (total instanceof Duration) total = checkedDuration(total.nanos + (v as Duration).nanos);
    if (total instanceof ErrorValue) return total;
  }
  return total;
}

function extreme(name: string, list: ListValue, preferred: number): Value {
  let best: Value | undefined;
  for (const v of list.values()) {
    if (best === undefined) best = v;
    else {
      if (compareValues(v, best) === preferred) best = v;
    }
  }
  return best ?? err(`${name} called on empty list`);
}

function indexOf(list: ListValue, item: Value, last: boolean): Value {
  const n = list.size();
  for (let k = 0; k < n; k++) {
    const i = last ? n - 1 - k : k;
    const eq = valuesEqual(list.get(i), item);
    if (eq instanceof ErrorValue) return eq;
    if (eq) return BigInt(i);
  }
  return -1n;
}

const list = (v: Value | undefined): ListValue => v as ListValue;

export const listsLibrary: readonly FunctionDecl[] = [
  fn('isSorted', ...comparableTypes.map(([name, t]) => member(`list_${name}_is_sorted_bool`, [listOf(t)], BoolType, ([l]) => isSorted(list(l))))),
  fn('sum', ...summableTypes.map(([name, t, zero]) => member(`list_${name}_sum_${name}`, [listOf(t)], t, ([l]) => sum(list(l), zero)))),
  fn('max', ...comparableTypes.map(([name, t]) => member(`list_${name}_max_${name}`, [listOf(t)], t, ([l]) => extreme('max', list(l), 1)))),
  fn('min', ...comparableTypes.map(([name, t]) => member(`list_${name}_min_${name}`, [listOf(t)], t, ([l]) => extreme('min', list(l), -1)))),
  fn('indexOf', member('list_a_index_of_int', [listOf(A), A], IntType, ([l, v]) => indexOf(list(l), v!, false))),
  fn('lastIndexOf', member('list_a_last_index_of_int', [listOf(A), A], IntType, ([l, v]) => indexOf(list(l), v!, true))),
];
