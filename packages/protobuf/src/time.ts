// RFC 3339 text <-> the {seconds, nanos} of meta/v1 Time and MicroTime, as upstream marshals them.
import { ProtobufError } from './errors.js';

export interface Timestamp {
  readonly seconds: number;
  readonly nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

const digit = (text: string, at: number): number => text.charCodeAt(at) - 48;
const twoDigits = (text: string, at: number): number => {
  const tens = digit(text, at);
  const ones = digit(text, at + 1);
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : NaN;
};

/** The seconds of the form Time is written in ("2006-01-02T15:04:05Z"), without a regular expression; else undefined. */
function parseCanonical(text: string): number | undefined {
  if (text.length !== 20 || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':' || text[19] !== 'Z') {
    return undefined;
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  // NaN (a non-digit) fails every comparison: the regular expression then reports the error.
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 59)) {
    return undefined;
  }
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
}

// The last text parsed and its (shared, read-only) result: objects written together often share
// their times.
let lastText: string | undefined;
let lastParsed: Timestamp = Object.freeze({ seconds: 0, nanos: 0 });

/** Parses RFC 3339 text (any offset, optional fraction up to nanoseconds), as Go's time.Parse. */
export function parseTime(text: string, field: string): Timestamp {
  if (text === lastText) return lastParsed;
  const canonical = parseCanonical(text);
  if (canonical !== undefined) {
    lastText = text;
    lastParsed = Object.freeze({ seconds: canonical, nanos: 0 });
    return lastParsed;
  }
  const m = RFC3339.exec(text);
  if (!m) throw new ProtobufError('InvalidValue', `${field}: ${JSON.stringify(text)} is not an RFC 3339 time`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw new ProtobufError('InvalidValue', `${field}: ${JSON.stringify(text)} is out of range`);
  }
  let seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  if (m[9]) seconds -= (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60);
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  lastText = text;
  lastParsed = Object.freeze({ seconds, nanos });
  return lastParsed;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** The date of a day counted from 1970-01-01 (Howard Hinnant's civil_from_days). */
function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

// The characters of "2006-01-02T15:04:05Z" and of its MicroTime form "2006-01-02T15:04:05.000000Z", as
// char codes, filled in place: String.fromCharCode makes a flat string, where a template or `+` would
// make a tree of string pieces that every decoded object would keep.
const timeCodes = [...'0000-00-00T00:00:00Z'].map((c) => c.charCodeAt(0));
const microTimeCodes = [...'0000-00-00T00:00:00.000000Z'].map((c) => c.charCodeAt(0));

function putDigits(codes: number[], at: number, value: number, width: number): void {
  for (let i = at + width - 1; i >= at; i--) {
    codes[i] = 48 + (value % 10);
    value = Math.floor(value / 10);
  }
}

/** Fills "2006-01-02T15:04:05" into codes; false for a year Go writes with other than four digits. */
function putDateTime(codes: number[], seconds: number): boolean {
  const days = Math.floor(seconds / 86400);
  const secondOfDay = seconds - days * 86400;
  const [year, month, day] = civilFromDays(days);
  if (year < 0 || year > 9999) return false;
  putDigits(codes, 0, year, 4);
  putDigits(codes, 5, month, 2);
  putDigits(codes, 8, day, 2);
  putDigits(codes, 11, Math.floor(secondOfDay / 3600), 2);
  putDigits(codes, 14, Math.floor((secondOfDay % 3600) / 60), 2);
  putDigits(codes, 17, secondOfDay % 60, 2);
  return true;
}

// Go's layout for years outside 0000-9999 (rare): the year as a plain number.
function wideYear(seconds: number, fraction: string): string {
  const days = Math.floor(seconds / 86400);
  const secondOfDay = seconds - days * 86400;
  const [year, month, day] = civilFromDays(days);
  const two = (n: number): string => pad(n, 2);
  return `${year}-${two(month)}-${two(day)}T${two(Math.floor(secondOfDay / 3600))}:${two(Math.floor((secondOfDay % 3600) / 60))}:${two(secondOfDay % 60)}${fraction}Z`;
}

// The last result is kept: objects read together often share their times.
let lastFormattedSeconds = NaN;
let lastFormatted = '';

/** metav1.Time's JSON form: RFC 3339 in UTC, whole seconds ("2006-01-02T15:04:05Z"). */
export function formatTime(seconds: number): string {
  if (seconds === lastFormattedSeconds) return lastFormatted;
  const text = putDateTime(timeCodes, seconds) ? String.fromCharCode(...timeCodes) : wideYear(seconds, '');
  lastFormattedSeconds = seconds;
  lastFormatted = text;
  return text;
}

/** metav1.MicroTime's JSON form: RFC 3339 in UTC with six fraction digits ("...05.000000Z"). */
export function formatMicroTime(seconds: number, nanos: number): string {
  const micros = Math.floor(nanos / 1000);
  if (!putDateTime(microTimeCodes, seconds)) return wideYear(seconds, `.${pad(micros, 6)}`);
  putDigits(microTimeCodes, 20, micros, 6);
  return String.fromCharCode(...microTimeCodes);
}
