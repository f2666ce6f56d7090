// Checks of addresses and ports as apimachinery's util/validation and core validation word them
// (upstream 1.28), for Endpoints and EndpointSlices: IPs parsed as k8s.io/utils' ParseIPSloppy
// (Go's net.ParseIP that also takes IPv4 octets with leading zeros), and the IPs an endpoint may not
// have (ValidateNonSpecialIP), judged as Go's net.IP methods judge them.
import { invalid, isDNS1123Label, isDNS1123Subdomain, IPV4_MAPPED_PREFIX, parseGoIP, required, type FieldError, type FieldPath, type IP } from '@plat/apimachinery';

/** The address as k8s.io/utils' ParseIPSloppy reads it. */
export const parseIP = (text: string): IP | undefined => parseGoIP(text, true);

/** Go's To4: the IPv4 address of an IPv4(-mapped) address. */
const to4 = (ip: IP): number[] | undefined => (IPV4_MAPPED_PREFIX.every((byte, i) => ip[i] === byte) ? ip.slice(12) : undefined);

/** upstream's IsValidIP: messages for a string that is no IP address. */
export function isValidIP(value: string): string[] {
  return parseIP(value) ? [] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

/** upstream's IsValidIPv4Address. */
export function isValidIPv4Address(path: FieldPath, value: string): FieldError[] {
  const ip = parseIP(value);
  return ip && to4(ip) ? [] : [invalid(path, value, 'must be a valid IPv4 address')];
}

/** upstream's IsValidIPv6Address. */
export function isValidIPv6Address(path: FieldPath, value: string): FieldError[] {
  const ip = parseIP(value);
  return ip && !to4(ip) ? [] : [invalid(path, value, 'must be a valid IPv6 address')];
}

/**
 * upstream's ValidateNonSpecialIP: an endpoint's IP may not be unspecified, loopback, link-local or
 * link-local multicast (node-centric addresses, such as a metadata service's).
 */
export function validateNonSpecialIP(value: string, path: FieldPath): FieldError[] {
  const ip = parseIP(value);
  if (!ip) return [invalid(path, value, 'must be a valid IP address')];
  const v4 = to4(ip);
  const errors: FieldError[] = [];
  const unspecified = v4 ? v4.every((byte) => byte === 0) : ip.every((byte) => byte === 0);
  const loopback = v4 ? v4[0] === 127 : ip.slice(0, 15).every((byte) => byte === 0) && ip[15] === 1;
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : ip[0] === 0xfe && (ip[1]! & 0xc0) === 0x80;
  const linkLocalMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : ip[0] === 0xff && (ip[1]! & 0x0f) === 0x02;
  if (unspecified) errors.push(invalid(path, value, `may not be unspecified (${value})`));
  if (loopback) errors.push(invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocal) errors.push(invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errors.push(invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errors;
}

/** upstream's IsValidPortNum. */
export const isValidPortNum = (port: number): string[] => (Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive']);

/** upstream's ValidateDNS1123Label: each problem as an Invalid value error. */
export const validateDNS1123Label = (value: string, path: FieldPath): FieldError[] => isDNS1123Label(value).map((message) => invalid(path, value, message));

/** upstream's ValidateNodeName (a DNS subdomain), as messages. */
export const nodeNameErrors = (name: string): string[] => isDNS1123Subdomain(name);

/** upstream's IsFullyQualifiedDomainName: a DNS subdomain of at least two labels, a trailing dot allowed. */
export function isFullyQualifiedDomainName(path: FieldPath, value: string): FieldError[] {
  if (value === '') return [required(path)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const subdomain = isDNS1123Subdomain(name);
  if (subdomain.length) return [invalid(path, name, subdomain.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const problems = isDNS1123Label(label);
    if (problems.length) return [invalid(path, label, problems.join(','))];
  }
  return [];
}

/** The protocols a port may name (upstream's supportedPortProtocols, sorted as sets.List sorts them). */
export const portProtocols = ['SCTP', 'TCP', 'UDP'] as const;
