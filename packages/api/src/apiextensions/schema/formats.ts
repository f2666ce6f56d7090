// The string formats a custom resource's schema is checked against: kube-openapi's strfmt registry as
// apiextensions 1.28 keeps it (validation/formats.go: every other format, int32, int64, float and
// double included, is dropped before validating), each checked as its Go validator checks it.
import { parseDuration, parseGoIP } from '@plat/apimachinery';

/** Upstream's name normalisation: `date-time` is `datetime`; names are otherwise case-sensitive. */
const normalize = (format: string): string => format.replaceAll('-', '');

const hexOctets = (text: string): number | undefined => (/^(?:[0-9a-fA-F]{2})*$/.test(text) ? text.length / 2 : undefined);

/** Go's net.ParseIP, with k8s.io/utils' ParseIPSloppy allowing leading zeros when `sloppy`. */
const parseIP = (text: string, sloppy: boolean): boolean => parseGoIP(text, sloppy) !== undefined;

function isCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash === -1) return false;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!parseIP(address, true) || !/^\d+$/.test(prefix)) return false;
  const bits = address.includes(':') ? 128 : 32;
  return Number(prefix) <= bits;
}

/** Go's net.ParseMAC: 6, 8 or 20 octets as `01:23:..`, `01-23-..` or `0123.4567.89ab`. */
function isMAC(text: string): boolean {
  let octets: number | undefined;
  if (text[2] === ':' || text[2] === '-') {
    const separator = text[2];
    const parts = text.split(separator);
    if (parts.every((part) => /^[0-9a-fA-F]{2}$/.test(part))) octets = parts.length;
  } else if (text[4] === '.') {
    const parts = text.split('.');
    if (parts.every((part) => /^[0-9a-fA-F]{4}$/.test(part))) octets = parts.length * 2;
  }
  return octets === 6 || octets === 8 || octets === 20;
}

// Go's url.ParseRequestURI: an absolute URI or an absolute path. Query and fragment are not checked.
const hostAllowed = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%\u0080-\uffff]*$/u;
const userinfoAllowed = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function validEscapes(text: string): boolean {
  return !/%(?![0-9a-fA-F]{2})/.test(text);
}

function isRequestURI(text: string): boolean {
  if (text === '') return false;
  // Go rejects ASCII control characters anywhere.
  if (/[\x00-\x1f\x7f]/.test(text)) return false;
  if (text === '*') return true;
  let scheme = '';
  let rest = text;
  const scan = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(text);
  if (scan) {
    scheme = scan[1]!;
    rest = text.slice(scan[0].length);
  } else if (text.startsWith(':')) {
    return false;
  }
  const question = rest.indexOf('?');
  if (question !== -1) rest = rest.slice(0, question);
  if (!rest.startsWith('/')) return scheme !== '';
  if (scheme && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash === -1 ? '' : authority.slice(slash);
    if (slash !== -1) authority = authority.slice(0, slash);
    const at = authority.lastIndexOf('@');
    if (at !== -1) {
      if (!userinfoAllowed.test(authority.slice(0, at)) || !validEscapes(authority.slice(0, at))) return false;
      authority = authority.slice(at + 1);
    }
    if (!validHost(authority)) return false;
  }
  return validEscapes(rest);
}

function validHost(host: string): boolean {
  let port = '';
  let name = host;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close === -1) return false;
    port = host.slice(close + 1);
    if (port && !port.startsWith(':')) return false;
    name = host.slice(1, close);
    const zone = name.indexOf('%25');
    const address = zone === -1 ? name : name.slice(0, zone);
    if (!address.includes(':') || !parseIP(address, false)) return false;
  } else {
    const colon = host.lastIndexOf(':');
    if (colon !== -1) {
      port = host.slice(colon);
      name = host.slice(0, colon);
    }
    if (!hostAllowed.test(name) || !validEscapes(name)) return false;
  }
  return port === '' || /^:\d*$/.test(port);
}

// net/mail.ParseAddress, for one address: `local@domain` or `Display Name <local@domain>`.
const atom = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uffff]+";
const dotAtom = `${atom}(?:\\.${atom})*`;
const quotedString = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
const addrSpec = `(?:${dotAtom}|${quotedString})@(?:${dotAtom}|\\[[^\\[\\]\\\\]*\\])`;
const emailPattern = new RegExp(`^\\s*(?:${addrSpec}|(?:(?:${atom}|${quotedString})(?:\\s+(?:${atom}|${quotedString}))*\\s*)?<${addrSpec}>)\\s*$`, 'u');

// kube-openapi's hostname pattern (JSON Schema's), with its lengths in bytes.
const hostnamePattern =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

function isHostname(text: string): boolean {
  return hostnamePattern.test(text) && utf8Length(text) <= 255 && text.split('.').every((part) => utf8Length(part) <= 63);
}

function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

// strfmt's IsDateTime: a date, a "t", then a time checked only field by field (as text).
const timePattern = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u;

function isDateTime(text: string): boolean {
  if (text.length < 4) return false;
  const parts = text.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const match = timePattern.exec(parts[1]!);
  return match !== null && match[1]! <= '23' && match[2]! <= '59' && match[3]! <= '59';
}

// strfmt's ParseDuration: Go's time.ParseDuration, else any "<digits> <unit>" it can read.
const durationUnits = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

function isDuration(text: string): boolean {
  try {
    parseDuration(text);
    return true;
  } catch {
    // Fall through to the lenient form.
  }
  let known = false;
  for (const match of text.matchAll(/(\d+)\s*([A-Za-zµ]+)/gu)) {
    // Go's strconv.Atoi refuses what an int64 cannot hold, and the whole parse fails.
    if (BigInt(match[1]!) > 2n ** 63n - 1n) return false;
    const unit = match[2]!.trim().toLowerCase();
    for (const variants of durationUnits) {
      variants.forEach((variant, index) => {
        if ((index === variants.length - 1 && unit.startsWith(variant)) || variant.toLowerCase() === unit) known = true;
      });
    }
  }
  return known;
}

// Go's \s is ASCII whitespace without \v.
const isbnSeparators = /[\t\n\f\r -]+/g;

function isISBN10(text: string): boolean {
  const digits = text.replace(isbnSeparators, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(digits[i]);
  sum += 10 * (digits[9] === 'X' ? 10 : Number(digits[9]));
  return sum % 11 === 0;
}

function isISBN13(text: string): boolean {
  const digits = text.replace(isbnSeparators, '');
  if (!/^[0-9]{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(digits[i]);
  return Number(digits[12]) === (10 - (sum % 10)) % 10;
}

function isCreditCard(text: string): boolean {
  const digits = text.replace(/[^0-9]+/g, '');
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(digits)) {
    return false;
  }
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = Number(digits[i]);
    if (double) {
      digit *= 2;
      if (digit >= 10) digit = (digit % 10) + 1;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// Go's \s in these patterns is ASCII whitespace only.
const rgbByte = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbColor = new RegExp(`^rgb\\([\\t\\n\\f\\r ]*${rgbByte}[\\t\\n\\f\\r ]*,[\\t\\n\\f\\r ]*${rgbByte}[\\t\\n\\f\\r ]*,[\\t\\n\\f\\r ]*${rgbByte}[\\t\\n\\f\\r ]*\\)$`);

const validators: ReadonlyMap<string, (text: string) => boolean> = new Map([
  ['bsonobjectid', (text: string) => hexOctets(text) === 12],
  ['uri', isRequestURI],
  ['email', (text: string) => emailPattern.test(text)],
  ['hostname', isHostname],
  ['ipv4', (text: string) => parseIP(text, true) && text.includes('.')],
  ['ipv6', (text: string) => parseIP(text, false) && text.includes(':')],
  ['cidr', isCIDR],
  ['mac', isMAC],
  ['uuid', (text: string) => uuid.test(text)],
  ['uuid3', (text: string) => uuid3.test(text)],
  ['uuid4', (text: string) => uuid4.test(text)],
  ['uuid5', (text: string) => uuid5.test(text)],
  ['isbn', (text: string) => isISBN10(text) || isISBN13(text)],
  ['isbn10', isISBN10],
  ['isbn13', isISBN13],
  ['creditcard', isCreditCard],
  ['ssn', (text: string) => text.length === 11 && /^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$/.test(text)],
  ['hexcolor', (text: string) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(text)],
  ['rgbcolor', (text: string) => rgbColor.test(text)],
  ['byte', (text: string) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(text)],
  ['password', () => true],
  ['date', isDate],
  ['duration', isDuration],
  ['datetime', isDateTime],
]);

/** The format as upstream validates with it: '' when it is not one the CRD validator knows. */
export function supportedFormat(format: string | undefined): string {
  return format && validators.has(normalize(format)) ? format : '';
}

/** Whether `text` is valid for a supported format (see supportedFormat). */
export function matchesFormat(format: string, text: string): boolean {
  return validators.get(normalize(format))?.(text) ?? false;
}
