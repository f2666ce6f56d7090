// IP addresses as Go's net.ParseIP reads them (16 bytes, IPv4 as IPv4-mapped), for the checks that
// upstream makes with net.ParseIP or ParseIPSloppy: Endpoints' and Services' addresses, CRD formats.

/** 16 bytes; an IPv4 address as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), as Go keeps it. */
export type IP = number[];

export const IPV4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIPv4(text: string, sloppy: boolean): number[] | undefined {
  const fields = text.split('.');
  if (fields.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const field of fields) {
    // Leading zeros: refused by Go's parser since 1.17; decimal, not octal, for ParseIPSloppy.
    if (!/^[0-9]+$/.test(field) || Number(field) > 255 || (!sloppy && field.length > 1 && field[0] === '0')) return undefined;
    bytes.push(Number(field));
  }
  return bytes;
}

function parseIPv6(text: string, sloppy: boolean): IP | undefined {
  let rest = text;
  let tail: number[] = [];
  // An IPv4 address may end it, standing for the last two groups.
  const lastColon = rest.lastIndexOf(':');
  if (lastColon !== -1 && rest.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(rest.slice(lastColon + 1), sloppy);
    if (!v4) return undefined;
    tail = v4;
    rest = rest.slice(0, lastColon + 1);
    if (rest.endsWith(':') && !rest.endsWith('::')) rest = rest.slice(0, -1);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string): number[] | undefined => {
    if (half === '') return [];
    const bytes: number[] = [];
    for (const group of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      const value = parseInt(group, 16);
      bytes.push(value >> 8, value & 0xff);
    }
    return bytes;
  };
  const head = groupsOf(halves[0]!);
  const after = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !after) return undefined;
  const known = head.length + after.length + tail.length;
  if (halves.length === 2) {
    // `::` stands for at least one group of zeros.
    if (known > 14) return undefined;
    return [...head, ...new Array<number>(16 - known).fill(0), ...after, ...tail];
  }
  return known === 16 ? [...head, ...tail] : undefined;
}

/**
 * The address as Go's net.ParseIP reads it (no zones, no brackets), or with `sloppy` as k8s.io/utils'
 * ParseIPSloppy (IPv4 octets with leading zeros); undefined where it reads none.
 */
export function parseGoIP(text: string, sloppy = true): IP | undefined {
  if (text.includes(':')) return parseIPv6(text, sloppy);
  const v4 = parseIPv4(text, sloppy);
  return v4 && [...IPV4_MAPPED_PREFIX, ...v4];
}

