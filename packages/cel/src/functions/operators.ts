// The standard operators: arithmetic (exact int64 and uint64), comparison, equality, indexing,
// membership and size, with cel-go's overload ids.
import { BoolType, BytesType, DoubleType, DurationType, IntType, StringType, TimestampType, UintType, listOf, mapOf, param, type CelType } from '../types.js';
import {
  Duration,
  ErrorValue,
  ListValue,
  MapValue,
  Timestamp,
  UInt,
  actualSize,
  compareBytes,
  compareNumbers,
  compareStrings,
  isNumeric,
  valuesEqual,
  type Value,
} from '../values.js';
import { OP } from '../ast.js';
import { checkedInt, checkedUint, divideInt, moduloInt } from './int64.js';
import { err, fn, global, member, noSuchOverload, type FunctionDecl } from './overload.js';
import { checkedDuration, checkedTimestamp } from './time-values.js';

const A = param('A');
const K = param('K');
const V = param('V');

const int = (v: Value): bigint => v as bigint;
const uint = (v: Value): bigint => (v as UInt).value;
const dbl = (v: Value): number => v as number;

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const add = fn(
  OP.add,
  global('add_int64', [IntType, IntType], IntType, ([a, b]) => checkedInt(int(a!) + int(b!))),
  global('add_uint64', [UintType, UintType], UintType, ([a, b]) => checkedUint(uint(a!) + uint(b!))),
  global('add_double', [DoubleType, DoubleType], DoubleType, ([a, b]) => dbl(a!) + dbl(b!)),
  global('add_string', [StringType, StringType], StringType, ([a, b]) => (a as string) + (b as string)),
  global('add_bytes', [BytesType, BytesType], BytesType, ([a, b]) => concatBytes(a as Uint8Array, b as Uint8Array)),
  global('add_list', [listOf(A), listOf(A)], listOf(A), ([a, b]) => (a as ListValue).concat(b as ListValue)),
  // A timestamp moved keeps its zone, as Go's Time.Add.
  global('add_timestamp_duration', [TimestampType, DurationType], TimestampType, ([a, b]) =>
    checkedTimestamp((a as Timestamp).nanos + (b as Duration).nanos, (a as Timestamp).offset),
  ),
  global('add_duration_timestamp', [DurationType, TimestampType], TimestampType, ([a, b]) =>
    checkedTimestamp((a as Duration).nanos + (b as Timestamp).nanos, (b as Timestamp).offset),
  ),
  global('add_duration_duration', [DurationType, DurationType], DurationType, ([a, b]) => checkedDuration((a as Duration).nanos + (b as Duration).nanos)),
);

const subtract = fn(
  OP.subtract,
  global('subtract_int64', [IntType, IntType], IntType, ([a, b]) => checkedInt(int(a!) - int(b!))),
  global('subtract_uint64', [UintType, UintType], UintType, ([a, b]) => checkedUint(uint(a!) - uint(b!))),
  global('subtract_double', [DoubleType, DoubleType], DoubleType, ([a, b]) => dbl(a!) - dbl(b!)),
  global('subtract_timestamp_timestamp', [TimestampType, TimestampType], DurationType, ([a, b]) =>
    checkedDuration((a as Timestamp).nanos - (b as Timestamp).nanos),
  ),
  global('subtract_timestamp_duration', [TimestampType, DurationType], TimestampType, ([a, b]) =>
    checkedTimestamp((a as Timestamp).nanos - (b as Duration).nanos, (a as Timestamp).offset),
  ),
  global('subtract_duration_duration', [DurationType, DurationType], DurationType, ([a, b]) =>
    checkedDuration((a as Duration).nanos - (b as Duration).nanos),
  ),
);

const multiply = fn(
  OP.multiply,
  global('multiply_int64', [IntType, IntType], IntType, ([a, b]) => checkedInt(int(a!) * int(b!))),
  global('multiply_uint64', [UintType, UintType], UintType, ([a, b]) => checkedUint(uint(a!) * uint(b!))),
  global('multiply_double', [DoubleType, DoubleType], DoubleType, ([a, b]) => dbl(a!) * dbl(b!)),
);

const divide = fn(
  OP.divide,
  global('divide_int64', [IntType, IntType], IntType, ([a, b]) => divideInt(int(a!), int(b!))),
  global('divide_uint64', [UintType, UintType], UintType, ([a, b]) => (uint(b!) === 0n ? err('division by zero') : new UInt(uint(a!) / uint(b!)))),
  global('divide_double', [DoubleType, DoubleType], DoubleType, ([a, b]) => dbl(a!) / dbl(b!)),
);

const modulo = fn(
  OP.modulo,
  global('modulo_int64', [IntType, IntType], IntType, ([a, b]) => moduloInt(int(a!), int(b!))),
  global('modulo_uint64', [UintType, UintType], UintType, ([a, b]) => (uint(b!) === 0n ? err('modulus by zero') : new UInt(uint(a!) % uint(b!)))),
);

const negate = fn(
  OP.negate,
  global('negate_int64', [IntType], IntType, ([a]) => checkedInt(-int(a!))),
  global('negate_double', [DoubleType], DoubleType, ([a]) => -dbl(a!)),
);

/** -1, 0 or 1 for two values of one comparable type (numbers across their types); undefined when unordered. */
export function compareValues(a: Value, b: Value): number | undefined {
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(compareStrings(a, b));
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Math.sign(compareBytes(a, b));
  if (a instanceof Timestamp && b instanceof Timestamp) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof Duration && b instanceof Duration) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  const numeric = (v: Value): boolean => typeof v === 'bigint' || typeof v === 'number' || v instanceof UInt;
  if (numeric(a) && numeric(b)) return compareNumbers(a, b);
  return undefined;
}

const comparable: [string, CelType][] = [
  ['bool', BoolType],
  ['int64', IntType],
  ['uint64', UintType],
  ['double', DoubleType],
  ['string', StringType],
  ['bytes', BytesType],
  ['timestamp', TimestampType],
  ['duration', DurationType],
];

const bothNumbers = ([a, b]: readonly Value[]): boolean => isNumeric(a!) && isNumeric(b!);

function comparison(name: string, idPrefix: string, holds: (c: number) => boolean): FunctionDecl {
  const compare = ([a, b]: readonly Value[]): Value => {
    const c = compareValues(a!, b!);
    if (c !== undefined) return holds(c);
    // cel-go's Compare refuses to order NaN.
    return isNumeric(a!) && isNumeric(b!) ? err('NaN values cannot be ordered') : noSuchOverload();
  };
  // Numbers of different types met through dyn compare by value, as cel-go's Compare does.
  return fn(name, ...comparable.map(([suffix, type]) => ({ ...global(`${idPrefix}_${suffix}`, [type, type], BoolType, compare), accepts: bothNumbers })));
}

const equality = [
  fn(OP.equals, global('equals', [A, A], BoolType, ([a, b]) => valuesEqual(a!, b!))),
  fn(
    OP.notEquals,
    global('not_equals', [A, A], BoolType, ([a, b]) => {
      const eq = valuesEqual(a!, b!);
      return eq instanceof ErrorValue ? eq : !eq;
    }),
  ),
];

/** `l[index]`: an int, a uint or an integral double index within bounds. */
export function listIndex(list: ListValue, index: Value): Value {
  let i: bigint;
  if (typeof index === 'bigint') i = index;
  else if (index instanceof UInt) i = index.value;
  else if (typeof index === 'number' && Number.isInteger(index)) i = BigInt(index);
  else return err(`unsupported index type '${typeof index}' in list`);
  if (i < 0n || i >= BigInt(list.size())) return err(`index out of bounds: ${i}`);
  return list.get(Number(i));
}

/** `m[key]`, or "no such key". */
export function mapIndex(map: MapValue, key: Value): Value {
  const v = map.get(key);
  return v === undefined ? err(`no such key: ${typeof key === 'string' ? key : String(key)}`) : v;
}

/** `container[key]` as cel-go qualifies an attribute: a list by a number, a map by a key. */
export function indexValue(container: Value, key: Value): Value {
  if (container instanceof ListValue) return listIndex(container, key);
  if (container instanceof MapValue) return mapIndex(container, key);
  return noSuchOverload();
}

// Declared for the checker: the interpreter indexes as cel-go's attributes do (indexValue).
const index = fn(
  OP.index,
  global('index_list', [listOf(A), IntType], A, ([l, i]) => listIndex(l as ListValue, i!)),
  global('index_map', [mapOf(K, V), K], V, ([m, k]) => mapIndex(m as MapValue, k!)),
);

const membership = fn(
  OP.in,
  global('in_list', [A, listOf(A)], BoolType, ([v, l]) => (l as ListValue).contains(v!)),
  global('in_map', [K, mapOf(K, V)], BoolType, ([k, m]) => (m as MapValue).get(k!) !== undefined),
);

const sizeOf = ([v]: readonly Value[]): Value => BigInt(actualSize(v!));
const size = fn(
  'size',
  global('size_string', [StringType], IntType, sizeOf),
  global('size_bytes', [BytesType], IntType, sizeOf),
  global('size_list', [listOf(A)], IntType, sizeOf),
  global('size_map', [mapOf(K, V)], IntType, sizeOf),
  member('string_size', [StringType], IntType, sizeOf),
  member('bytes_size', [BytesType], IntType, sizeOf),
  member('list_size', [listOf(A)], IntType, sizeOf),
  member('map_size', [mapOf(K, V)], IntType, sizeOf),
);

// The logical operators are evaluated by the interpreter (they absorb errors and short-circuit):
// these declare their types, and their implementations serve only a call through dyn dispatch.
const unreachable = (): Value => err('internal error: logical operator called as a function');
const logic: FunctionDecl[] = [
  fn(OP.and, global('logical_and', [BoolType, BoolType], BoolType, unreachable)),
  fn(OP.or, global('logical_or', [BoolType, BoolType], BoolType, unreachable)),
  fn(OP.conditional, global('conditional', [BoolType, A, A], A, unreachable)),
  fn(OP.not, global('logical_not', [BoolType], BoolType, ([b]) => !b)),
  fn(OP.notStrictlyFalse, global('not_strictly_false', [BoolType], BoolType, ([b]) => b !== false)),
];

export const operatorFunctions: readonly FunctionDecl[] = [
  add,
  subtract,
  multiply,
  divide,
  modulo,
  negate,
  comparison(OP.less, 'less', (c) => c < 0),
  comparison(OP.lessEquals, 'less_equals', (c) => c <= 0),
  comparison(OP.greater, 'greater', (c) => c > 0),
  comparison(OP.greaterEquals, 'greater_equals', (c) => c >= 0),
  ...equality,
  index,
  membership,
  size,
  ...logic,
];
