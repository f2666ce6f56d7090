// Times as upstream serializes them, whatever RFC 3339 form a client sent: metav1.Time in whole
// seconds, metav1.MicroTime with six fractional digits, both in UTC.

const rfc3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i;

/** The whole-second UTC time and the fraction's digits of an RFC 3339 text; undefined when it is not one. */
function parse(text: string): { whole: Date; fraction: string } | undefined {
  const match = rfc3339.exec(text);
  if (!match) return undefined;
  const [, seconds, fraction = '', zone] = match;
  const whole = new Date(`${seconds}${zone!.toUpperCase()}`);
  return Number.isNaN(whole.getTime()) ? undefined : { whole, fraction };
}

/**
 * An RFC 3339 time as upstream's MicroTime writes it: UTC, exactly six fractional digits (extra
 * digits are truncated, as Go's formatting does). Text that is not RFC 3339 is returned as it is.
 */
export function formatMicroTime(text: string): string {
  const parsed = parse(text);
  if (!parsed) return text;
  return `${parsed.whole.toISOString().slice(0, 19)}.${parsed.fraction.slice(0, 6).padEnd(6, '0')}Z`;
}

/** An RFC 3339 time as upstream's Time writes it: UTC, whole seconds. Other text is returned as it is. */
export function formatTime(text: string): string {
  const parsed = parse(text);
  return parsed ? `${parsed.whole.toISOString().slice(0, 19)}Z` : text;
}

/** Go's zero time, which a client may send for "unset". */
const ZERO = Date.parse('0001-01-01T00:00:00Z');

/** Whether a Time or MicroTime is unset: absent, null, or Go's zero time. */
export const isZeroTime = (text: string | null | undefined): boolean => !text || Date.parse(text) === ZERO;
