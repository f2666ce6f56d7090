// IP addresses in canonical form (as Go's netip.Addr prints them), the rule for IPAddress object names.
import { goQuote } from '../go-format.js';

/** Upstream 1.28's ValidateIPAddressName message for an address that parses but is not written canonically. */
const NOT_CANONICAL = 'not a valid ip in canonical format';

/** A parse failure, worded as Go's netip.ParseAddr error: `ParseAddr("x"): msg (at "rest")`. */
class AddrError {
  constructor(
    readonly input: string,
    readonly message: string,
    readonly at = '',
  ) {}

  toString(): string {
    return `ParseAddr(${goQuote(this.input)}): ${this.message}${this.at ? ` (at ${goQuote(this.at)})` : ''}`;
  }
}

interface Addr {
  /** 4 bytes for IPv4, 16 for IPv6. */
  bytes: number[];
  zone: string;
}

function parseIPv4(s: string): Addr | AddrError {
  const fields: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch >= '0' && ch <= '9') {
      if (digits === 1 && value === 0) return new AddrError(s, 'IPv4 field has octet with leading zero');
      value = value * 10 + Number(ch);
      digits++;
      if (value > 255) return new AddrError(s, 'IPv4 field has value >255');
    } else if (ch === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return new AddrError(s, 'IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) return new AddrError(s, 'IPv4 address too long');
      fields.push(value);
      value = 0;
      digits = 0;
    } else {
      return new AddrError(s, 'unexpected character', s.slice(i));
    }
  }
  if (fields.length < 3) return new AddrError(s, 'IPv4 address too short');
  return { bytes: [...fields, value], zone: '' };
}

const hexDigit = (ch: string | undefined): number => (ch !== undefined && /^[0-9a-fA-F]$/.test(ch) ? parseInt(ch, 16) : -1);

function parseIPv6(input: string): Addr | AddrError {
  let s = input;
  let zone = '';
  const percent = s.indexOf('%');
  if (percent !== -1) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (!zone) return new AddrError(input, 'zone must be a non-empty string');
  }
  const bytes = new Array<number>(16).fill(0);
  let ellipsis = -1; // the byte where '::' stands
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (!s) return { bytes, zone };
  }
  let i = 0;
  while (i < 16) {
    let length = 0;
    let group = 0;
    for (; length < s.length; length++) {
      const digit = hexDigit(s[length]);
      if (digit < 0) break;
      group = group * 16 + digit;
      if (length > 3) return new AddrError(input, 'each group must have 4 or less digits', s);
    }
    if (length === 0) return new AddrError(input, 'each colon-separated field must have at least one digit', s);
    if (s[length] === '.') {
      // An IPv4 address in the last 32 bits: ::ffff:1.2.3.4
      if (ellipsis < 0 && i !== 12) return new AddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) return new AddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4 = parseIPv4(s);
      if (v4 instanceof AddrError) return new AddrError(input, v4.toString(), s);
      bytes.splice(i, 4, ...v4.bytes);
      s = '';
      i += 4;
      break;
    }
    bytes[i] = group >> 8;
    bytes[i + 1] = group & 0xff;
    i += 2;
    s = s.slice(length);
    if (!s) break;
    if (s[0] !== ':') return new AddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) return new AddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return new AddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (!s) break;
    }
  }
  if (s) return new AddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return new AddrError(input, 'address string too short');
    const gap = 16 - i;
    bytes.splice(ellipsis, 0, ...new Array<number>(gap).fill(0));
    bytes.length = 16;
  } else if (ellipsis >= 0) {
    return new AddrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes, zone };
}

/** Go's netip.ParseAddr: dotted IPv4 without leading zeros, or IPv6 with an optional zone. */
function parseAddr(s: string): Addr | AddrError {
  for (const ch of s) {
    if (ch === '.') return parseIPv4(s);
    if (ch === ':') return parseIPv6(s);
    if (ch === '%') return new AddrError(s, 'missing IPv6 address');
  }
  return new AddrError(s, 'unable to parse IP');
}

/**
 * Go's netip.Addr.String: RFC 5952 for IPv6 (lower case, no leading zeros, the first longest run of
 * two or more zero groups as '::'), and IPv4-mapped addresses as `::ffff:1.2.3.4`.
 */
function formatAddr({ bytes, zone }: Addr): string {
  if (bytes.length === 4) return bytes.join('.');
  const suffix = zone ? `%${zone}` : '';
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${bytes.slice(12).join('.')}${suffix}`;
  }
  const groups = Array.from({ length: 8 }, (_, g) => (bytes[2 * g]! << 8) | bytes[2 * g + 1]!);
  let [runStart, runLength] = [-1, 1];
  for (let g = 0; g < 8; g++) {
    let end = g;
    while (end < 8 && groups[end] === 0) end++;
    if (end - g > runLength) [runStart, runLength] = [g, end - g];
  }
  const hex = (list: number[]): string => list.map((group) => group.toString(16)).join(':');
  if (runStart < 0) return hex(groups) + suffix;
  return `${hex(groups.slice(0, runStart))}::${hex(groups.slice(runStart + runLength))}${suffix}`;
}

/** The family of an IP address written exactly in canonical form, else undefined. Zones are not addresses. */
export function isCanonicalIP(text: string): 'v4' | 'v6' | undefined {
  const addr = parseAddr(text);
  if (addr instanceof AddrError || addr.zone || formatAddr(addr) !== text) return undefined;
  return addr.bytes.length === 4 ? 'v4' : 'v6';
}

/**
 * The problems with an IPAddress object's name, as upstream 1.28's ValidateIPAddressName: Go's parse
 * error, or that the address is not in canonical form. Unlike upstream, an IPv6 zone (`fe80::1%eth0`)
 * is refused as not canonical. A generateName prefix is checked as a whole address, as upstream's.
 */
export function ipAddressNameErrors(name: string): string[] {
  const addr = parseAddr(name);
  if (addr instanceof AddrError) return [addr.toString()];
  return isCanonicalIP(name) ? [] : [NOT_CANONICAL];
}
