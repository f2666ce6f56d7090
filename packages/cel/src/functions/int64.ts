// Exact 64-bit integer arithmetic: a result outside int64 (or uint64) is an error, as in cel-go,
// never a wrapped or rounded number.
import { ErrorValue, UInt, type Value } from '../values.js';

export const MIN_INT64 = -(1n << 63n);
export const MAX_INT64 = (1n << 63n) - 1n;
export const MAX_UINT64 = (1n << 64n) - 1n;

const intOverflow = new ErrorValue('integer overflow');
const uintOverflow = new ErrorValue('unsigned integer overflow');

export const checkedInt = (n: bigint): Value => (n < MIN_INT64 || n > MAX_INT64 ? intOverflow : n);
export const checkedUint = (n: bigint): Value => (n < 0n || n > MAX_UINT64 ? uintOverflow : new UInt(n));

export function divideInt(a: bigint, b: bigint): Value {
  if (b === 0n) return new ErrorValue('division by zero');
  if (a === MIN_INT64 && b === -1n) return intOverflow;
  return a / b;
}

export function moduloInt(a: bigint, b: bigint): Value {
  if (b === 0n) return new ErrorValue('modulus by zero');
  if (a === MIN_INT64 && b === -1n) return intOverflow;
  return a % b;
}

/** A double as an int64, truncated; an error when it is not within range (cel-go's bounds). */
export function doubleToInt(d: number): Value {
  if (!Number.isFinite(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0) return new ErrorValue('integer overflow');
  return BigInt(Math.trunc(d));
}

export function doubleToUint(d: number): Value {
  if (!Number.isFinite(d) || d < 0 || d >= 18446744073709551615.0) return new ErrorValue('unsigned integer overflow');
  return new UInt(BigInt(Math.trunc(d)));
}
