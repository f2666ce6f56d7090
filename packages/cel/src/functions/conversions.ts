// The standard conversions between types (int(), string(), timestamp()...) and type(), with
// cel-go's overload ids and its rules for what does not convert.
import { BoolType, BytesType, DoubleType, DurationType, DynType, IntType, StringType, TimestampType, UintType, param, typeOf } from '../types.js';
import { Duration, Timestamp, TypeValue, UInt, typeName, type Value } from '../values.js';
import { MAX_INT64, MIN_INT64, MAX_UINT64, doubleToInt, doubleToUint } from './int64.js';
import { dynFunction, err, fn, global, type FunctionDecl } from './overload.js';
import { checkedTimestamp, formatDuration, formatTimestamp, parseGoDuration, parseZonedRFC3339 } from './time-values.js';

const A = param('A');
const NANOS = 1_000_000_000n;

/** Go's %g (cel-go's string(double)): the shortest digits, in exponent form below 1e-4 and from 1e6. */
export function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return '+Inf';
  if (d === -Infinity) return '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const [mantissa, exponentText] = d.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // Plain form: JavaScript's own is the same digits for this range.
  return String(d);
}

const decimalInt = /^[+-]?\d+$/;

function stringToInt(s: string): Value {
  if (!decimalInt.test(s)) return err(`cannot convert '${s}' to int`);
  const n = BigInt(s);
  return n < MIN_INT64 || n > MAX_INT64 ? err('integer overflow') : n;
}

function stringToUint(s: string): Value {
  if (!/^\+?\d+$/.test(s)) return err(`cannot convert '${s}' to uint`);
  const n = BigInt(s);
  return n > MAX_UINT64 ? err('unsigned integer overflow') : new UInt(n);
}

function stringToDouble(s: string): Value {
  const t = s.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return err(`cannot convert '${s}' to double`);
  return Number(s);
}

const boolTexts: Record<string, boolean> = { '1': true, t: true, T: true, TRUE: true, true: true, True: true, '0': false, f: false, F: false, FALSE: false, false: false, False: false };

function utf8Decode(bytes: Uint8Array): Value {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return err('invalid UTF-8 in bytes, cannot convert to string');
  }
}

export const conversionFunctions: readonly FunctionDecl[] = [
  fn(
    'int',
    global('int64_to_int64', [IntType], IntType, ([v]) => v!),
    global('uint64_to_int64', [UintType], IntType, ([v]) => ((v as UInt).value > MAX_INT64 ? err('integer overflow') : (v as UInt).value)),
    global('double_to_int64', [DoubleType], IntType, ([v]) => doubleToInt(v as number)),
    global('string_to_int64', [StringType], IntType, ([v]) => stringToInt(v as string)),
    global('timestamp_to_int64', [TimestampType], IntType, ([v]) => {
      const n = (v as Timestamp).nanos;
      return n >= 0n ? n / NANOS : (n - NANOS + 1n) / NANOS;
    }),
  ),
  fn(
    'uint',
    global('uint64_to_uint64', [UintType], UintType, ([v]) => v!),
    global('int64_to_uint64', [IntType], UintType, ([v]) => ((v as bigint) < 0n ? err('unsigned integer overflow') : new UInt(v as bigint))),
    global('double_to_uint64', [DoubleType], UintType, ([v]) => doubleToUint(v as number)),
    global('string_to_uint64', [StringType], UintType, ([v]) => stringToUint(v as string)),
  ),
  fn(
    'double',
    global('double_to_double', [DoubleType], DoubleType, ([v]) => v!),
    global('int64_to_double', [IntType], DoubleType, ([v]) => Number(v as bigint)),
    global('uint64_to_double', [UintType], DoubleType, ([v]) => Number((v as UInt).value)),
    global('string_to_double', [StringType], DoubleType, ([v]) => stringToDouble(v as string)),
  ),
  fn(
    'string',
    global('string_to_string', [StringType], StringType, ([v]) => v!),
    global('int64_to_string', [IntType], StringType, ([v]) => String(v)),
    global('uint64_to_string', [UintType], StringType, ([v]) => String((v as UInt).value)),
    global('double_to_string', [DoubleType], StringType, ([v]) => formatDouble(v as number)),
    global('bool_to_string', [BoolType], StringType, ([v]) => String(v)),
    global('bytes_to_string', [BytesType], StringType, ([v]) => utf8Decode(v as Uint8Array)),
    global('timestamp_to_string', [TimestampType], StringType, ([v]) => formatTimestamp((v as Timestamp).nanos, (v as Timestamp).offset)),
    global('duration_to_string', [DurationType], StringType, ([v]) => formatDuration((v as Duration).nanos)),
  ),
  fn(
    'bytes',
    global('bytes_to_bytes', [BytesType], BytesType, ([v]) => v!),
    global('string_to_bytes', [StringType], BytesType, ([v]) => new TextEncoder().encode(v as string)),
  ),
  fn(
    'bool',
    global('bool_to_bool', [BoolType], BoolType, ([v]) => v!),
    global('string_to_bool', [StringType], BoolType, ([v]) => boolTexts[v as string] ?? err(`type conversion error from 'string' to 'bool'`)),
  ),
  fn(
    'timestamp',
    global('timestamp_to_timestamp', [TimestampType], TimestampType, ([v]) => v!),
    global('string_to_timestamp', [StringType], TimestampType, ([v]) => {
      const parsed = parseZonedRFC3339(v as string);
      return parsed === undefined ? err(`type conversion error from 'string' to 'google.protobuf.Timestamp'`) : checkedTimestamp(parsed.nanos, parsed.offset);
    }),
    global('int64_to_timestamp', [IntType], TimestampType, ([v]) => checkedTimestamp((v as bigint) * NANOS)),
  ),
  fn(
    'duration',
    global('duration_to_duration', [DurationType], DurationType, ([v]) => v!),
    global('string_to_duration', [StringType], DurationType, ([v]) => {
      const nanos = parseGoDuration(v as string);
      return nanos === undefined ? err(`type conversion error from 'string' to 'google.protobuf.Duration'`) : new Duration(nanos);
    }),
  ),
  fn(
    'type',
    global('type', [A], typeOf(A), ([v]) => new TypeValue(typeName(v!))),
  ),
  dynFunction,
];

/** The type names usable as values in expressions (`type(x) == int`). */
export const typeIdentifiers: ReadonlyMap<string, import('../types.js').CelType> = new Map([
  ['int', IntType],
  ['uint', UintType],
  ['double', DoubleType],
  ['bool', BoolType],
  ['string', StringType],
  ['bytes', BytesType],
  ['list', { kind: 'list', elem: DynType } as const],
  ['map', { kind: 'map', key: DynType, value: DynType } as const],
  ['null_type', { kind: 'null_type' } as const],
  ['type', typeOf(undefined)],
  ['google.protobuf.Timestamp', TimestampType],
  ['google.protobuf.Duration', DurationType],
]);
