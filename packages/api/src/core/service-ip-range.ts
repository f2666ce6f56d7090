// A service CIDR as upstream 1.28's IPAddress-backed allocator sees it (ipallocator.go with
// MultiCIDRServiceAllocator): the network address never handed out, nor IPv4's broadcast address;
// a lower band (KEP-3070: min(max(16, size/16), 256) addresses) kept for requested IPs, dynamic
// allocation from the upper band first. Addresses as bigints; names in canonical form.
import { parseIP } from '../common/network-checks.js';

export type IPFamily = 'IPv4' | 'IPv6';

export interface ServiceCIDR {
  text: string;
  family: IPFamily;
  bits: number;
  /** The network address. */
  network: bigint;
  /** The first and last addresses handed out. */
  first: bigint;
  last: bigint;
  /** The size of the lower band (0 for small ranges). */
  offset: number;
}

/** The address's number; undefined where it is no IP. */
export function ipNumber(text: string): { family: IPFamily; value: bigint } | undefined {
  const bytes = parseIP(text);
  if (!bytes) return undefined;
  const v4 = !text.includes(':');
  const used = v4 ? bytes.slice(12) : bytes;
  return { family: v4 ? 'IPv4' : 'IPv6', value: used.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n) };
}

/** The canonical text of an address (IPv4 dotted, IPv6 as RFC 5952). */
export function ipText(family: IPFamily, value: bigint): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of two or more zero groups becomes "::" (the first, if tied).
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best === -1) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

/** upstream's calculateRangeOffset. */
function rangeOffset(size: bigint): number {
  if (size <= 16n) return 0;
  const offset = size / 16n;
  return offset < 16n ? 16 : offset > 256n ? 256 : Number(offset);
}

/** A CIDR as ParseCIDRSloppy reads it; undefined where it is none. The network is the masked address. */
export function parseServiceCIDR(text: string): ServiceCIDR | undefined {
  const slash = text.indexOf('/');
  if (slash === -1) return undefined;
  const address = ipNumber(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (!address || !/^[0-9]{1,3}$/.test(bitsText)) return undefined;
  const width = address.family === 'IPv4' ? 32 : 128;
  const bits = Number(bitsText);
  if (bits > width) return undefined;
  const hostBits = BigInt(width - bits);
  const network = (address.value >> hostBits) << hostBits;
  const size = 1n << hostBits;
  const broadcast = network + size - 1n;
  const first = network + 1n;
  const last = address.family === 'IPv4' ? broadcast - 1n : broadcast;
  return { text: `${ipText(address.family, network)}/${bits}`, family: address.family, bits, network, first, last, offset: rangeOffset(size) };
}

export const contains = (cidr: ServiceCIDR, value: bigint): boolean => value >= cidr.first && value <= cidr.last;

/** kube-apiserver's default --service-cluster-ip-range. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

/**
 * --service-cluster-ip-range: one CIDR, or two of different families, with upstream's messages
 * (options' validateClusterIPFlags and the allocator's IPv6 prefix bound). Empty: the default.
 */
export function parseServiceClusterIPRanges(flag: string): { cidrs: ServiceCIDR[]; errors: string[] } {
  const entries = (flag || DEFAULT_SERVICE_CLUSTER_IP_RANGE).split(',');
  const errors: string[] = [];
  if (entries.length > 2) return { cidrs: [], errors: ['--service-cluster-ip-range must not contain more than two entries'] };
  const cidrs: ServiceCIDR[] = [];
  entries.forEach((entry, i) => {
    const cidr = parseServiceCIDR(entry.trim());
    if (!cidr) errors.push(i === 0 ? 'service-cluster-ip-range[0] is not a valid cidr' : 'service-cluster-ip-range[1] is not an ip net');
    else cidrs.push(cidr);
  });
  if (errors.length) return { cidrs: [], errors };
  if (cidrs.length === 2 && cidrs[0]!.family === cidrs[1]!.family) errors.push('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
  for (const cidr of cidrs) if (cidr.family === 'IPv6' && cidr.bits < 64) errors.push(`shortest allowed prefix length for service CIDR is 64, got ${cidr.bits}`);
  return { cidrs: errors.length ? [] : cidrs, errors };
}
