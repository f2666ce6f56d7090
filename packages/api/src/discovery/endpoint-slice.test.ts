import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, update } from '../testing/harness.js';
import { endpointSliceDefinition, formatSliceEndpoints, formatSlicePorts, type Endpoint, type EndpointSlice, type EndpointSlicePort } from './endpoint-slice.js';

const tcp = (name: string, port?: number): EndpointSlicePort => ({ name, protocol: 'TCP', ...(port !== undefined && { port }) });
const slice = (addressType: string, endpoints: Endpoint[] = [], ports: EndpointSlicePort[] = []): EndpointSlice => ({
  metadata: { name: 'hello', namespace: 'default' },
  addressType,
  endpoints,
  ports,
});
const many = <T>(count: number, make: (i: number) => T): T[] => Array.from({ length: count }, (_, i) => make(i));

// upstream's TestValidateEndpointSlice success cases.
const validCases: { name: string; object: EndpointSlice }[] = [
  { name: 'good-slice', object: slice('IPv4', [{ addresses: ['10.1.2.3'], hostname: 'valid-123' }], [tcp('http', 80)]) },
  { name: 'empty-ports-and-endpoints', object: slice('IPv6') },
  { name: 'ports-and-endpoints-max', object: slice('IPv4', many(1000, () => ({ addresses: ['10.1.2.3'] })), many(100, (i) => tcp(`p${i}`, i + 1))) },
  { name: 'valid-fqdns', object: slice('FQDN', [{ addresses: ['foo.example.com', 'example.com', 'example.com.', 'hyphens-are-good.example.com'] }], [tcp('http', 80)]) },
  { name: 'all-protocols', object: slice('IPv4', [{ addresses: ['10.1.2.3'] }], [tcp('tcp'), { name: 'udp', protocol: 'UDP' }, { name: 'sctp', protocol: 'SCTP' }]) },
  { name: 'app-protocol', object: slice('IPv4', [{ addresses: ['10.1.2.3'] }], [{ name: 'one', protocol: 'TCP', appProtocol: 'HTTP' }, { name: 'two', protocol: 'TCP', appProtocol: 'https' }, { name: 'three', protocol: 'TCP', appProtocol: 'my-protocol' }, { name: 'four', protocol: 'TCP', appProtocol: 'example.com/custom-protocol' }]) },
  { name: 'empty-port-name', object: slice('IPv4', [{ addresses: ['10.1.2.3'] }], [tcp(''), { name: 'http', protocol: 'TCP' }]) },
  { name: 'long-port-name', object: slice('IPv4', [{ addresses: ['10.1.2.3'] }], [tcp('a'.repeat(63))]) },
  { name: 'empty-ports', object: slice('IPv4', [{ addresses: ['10.1.2.3'] }]) },
  { name: 'valid-hints', object: slice('IPv4', [{ addresses: ['10.1.2.3'], hints: { forZones: [{ name: 'zone-a' }] } }]) },
  { name: 'a nodeName that is an IP', object: slice('IPv4', [{ addresses: ['10.1.2.3'], nodeName: '10.0.0.1' }]) },
];
for (const c of validCases) {
  test(`endpointslice validate: ${c.name} passes`, () => assert.deepEqual(messages(create(endpointSliceDefinition, c.object).errors), []));
}

const label = (value: string): string =>
  `${value}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;

// upstream's TestValidateEndpointSlice failure cases, with the whole 422 message of each.
const invalidCases: { name: string; object: EndpointSlice; want: string[] }[] = [
  { name: 'empty-everything: addressType required', object: { metadata: { name: 'hello', namespace: 'default' } }, want: ['addressType: Required value'] },
  { name: 'unsupported addressType (IP is v1alpha1\'s)', object: slice('IP'), want: ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"'] },
  {
    name: 'duplicate-port-name',
    object: slice('IPv4', [], [tcp('http'), tcp('http')]),
    want: ['ports[1].name: Duplicate value: "http"'],
  },
  { name: 'bad-port-name-caps', object: slice('IPv4', [], [tcp('aCapital')]), want: [`ports[0].name: Invalid value: ${label('"aCapital"')}`] },
  { name: 'bad-port-name-chars', object: slice('IPv4', [], [tcp('almost_valid')]), want: [`ports[0].name: Invalid value: ${label('"almost_valid"')}`] },
  {
    name: 'bad-port-name-length',
    object: slice('IPv4', [], [tcp('a'.repeat(64))]),
    want: [`ports[0].name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`],
  },
  { name: 'invalid-port-protocol', object: slice('IPv4', [], [{ name: 'http', protocol: 'foo' }]), want: ['ports[0].protocol: Unsupported value: "foo": supported values: "SCTP", "TCP", "UDP"'] },
  { name: 'too-many-ports', object: slice('IPv4', [], many(101, (i) => tcp(`p${i}`))), want: ['ports: Too many: 101: must have at most 100 items'] },
  { name: 'too-many-endpoints', object: slice('IPv4', many(1001, () => ({ addresses: ['10.0.0.1'] }))), want: ['endpoints: Too many: 1001: must have at most 1000 items'] },
  { name: 'no-endpoint-addresses', object: slice('IPv4', [{ addresses: [] }]), want: ['endpoints[0].addresses: Required value: must contain at least 1 address'] },
  {
    name: 'too-many-addresses',
    object: slice('IPv4', [{ addresses: many(101, () => '10.0.0.1') }]),
    want: ['endpoints[0].addresses: Too many: 101: must have at most 100 items'],
  },
  {
    name: 'bad-hostname',
    object: slice('IPv4', [{ addresses: ['10.0.0.1'], hostname: 'object.com' }]),
    want: [`endpoints[0].hostname: Invalid value: ${label('"object.com"')}`],
  },
  {
    name: 'bad-ipv4',
    object: slice('IPv4', [{ addresses: ['123.456.789.012'] }]),
    want: ['endpoints[0].addresses[0]: Invalid value: "123.456.789.012": must be a valid IPv4 address', 'endpoints[0].addresses[0]: Invalid value: "123.456.789.012": must be a valid IP address'],
  },
  {
    name: 'bad-ipv6: an IPv4 address in an IPv6 slice',
    object: slice('IPv6', [{ addresses: ['10.1.2.3'] }]),
    want: ['endpoints[0].addresses[0]: Invalid value: "10.1.2.3": must be a valid IPv6 address'],
  },
  {
    name: 'special-ipv4',
    object: slice('IPv4', [{ addresses: ['127.0.0.1', '169.254.1.1', '224.0.0.5', '0.0.0.0'] }]),
    want: [
      'endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'endpoints[0].addresses[1]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
      'endpoints[0].addresses[2]: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
      'endpoints[0].addresses[3]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
    ],
  },
  {
    name: 'special-ipv6',
    object: slice('IPv6', [{ addresses: ['fe80::9656:d028:8652:66b6'] }]),
    want: ['endpoints[0].addresses[0]: Invalid value: "fe80::9656:d028:8652:66b6": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  },
  {
    name: 'bad-fqdns',
    object: slice('FQDN', [{ addresses: ['foo.*', 'FOO.example.com', 'underscores_are_bad.example.com', '*.example.com', 'example'] }]),
    want: [
      'endpoints[0].addresses[0]: Invalid value: "foo.*": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'endpoints[0].addresses[1]: Invalid value: "FOO.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'endpoints[0].addresses[2]: Invalid value: "underscores_are_bad.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'endpoints[0].addresses[3]: Invalid value: "*.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'endpoints[0].addresses[4]: Invalid value: "example": should be a domain with at least two segments separated by dots',
    ],
  },
  {
    name: 'bad-nodename',
    object: slice('IPv4', [{ addresses: ['10.0.0.1'], nodeName: 'INVALID_NODE' }]),
    want: [
      'endpoints[0].nodeName: Invalid value: "INVALID_NODE": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ],
  },
  {
    name: 'bad-appProtocol',
    object: slice('IPv4', [], [{ name: 'http', protocol: 'TCP', appProtocol: 'lots-of[invalid]-{chars}' }]),
    want: [
      'ports[0].appProtocol: Invalid value: "lots-of[invalid]-{chars}": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    ],
  },
  {
    name: 'invalid-hints: duplicate zones, a bad zone name',
    object: slice('IPv4', [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'zone-a' }, { name: 'zone-a' }, { name: 'bad zone' }] } }]),
    want: [
      'endpoints[0].hints.forZones[1].name: Duplicate value: "zone-a"',
      'endpoints[0].hints.forZones[2].name: Invalid value: "bad zone": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')',
    ],
  },
  {
    name: 'invalid-hints: too many zones',
    object: slice('IPv4', [{ addresses: ['10.0.0.1'], hints: { forZones: many(9, (i) => ({ name: `zone-${i}` })) } }]),
    want: ['endpoints[0].hints.forZones: Too many: 9: must have at most 8 items'],
  },
];
for (const c of invalidCases) {
  test(`endpointslice validate: ${c.name}`, () => assert.deepEqual(messages(create(endpointSliceDefinition, c.object).errors), c.want));
}

test('endpointslice default: ports get name "" and protocol TCP (SetDefaults_EndpointPort), endpoints their conditions', () => {
  const { object, errors } = create(endpointSliceDefinition, slice('IPv4', [{ addresses: ['10.0.0.1'] }], [{ port: 80 }, { name: 'dns', protocol: 'UDP', port: 53 }]));
  assert.deepEqual(errors, []);
  assert.deepEqual(object.ports, [{ port: 80, name: '', protocol: 'TCP' }, { name: 'dns', protocol: 'UDP', port: 53 }]);
  assert.deepEqual(object.endpoints, [{ addresses: ['10.0.0.1'], conditions: {} }]);
  assert.equal(object.metadata.generation, 1);
});

test('endpointslice: v1 drops deprecatedTopology on create, and on an update that changes the endpoints', () => {
  const created = create(endpointSliceDefinition, slice('IPv4', [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'example.com/rack': 'r1' } }]));
  assert.deepEqual(created.object.endpoints, [{ addresses: ['10.0.0.1'], conditions: {} }]);
  const old = created.object;
  const changed = update(endpointSliceDefinition, { ...old, endpoints: [{ addresses: ['10.0.0.2'], deprecatedTopology: { a: 'b' } }] }, old);
  assert.deepEqual(changed.object.endpoints, [{ addresses: ['10.0.0.2'], conditions: {} }]);
});

test('endpointslice update: addressType is immutable; the generation counts changes and label changes only', () => {
  const old = create(endpointSliceDefinition, slice('IPv4', [{ addresses: ['10.0.0.1'] }], [tcp('http', 80)])).object;
  assert.deepEqual(messages(update(endpointSliceDefinition, { ...old, addressType: 'IPv6', endpoints: [] }, old).errors), [
    'addressType: Invalid value: "IPv6": field is immutable',
  ]);
  const same = update(endpointSliceDefinition, { ...old, metadata: { ...old.metadata, annotations: { a: 'b' } } }, old).object;
  assert.equal(same.metadata.generation, 1);
  const relabelled = update(endpointSliceDefinition, { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old).object;
  assert.equal(relabelled.metadata.generation, 2);
  const moved = update(endpointSliceDefinition, { ...old, endpoints: [{ addresses: ['10.0.0.2'] }] }, old).object;
  assert.equal(moved.metadata.generation, 2);
  // A port sent without its defaults is the same port.
  const defaults = update(endpointSliceDefinition, { ...old, ports: [{ name: 'http', port: 80 }] }, old).object;
  assert.equal(defaults.metadata.generation, 1);
});

test('endpointslice: the managed-by label is not checked by the API server (upstream 1.28 has no rule for it)', () => {
  const labelled = { ...slice('IPv4', [{ addresses: ['10.0.0.1'] }]), metadata: { name: 'hello', namespace: 'default', labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } } };
  assert.deepEqual(create(endpointSliceDefinition, labelled).errors, []);
});

// upstream's TestPrintEndpointSlice.
const columnCases: { name: string; object: EndpointSlice; cells: [string, string, string] }[] = [
  { name: 'one port, one address', object: slice('IPv4', [{ addresses: ['10.1.2.3', '2001:db8::1234:5678'] }], [tcp('http', 80)]), cells: ['IPv4', '80', '10.1.2.3,2001:db8::1234:5678'] },
  {
    name: 'ports by number, by name, or all',
    object: slice('IPv6', [{ addresses: ['2001:db8::1234:5678'] }], [tcp('http', 80), tcp('named'), { protocol: 'TCP' }]),
    cells: ['IPv6', '80,named,*', '2001:db8::1234:5678'],
  },
  {
    name: 'more than three',
    object: slice('IPv4', [{ addresses: ['10.1.2.3', '10.1.2.4'] }, { addresses: ['10.1.2.5', '10.1.2.6', '10.1.2.7'] }], many(5, (i) => tcp(`p${i}`, 80 + i))),
    cells: ['IPv4', '80,81,82 + 2 more...', '10.1.2.3,10.1.2.4,10.1.2.5 + 2 more...'],
  },
  { name: 'none', object: slice('FQDN'), cells: ['FQDN', '<unset>', '<unset>'] },
];
for (const c of columnCases) {
  test(`endpointslice columns: ${c.name}`, () => {
    assert.deepEqual([c.object.addressType, formatSlicePorts(c.object), formatSliceEndpoints(c.object)], c.cells);
  });
}

test('endpointslice columns: NAME ADDRESSTYPE PORTS ENDPOINTS AGE, as kubectl prints them', () => {
  assert.deepEqual(endpointSliceDefinition.tableColumns.map((column) => column.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
});
