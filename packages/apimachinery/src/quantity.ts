// resource.Quantity: an exact decimal (`250m`, `1.5Gi`, `12e6`) with upstream's parsing, rounding, comparison and canonical text.

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export class QuantityError extends Error {
  override readonly name = 'QuantityError';
}

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC = 'unable to parse numeric part of quantity';
const SUFFIX = "unable to parse quantity's suffix";

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixOf = new Map(Object.entries(decimalSuffixes).map(([suffix, exponent]) => [exponent, suffix]));
const binarySuffixOf = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const MAX_INT64 = 2n ** 63n - 1n;
/** Values are rounded up to whole nano units (10^-9). */
const NANO = -9;

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const digitCount = (n: bigint): number => (n === 0n ? 0 : abs(n).toString().length);

/** The parts of the text, as upstream's parseQuantityString splits it. */
interface Scanned {
  negative: boolean;
  /** The integer digits, leading zeros removed; "0" when there are none. */
  num: string;
  /** The fraction digits as written. */
  denom: string;
  suffix: string;
  /** Whether the number part has any digit at all (`.` has none). */
  hasDigits: boolean;
}

function scan(text: string): Scanned {
  let pos = 0;
  const negative = text[0] === '-';
  if (text[0] === '-' || text[0] === '+') pos++;
  const digitsFrom = (start: number): number => {
    let end = start;
    while (end < text.length && text[end]! >= '0' && text[end]! <= '9') end++;
    return end;
  };
  const numberStart = pos;
  while (text[pos] === '0') pos++;
  let end = digitsFrom(pos);
  const num = text.slice(pos, end) || '0';
  pos = end;
  let denom = '';
  if (text[pos] === '.') {
    end = digitsFrom(pos + 1);
    denom = text.slice(pos + 1, end);
    pos = end;
  }
  const hasDigits = /[0-9]/.test(text.slice(numberStart, pos));
  const suffixStart = pos;
  while (pos < text.length && 'eEinumkKMGTP'.includes(text[pos]!)) pos++;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  if (digitsFrom(pos) !== text.length) throw new QuantityError(FORMAT_WRONG);
  return { negative, num, denom, suffix: text.slice(suffixStart), hasDigits };
}

/** The suffix's base and exponent: decimal SI, binary SI, or e<n>/E<n> (exponent as Go's int32 of an int64). */
function interpret(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } {
  const decimal = decimalSuffixes[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = binarySuffixes[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const parsed = BigInt(suffix.slice(1));
    if (parsed >= -(2n ** 63n) && parsed <= MAX_INT64) return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  throw new QuantityError(SUFFIX);
}

/**
 * Whether upstream's fast int64 path parses the text, and the text it then keeps and prints back
 * unchanged when that looks canonical already (so `+1`, `05` and `1E6` print as written, as upstream).
 */
function fastPath(text: string, { num, denom }: Scanned, base: 10 | 2, exponent: number): { fast: boolean; kept?: string } {
  if (base === 10) {
    const scale = exponent - denom.length;
    if (18 - (num.length + denom.length) < 0 || scale < NANO) return { fast: false };
    const shifted = num + denom;
    return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0' ? { fast: true, kept: text } : { fast: true };
  }
  if (denom || 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 < 0) return { fast: false };
  const value = BigInt(num);
  if (value << BigInt(exponent) > MAX_INT64) return { fast: false };
  return (value & 7n) !== 0n ? { fast: true, kept: text } : { fast: true };
}

/** |unscaled| × 10^exponent rounded up to whole nano units, as upstream rounds every parsed value. */
function roundUpToNano(unscaled: bigint, exponent: number): [bigint, number] {
  if (exponent >= NANO || unscaled === 0n) return [unscaled, exponent];
  const shift = NANO - exponent;
  if (shift > digitCount(unscaled)) return [1n, NANO];
  const divisor = pow10(shift);
  const quotient = unscaled / divisor;
  return [unscaled % divisor === 0n ? quotient : quotient + 1n, NANO];
}

// parseQuantity's way past the private constructor, set by the class's static block.
let construct: (unscaled: bigint, exponent: number, format: QuantityFormat, kept?: string) => Quantity;

export class Quantity {
  private readonly unscaled: bigint;
  private readonly exponent: number;

  /** Use parseQuantity. The value is unscaled × 10^exponent. */
  private constructor(
    unscaled: bigint,
    exponent: number,
    /** How the value prints: as written with decimal or binary suffixes, or with an exponent. */
    readonly format: QuantityFormat,
    private readonly kept?: string,
  ) {
    // Trailing zeros move into the exponent, so equal values have equal parts.
    while (unscaled !== 0n && unscaled % 10n === 0n) {
      unscaled /= 10n;
      exponent++;
    }
    this.unscaled = unscaled;
    this.exponent = unscaled === 0n ? 0 : exponent;
  }

  static {
    construct = (unscaled, exponent, format, kept) => new Quantity(unscaled, exponent, format, kept);
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled > 0n ? 1 : this.unscaled < 0n ? -1 : 0;
  }

  compare(other: Quantity): -1 | 0 | 1 {
    const [a, b] = [this.sign(), other.sign()];
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    // Compare orders of magnitude first: exponents may be far apart (1e2000000000).
    const [ma, mb] = [digitCount(this.unscaled) + this.exponent, digitCount(other.unscaled) + other.exponent];
    if (ma !== mb) return (ma > mb ? a : -a) as -1 | 1;
    const [x, y] = this.aligned(other);
    return x === y ? 0 : x > y ? 1 : -1;
  }

  /** The two unscaled values at a common exponent. */
  private aligned(other: Quantity): [bigint, bigint, number] {
    const exponent = Math.min(this.exponent, other.exponent);
    return [this.unscaled * pow10(this.exponent - exponent), other.unscaled * pow10(other.exponent - exponent), exponent];
  }

  /** The exact sum, in this format (the other's when this is zero, as upstream's Add). */
  add(other: Quantity): Quantity {
    const [x, y, exponent] = this.aligned(other);
    return new Quantity(x + y, exponent, this.isZero() ? other.format : this.format);
  }

  /** The exact difference, formatted as add. */
  sub(other: Quantity): Quantity {
    return this.add(new Quantity(-other.unscaled, other.exponent, other.format));
  }

  /** this / other as a float (±Infinity or NaN when other is zero), for ratio checks such as LimitRange's. */
  ratioTo(other: Quantity): number {
    if (other.isZero()) return this.isZero() ? NaN : this.sign() * Infinity;
    return (Number(this.unscaled) / Number(other.unscaled)) * 10 ** (this.exponent - other.exponent);
  }

  /** The canonical text: the largest suffix of the format that loses no precision (`1500m`, `1536Mi`, `12e6`). */
  toString(): string {
    if (this.kept !== undefined) return this.kept;
    if (this.isZero()) return '0';
    // Parsed binary quantities are at most 2^63-1; the bound keeps sums of absurd values cheap to print.
    const binary = this.format === 'BinarySI' && this.exponent >= 0 && this.exponent <= 40;
    if (binary && abs(this.unscaled) * pow10(this.exponent) >= 1024n) {
      let value = this.unscaled * pow10(this.exponent);
      let power = 0;
      while (value % 1024n === 0n && power < binarySuffixOf.length - 1) {
        value /= 1024n;
        power++;
      }
      return `${value}${binarySuffixOf[power]}`;
    }
    // Decimal: the exponent lowered to a multiple of three.
    let mantissa = this.unscaled;
    let exponent = this.exponent;
    while (exponent % 3 !== 0) {
      mantissa *= 10n;
      exponent--;
    }
    if (this.format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
    // Beyond E upstream prints no suffix at all (a bug: 1000E prints as "1"); an exponent keeps it exact.
    const suffix = decimalSuffixOf.get(exponent);
    return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/**
 * Parses a quantity as upstream's resource.ParseQuantity: rounds up to whole nano units, caps binary
 * quantities at 2^63-1, and throws QuantityError with upstream's message when the text is not one.
 */
export function parseQuantity(text: string): Quantity {
  if (!text) throw new QuantityError(FORMAT_WRONG);
  if (text === '0') return construct(0n, 0, 'DecimalSI', '0');
  const scanned = scan(text);
  const { base, exponent, format } = interpret(scanned.suffix);
  const { fast, kept } = fastPath(text, scanned, base, exponent);
  // Upstream's slow path reads the number part as a decimal, and `.` has no digits to read.
  if (!fast && !scanned.hasDigits) throw new QuantityError(NUMERIC);

  const digits = BigInt(scanned.num + scanned.denom);
  const [exact, exactScale] = base === 10 ? [digits, exponent - scanned.denom.length] : [digits * 2n ** BigInt(exponent), -scanned.denom.length];
  let [magnitude, scale] = roundUpToNano(exact, exactScale);
  let resultFormat = format;
  if (format === 'BinarySI') {
    // Binary quantities have a scale of 0 to -9 here, so the bounds are cheap to compare exactly.
    const one = pow10(-scale);
    if (magnitude > MAX_INT64 * one) [magnitude, scale] = [MAX_INT64, 0];
    // A binary quantity below 1 prints in decimal; upstream switches its format while parsing.
    else if (magnitude !== 0n && magnitude < one) resultFormat = 'DecimalSI';
  }
  return construct(scanned.negative ? -magnitude : magnitude, scale, resultFormat, kept);
}
