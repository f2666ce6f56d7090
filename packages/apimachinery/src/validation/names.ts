// Name and key formats (DNS labels and subdomains, qualified names, label values, path segments) and the name validators kinds choose from.
import { byteLength, emptyError, maxLenError, regexError } from './messages.js';

/** Upstream's ValidateNameFunc: the problems with a name, or with a generateName prefix when `prefix`. */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelMaxLength = 63;
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelMaxLength = 63;
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainMaxLength = 253;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueMaxLength = 63;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

/** A DNS label (RFC 1123): `my-name`, at most 63 characters. */
export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > dns1123LabelMaxLength) errors.push(maxLenError(dns1123LabelMaxLength));
  if (!dns1123LabelRegexp.test(value)) errors.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  return errors;
}

/** A DNS label (RFC 1035): as RFC 1123's, but starting with a letter (`my-name`, not `123-abc`). */
export function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > dns1035LabelMaxLength) errors.push(maxLenError(dns1035LabelMaxLength));
  if (!dns1035LabelRegexp.test(value)) errors.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errors;
}

/** A DNS subdomain (RFC 1123): dot-separated labels, `example.com`, at most 253 characters. */
export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > dns1123SubdomainMaxLength) errors.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) errors.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errors;
}

/** A qualified name, the form of label and annotation keys: `name` or `dns.subdomain/name`. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (!prefix) errors.push(`prefix part ${emptyError()}`);
    else errors.push(...isDNS1123Subdomain(prefix).map((message) => `prefix part ${message}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (!name) errors.push(`name part ${emptyError()}`);
  else if (byteLength(name) > qualifiedNameMaxLength) errors.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errors.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errors;
}

/** A label value: empty, or a qualified name's name part. */
export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > labelValueMaxLength) errors.push(maxLenError(labelValueMaxLength));
  if (!labelValueRegexp.test(value)) errors.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errors;
}

const nameMayNotBe = ['.', '..'];
const nameMayNotContain = ['/', '%'];

/** A name that can be one segment of a URL path or storage key: not `.` or `..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  const reserved = nameMayNotBe.find((illegal) => name === illegal);
  if (reserved !== undefined) return [`may not be '${reserved}'`];
  return isValidPathSegmentPrefix(name);
}

// A prefix may be `.` or `..`: the generated suffix makes the whole name valid.
const isValidPathSegmentPrefix = (name: string): string[] =>
  nameMayNotContain.filter((illegal) => name.includes(illegal)).map((illegal) => `may not contain '${illegal}'`);

/**
 * Upstream's maskTrailingDash: a generateName prefix may end in '-', since characters will follow.
 * Upstream replaces the last two characters (not just the dash) with 'a'; kept, so that the same
 * prefixes pass.
 */
const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

/** Names that must be DNS subdomains: most kinds. */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Names that must be DNS labels: namespaces, services. */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** Names that need only be usable as a path segment: RBAC kinds. */
export const nameIsPathSegment: ValidateNameFunc = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRegexp = new RegExp(`^${configMapKeyFmt}$`);

/**
 * A key of a ConfigMap's or Secret's data: a file name when mounted, so letters, digits, '-', '_'
 * and '.', at most 253 characters, and neither '.' nor '..' nor anything starting with '..'.
 */
export function isConfigMapKey(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > dns1123SubdomainMaxLength) errors.push(maxLenError(dns1123SubdomainMaxLength));
  if (!configMapKeyRegexp.test(value)) {
    errors.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errors.push("must not be '.'");
  else if (value === '..') errors.push("must not be '..'");
  else if (value.startsWith('..')) errors.push("must not start with '..'");
  return errors;
}
