import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, update } from '../testing/harness.js';
import { endpointsDefinition, formatEndpoints, type EndpointSubset, type Endpoints } from './endpoints.js';

const endpoints = (...subsets: EndpointSubset[]): Endpoints => ({ metadata: { name: 'mysvc', namespace: 'namespace' }, ...(subsets.length && { subsets }) });

// upstream's TestValidateEndpoints success cases.
const validCases: { name: string; object: Endpoints }[] = [
  {
    name: 'simple endpoint',
    object: endpoints(
      { addresses: [{ ip: '10.10.1.1' }, { ip: '10.10.2.2' }], ports: [{ name: 'a', port: 8675, protocol: 'TCP' }, { name: 'b', port: 309, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.10.3.3' }], ports: [{ name: 'a', port: 93, protocol: 'TCP' }, { name: 'b', port: 76, protocol: 'TCP' }] },
    ),
  },
  { name: 'empty subsets', object: endpoints() },
  { name: 'no name required for singleton port', object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ port: 8675, protocol: 'TCP' }] }) },
  { name: 'valid appProtocol', object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ port: 8675, protocol: 'TCP', appProtocol: 'HTTP' }] }) },
  { name: 'empty ports', object: endpoints({ addresses: [{ ip: '10.10.3.3' }] }) },
  { name: 'only not-ready addresses', object: endpoints({ notReadyAddresses: [{ ip: '10.10.3.3' }] }) },
  { name: 'an IPv6 address', object: endpoints({ addresses: [{ ip: '2001:db8::1' }] }) },
  { name: 'an IPv4 octet with a leading zero (ParseIPSloppy)', object: endpoints({ addresses: [{ ip: '10.010.1.1' }] }) },
  { name: 'a nodeName that is an IP address', object: endpoints({ addresses: [{ ip: '8.8.8.8', hostname: 'zookeeper1', nodeName: '10.10.1.1' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }) },
  { name: 'the same port name twice (upstream does not check Endpoints port names for uniqueness)', object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ name: 'a', port: 1, protocol: 'TCP' }, { name: 'a', port: 2, protocol: 'TCP' }] }) },
];
for (const c of validCases) {
  test(`endpoints validate: ${c.name} passes`, () => assert.deepEqual(messages(create(endpointsDefinition, c.object).errors), []));
}

// upstream's TestValidateEndpoints error cases, with the whole 422 message of each.
const invalidCases: { name: string; object: Endpoints; want: string[] }[] = [
  {
    name: 'empty addresses',
    object: endpoints({ ports: [{ name: 'a', port: 93, protocol: 'TCP' }] }),
    want: ['subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`'],
  },
  {
    name: 'invalid IP',
    object: endpoints({ addresses: [{ ip: '[2001:0db8:85a3:0042:1000:8a2e:0370:7334]' }], ports: [{ name: 'a', port: 93, protocol: 'TCP' }] }),
    want: [
      'subsets[0].addresses[0].ip: Invalid value: "[2001:0db8:85a3:0042:1000:8a2e:0370:7334]": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'subsets[0].addresses[0].ip: Invalid value: "[2001:0db8:85a3:0042:1000:8a2e:0370:7334]": must be a valid IP address',
    ],
  },
  {
    name: 'Multiple ports, one without name',
    object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ port: 8675, protocol: 'TCP' }, { name: 'b', port: 309, protocol: 'TCP' }] }),
    want: ['subsets[0].ports[0].name: Required value'],
  },
  {
    name: 'Invalid port number',
    object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ name: 'a', port: 66000, protocol: 'TCP' }] }),
    want: ['subsets[0].ports[0].port: Invalid value: 66000: must be between 1 and 65535, inclusive'],
  },
  {
    name: 'Invalid protocol',
    object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ name: 'a', port: 93, protocol: 'Protocol' }] }),
    want: ['subsets[0].ports[0].protocol: Unsupported value: "Protocol": supported values: "SCTP", "TCP", "UDP"'],
  },
  {
    name: 'Address missing IP',
    object: endpoints({ addresses: [{}], ports: [{ name: 'a', port: 93, protocol: 'TCP' }] }),
    want: [
      'subsets[0].addresses[0].ip: Invalid value: "": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'subsets[0].addresses[0].ip: Invalid value: "": must be a valid IP address',
    ],
  },
  {
    name: 'Port missing number',
    object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ name: 'a', protocol: 'TCP' }] }),
    want: ['subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'],
  },
  {
    name: 'Address is loopback',
    object: endpoints({ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'p', port: 93, protocol: 'TCP' }] }),
    want: ['subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  },
  {
    name: 'Address is link-local',
    object: endpoints({ addresses: [{ ip: '169.254.169.254' }], ports: [{ name: 'p', port: 93, protocol: 'TCP' }] }),
    want: ['subsets[0].addresses[0].ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  },
  {
    name: 'Address is link-local multicast',
    object: endpoints({ addresses: [{ ip: '224.0.0.1' }], ports: [{ name: 'p', port: 93, protocol: 'TCP' }] }),
    want: ['subsets[0].addresses[0].ip: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
  },
  {
    name: 'Invalid AppProtocol',
    object: endpoints({ addresses: [{ ip: '10.10.1.1' }], ports: [{ name: 'p', port: 93, protocol: 'TCP', appProtocol: 'lots-of[invalid]-{chars}' }] }),
    want: [
      'subsets[0].ports[0].appProtocol: Invalid value: "lots-of[invalid]-{chars}": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    ],
  },
  {
    name: 'IPv6 loopback, unspecified and link-local',
    object: endpoints({ addresses: [{ ip: '::1' }, { ip: '::' }, { ip: 'fe80::1' }], notReadyAddresses: [{ ip: 'ff02::1' }] }),
    want: [
      'subsets[0].addresses[0].ip: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'subsets[0].addresses[1].ip: Invalid value: "::": may not be unspecified (::)',
      'subsets[0].addresses[2].ip: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
      'subsets[0].notReadyAddresses[0].ip: Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
    ],
  },
  {
    name: 'invalid nodeName and hostname',
    object: endpoints({ addresses: [{ ip: '8.8.8.8', hostname: 'Zoo_Keeper', nodeName: 'illegal*.nodename' }] }),
    want: [
      'subsets[0].addresses[0].hostname: Invalid value: "Zoo_Keeper": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'subsets[0].addresses[0].nodeName: Invalid value: "illegal*.nodename": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ],
  },
];
for (const c of invalidCases) {
  test(`endpoints validate: ${c.name}`, () => assert.deepEqual(messages(create(endpointsDefinition, c.object).errors), c.want));
}

test('endpoints default: a port without a protocol is TCP (SetDefaults_Endpoints); a named one is kept', () => {
  const { object, errors } = create(endpointsDefinition, endpoints({ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 80 }, { name: 'b', port: 53, protocol: 'UDP' }] }));
  assert.deepEqual(errors, []);
  assert.deepEqual(object.subsets?.[0]?.ports, [{ name: 'a', port: 80, protocol: 'TCP' }, { name: 'b', port: 53, protocol: 'UDP' }]);
});

test('endpoints update: judged as a create, a changed nodeName allowed', () => {
  const old = endpoints({ addresses: [{ ip: '8.8.8.8', nodeName: 'node-a' }] });
  assert.deepEqual(update(endpointsDefinition, endpoints({ addresses: [{ ip: '8.8.8.8', nodeName: 'node-b' }] }), old).errors, []);
  assert.deepEqual(messages(update(endpointsDefinition, endpoints({ addresses: [{ ip: '127.0.0.2' }] }), old).errors), [
    'subsets[0].addresses[0].ip: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
});

// upstream's TestPrintEndpoint, and the forms formatEndpoints has.
const columnCases: { name: string; subsets: EndpointSubset[]; want: string }[] = [
  { name: 'no subsets', subsets: [], want: '<none>' },
  { name: 'one address, one port', subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 8001 }] }], want: '127.0.0.1:8001' },
  { name: 'a subset without ports shows bare IPs', subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] }], want: '10.0.0.1,10.0.0.2' },
  { name: 'an IPv6 address is bracketed', subsets: [{ addresses: [{ ip: '2001:db8::1' }], ports: [{ port: 443 }] }], want: '[2001:db8::1]:443' },
  {
    name: 'more than three: "+ N more..."',
    subsets: [{ addresses: [{ ip: '127.0.0.1' }, { ip: 'localhost' }], ports: [{ port: 8001, protocol: 'TCP' }, { port: 8002, protocol: 'TCP' }] }],
    want: '127.0.0.1:8001,localhost:8001,127.0.0.1:8002 + 1 more...',
  },
  {
    name: 'counted over every subset',
    subsets: [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] },
      { addresses: [{ ip: '10.0.1.1' }, { ip: '10.0.1.2' }, { ip: '10.0.1.3' }], ports: [{ port: 81 }] },
      { addresses: [{ ip: '10.0.2.1' }] },
    ],
    want: '10.0.0.1:80,10.0.0.2:80,10.0.1.1:81 + 3 more...',
  },
  { name: 'only not-ready addresses: empty', subsets: [{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }], want: '' },
];
for (const c of columnCases) {
  test(`endpoints column ENDPOINTS: ${c.name}`, () => assert.equal(formatEndpoints(endpoints(...c.subsets)), c.want));
}

test('endpoints columns: NAME ENDPOINTS AGE, as kubectl prints them', () => {
  assert.deepEqual(endpointsDefinition.tableColumns.map((column) => column.name), ['Name', 'Endpoints', 'Age']);
});
