import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ipAddressNameErrors, isCanonicalIP } from './ip.js';

const NOT_CANONICAL = 'not a valid ip in canonical format';

// Cases from upstream's IPAddress validation tests and Go's netip tests.
const cases: { name: string; text: string; family?: 'v4' | 'v6'; errors?: string[] }[] = [
  { name: 'IPv4', text: '192.168.1.5', family: 'v4' },
  { name: 'IPv4 zero', text: '0.0.0.0', family: 'v4' },
  { name: 'IPv4 broadcast', text: '255.255.255.255', family: 'v4' },
  { name: 'IPv6', text: '2001:db8::1', family: 'v6' },
  { name: 'IPv6 unspecified', text: '::', family: 'v6' },
  { name: 'IPv6 loopback', text: '::1', family: 'v6' },
  { name: 'IPv6 full, no zero run', text: '2001:db8:aaaa:bbbb:cccc:dddd:eeee:1', family: 'v6' },
  { name: 'IPv6 trailing run', text: '2001:db8::', family: 'v6' },
  { name: 'IPv6: a single zero group is not compressed', text: '2001:db8:0:1:1:1:1:1', family: 'v6' },
  { name: 'IPv6: the longest run is compressed', text: '1:0:0:1::1', family: 'v6' },
  { name: 'IPv6: the first of two equal runs is compressed', text: '1::1:0:0:1', family: 'v6' },
  { name: 'IPv4-mapped IPv6 as netip prints it', text: '::ffff:1.2.3.4', family: 'v6' },
  { name: 'IPv4-compatible IPv6 prints in hex', text: '::102:304', family: 'v6' },
  { name: 'IPv4 with a leading zero', text: '10.01.2.3', errors: ['ParseAddr("10.01.2.3"): IPv4 field has octet with leading zero'] },
  { name: 'IPv4 octet too big', text: '1.2.3.256', errors: ['ParseAddr("1.2.3.256"): IPv4 field has value >255'] },
  { name: 'IPv4 too short', text: '1.2.3', errors: ['ParseAddr("1.2.3"): IPv4 address too short'] },
  { name: 'IPv4 too long', text: '1.2.3.4.5', errors: ['ParseAddr("1.2.3.4.5"): IPv4 address too long'] },
  { name: 'IPv4 empty field', text: '1..2.3', errors: ['ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'] },
  { name: 'IPv4 trailing dot', text: '1.2.3.', errors: ['ParseAddr("1.2.3."): IPv4 field must have at least one digit (at ".")'] },
  { name: 'IPv4 letter', text: '1.2.3.a', errors: ['ParseAddr("1.2.3.a"): unexpected character (at "a")'] },
  { name: 'IPv4 CIDR', text: '10.0.0.0/8', errors: ['ParseAddr("10.0.0.0/8"): unexpected character (at "/8")'] },
  { name: 'not an address', text: 'foo', errors: ['ParseAddr("foo"): unable to parse IP'] },
  { name: 'empty', text: '', errors: ['ParseAddr(""): unable to parse IP'] },
  { name: 'a zone alone', text: '%eth0', errors: ['ParseAddr("%eth0"): missing IPv6 address'] },
  { name: 'IPv6 not compressed', text: '2001:db8:0:0:0::1', errors: [NOT_CANONICAL] },
  { name: 'IPv6 upper case', text: '2001:DB8::1', errors: [NOT_CANONICAL] },
  { name: 'IPv6 leading zeros', text: '2001:0db8::1', errors: [NOT_CANONICAL] },
  { name: 'IPv6 shorter run compressed', text: '1::1:0:0:0:1', errors: [NOT_CANONICAL] },
  { name: 'IPv6 single zero group compressed', text: '2001:db8::1:1:1:1:1', errors: [NOT_CANONICAL] },
  { name: 'IPv4-mapped in hex', text: '::ffff:102:304', errors: [NOT_CANONICAL] },
  { name: 'IPv4-mapped written long', text: '0:0:0:0:0:ffff:1.2.3.4', errors: [NOT_CANONICAL] },
  // Upstream 1.28 accepts a zone in the name; an address with a zone is not an IP address here.
  { name: 'IPv6 with a zone', text: 'fe80::1%eth0', errors: [NOT_CANONICAL] },
  { name: 'IPv6 empty zone', text: 'fe80::1%', errors: ['ParseAddr("fe80::1%"): zone must be a non-empty string'] },
  { name: 'IPv6 group too long', text: '12345::', errors: ['ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'] },
  { name: 'IPv6 two ellipses', text: '1::2::3', errors: ['ParseAddr("1::2::3"): multiple :: in address (at ":3")'] },
  { name: 'IPv6 too short', text: '1:2:3', errors: ['ParseAddr("1:2:3"): address string too short'] },
  {
    name: 'IPv6 ellipsis standing for nothing',
    text: '1:2:3:4::5:6:7:8',
    errors: ['ParseAddr("1:2:3:4::5:6:7:8"): the :: must expand to at least one field of zeros'],
  },
  { name: 'IPv6 trailing colon', text: '1:2:3:4:5:6:7:', errors: ['ParseAddr("1:2:3:4:5:6:7:"): colon must be followed by more characters (at ":")'] },
  { name: 'IPv6 leading colon', text: ':1::', errors: ['ParseAddr(":1::"): each colon-separated field must have at least one digit (at ":1::")'] },
  { name: 'IPv6 garbage', text: '1::g', errors: ['ParseAddr("1::g"): each colon-separated field must have at least one digit (at "g")'] },
  { name: 'IPv6 too long', text: '1:2:3:4:5:6:7:8:9', errors: ['ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")'] },
  {
    name: 'IPv6 embedded IPv4 too early',
    text: '1:2:3:4:5:1.2.3.4',
    errors: ['ParseAddr("1:2:3:4:5:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")'],
  },
  {
    name: 'IPv6 embedded IPv4 invalid',
    text: '::ffff:1.2.3',
    errors: ['ParseAddr("::ffff:1.2.3"): ParseAddr("1.2.3"): IPv4 address too short (at "1.2.3")'],
  },
];

for (const { name, text, family, errors } of cases) {
  test(`IP address names: ${name}`, () => {
    assert.equal(isCanonicalIP(text), family);
    assert.deepEqual(ipAddressNameErrors(text), errors ?? []);
  });
}
