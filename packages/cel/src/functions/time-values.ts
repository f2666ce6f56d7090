// Timestamps and durations as text: RFC 3339 (to the nanosecond, years 1 to 9999 as cel-go), Go's
// duration syntax (`1h2m3.5s`), and a timestamp's calendar fields in a time zone.
import { Duration, ErrorValue, Timestamp, type Value } from '../values.js';
import { MAX_INT64, MIN_INT64 } from './int64.js';

const NANOS = 1_000_000_000n;
const MIN_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z
const MAX_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z

/** A timestamp (in the zone `offset` seconds east of UTC), or an error when out of years 1 to 9999. */
export function checkedTimestamp(nanos: bigint, offset = 0): Value {
  const seconds = floorDiv(nanos, NANOS);
  return seconds < MIN_SECONDS || seconds > MAX_SECONDS ? new ErrorValue('timestamp out of range') : new Timestamp(nanos, offset);
}

export const checkedDuration = (nanos: bigint): Value => (nanos < MIN_INT64 || nanos > MAX_INT64 ? new ErrorValue('duration out of range') : new Duration(nanos));

export const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

/** Seconds since the epoch of a UTC calendar date and time (any year from 1). */
function epochSeconds(year: number, month: number, day: number, hour: number, minute: number, second: number): bigint {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return BigInt(date.getTime() / 1000);
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time as a timestamp with the offset it was written in (seconds east of UTC); undefined when it is not one. */
export function parseZonedRFC3339(text: string): { nanos: bigint; offset: number } | undefined {
  const m = rfc3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  let seconds = epochSeconds(year, month, day, hour, minute, second);
  const zone = m[8]!;
  let offset = 0;
  if (zone !== 'Z' && zone !== 'z') {
    offset = (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
    seconds -= BigInt(offset);
  }
  const fraction = BigInt((m[7] ?? '').padEnd(9, '0') || '0');
  return { nanos: seconds * NANOS + fraction, offset };
}

/** A full date (`2006-01-02`) as the timestamp of its midnight, UTC. */
export function parseDate(text: string): bigint | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [year, month, day] = m.slice(1).map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return epochSeconds(year, month, day, 0, 0, 0) * NANOS;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Go's RFC3339Nano in the zone `offset` seconds east of UTC: trailing zeros of the fraction dropped, Z for UTC. */
export function formatTimestamp(nanos: bigint, offset = 0): string {
  const seconds = floorDiv(nanos, NANOS);
  const fraction = nanos - seconds * NANOS;
  const date = new Date((Number(seconds) + offset) * 1000);
  const base = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  const frac = fraction ? `.${String(fraction).padStart(9, '0').replace(/0+$/, '')}` : '';
  const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 3600))}:${pad(Math.floor((Math.abs(offset) % 3600) / 60))}`;
  return `${base}${frac}${zone}`;
}

const unitNanos: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: NANOS, m: 60n * NANOS, h: 3600n * NANOS };

/** Go's time.ParseDuration, exactly (nanosecond integers, fractions truncated as Go does). */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text;
  let sign = 1n;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1n;
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (s.length) {
    const m = part.exec(s);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = unitNanos[m[3]!]!;
    const whole = BigInt(m[1] || '0') * unit;
    const digits = m[2] ?? '';
    const fraction = digits ? (BigInt(digits) * unit) / 10n ** BigInt(digits.length) : 0n;
    total += whole + fraction;
    if (total > 1n << 63n) return undefined;
    s = s.slice(m[0].length);
  }
  total *= sign;
  return total < MIN_INT64 || total > MAX_INT64 ? undefined : total;
}

/** A duration as cel-go writes it: seconds with the fraction it needs, then `s` (`3723.5s`). */
export function formatDuration(nanos: bigint): string {
  const negative = nanos < 0n;
  const abs = negative ? -nanos : nanos;
  const whole = abs / NANOS;
  const fraction = abs % NANOS;
  const frac = fraction ? `.${String(fraction).padStart(9, '0').replace(/0+$/, '')}` : '';
  return `${negative ? '-' : ''}${whole}${frac}s`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The offset from UTC, in seconds, of `zone` (an IANA name or ±hh:mm) at the instant `seconds`. */
function zoneOffset(zone: string, seconds: bigint): number | undefined {
  const fixed = /^([+-]?)(\d{1,2}):(\d{2})$/.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 3600 + Number(fixed[3]) * 60);
  let format = zoneFormats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch {
      return undefined;
    }
    zoneFormats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(Number(seconds) * 1000)).map((p) => [p.type, p.value]));
  const year = parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year);
  const local = epochSeconds(year, Number(parts.month), Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Number(local - seconds);
}

export interface CalendarFields {
  year: number;
  /** 0-based */
  month: number;
  /** 1-based */
  day: number;
  dayOfWeek: number;
  /** 0-based */
  dayOfYear: number;
  hours: number;
  minutes: number;
  seconds: number;
  milliseconds: number;
}

/** The calendar fields of a timestamp in `zone` (UTC when undefined); undefined for an unknown zone. */
export function calendarFields(nanos: bigint, zone: string | undefined): CalendarFields | undefined {
  const seconds = floorDiv(nanos, NANOS);
  const offset = zone === undefined ? 0 : zoneOffset(zone, seconds);
  if (offset === undefined) return undefined;
  const date = new Date((Number(seconds) + offset) * 1000);
  const startOfYear = new Date(0);
  startOfYear.setUTCFullYear(date.getUTCFullYear(), 0, 1);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth(),
    day: date.getUTCDate(),
    dayOfWeek: date.getUTCDay(),
    dayOfYear: Math.floor((date.getTime() - startOfYear.getTime()) / 86_400_000),
    hours: date.getUTCHours(),
    minutes: date.getUTCMinutes(),
    seconds: date.getUTCSeconds(),
    milliseconds: Number((nanos - seconds * NANOS) / 1_000_000n),
  };
}
