// Endpoints (core v1, namespaced, `ep`): the addresses and ports that implement a Service, in subsets
// that share their ports. Upstream's endpoints controller writes them for Services with selectors;
// here nothing does yet, which is what a Service without a selector has: Endpoints written by hand.
// Rules as upstream 1.28's: protocol defaults to TCP; ValidateEndpoints (no port-name uniqueness:
// upstream has none for Endpoints) on create and update alike; kubectl's ENDPOINTS column.
import { invalid, isQualifiedName, newPath, notSupported, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectReferenceSchema, type ObjectReference } from '../common/object-reference.js';
import { atomicList, integerField, objectSchema, stringField } from '../common/schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { isValidIP, isValidPortNum, nodeNameErrors, portProtocols, validateDNS1123Label, validateNonSpecialIP } from '../common/network-checks.js';

export interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

const addressSchema = objectSchema(
  'A single IP address of an endpoint.',
  {
    ip: stringField('The IP of this endpoint. May not be loopback (127.0.0.0/8 or ::1), link-local (169.254.0.0/16 or fe80::/10), or link-local multicast (224.0.0.0/24 or ff02::/16).'),
    hostname: stringField('The Hostname of this endpoint.'),
    nodeName: stringField('The node hosting this endpoint, to tell endpoints local to a node.'),
    targetRef: { ...objectReferenceSchema, description: 'A reference to the object providing the endpoint.' },
  },
  { required: ['ip'], mapType: 'atomic' },
);

const portSchema = objectSchema(
  'A port of an endpoint.',
  {
    name: stringField('The name of this port; must match the name of the ServicePort. Optional when only one port is defined.'),
    port: integerField('The port number of the endpoint.'),
    protocol: stringField('The IP protocol for this port: TCP, UDP, or SCTP. Default is TCP.'),
    appProtocol: stringField('The application protocol for this port, as a label key (a standard service name, or a prefixed name such as mycompany.com/my-custom-protocol).'),
  },
  { required: ['port'], mapType: 'atomic' },
);

const subsetSchema = objectSchema('A group of addresses with a common set of ports; its endpoints are the product of addresses and ports.', {
  addresses: atomicList('IP addresses which offer the related ports and are ready.', addressSchema),
  notReadyAddresses: atomicList('IP addresses which offer the related ports but are not currently ready.', addressSchema),
  ports: atomicList('Port numbers available on the related IP addresses.', portSchema),
});

const subsetsDescription =
  'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.';

function validateAddress(address: EndpointAddress, path: FieldPath): FieldError[] {
  const ip = address.ip ?? '';
  const errors = isValidIP(ip).map((message) => invalid(path.child('ip'), ip, message));
  if (address.hostname) errors.push(...validateDNS1123Label(address.hostname, path.child('hostname')));
  if (address.nodeName !== undefined) errors.push(...nodeNameErrors(address.nodeName).map((message) => invalid(path.child('nodeName'), address.nodeName, message)));
  errors.push(...validateNonSpecialIP(ip, path.child('ip')));
  return errors;
}

function validatePort(port: EndpointPort, requireName: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = port.name ?? '';
  if (requireName && !name) errors.push(required(path.child('name')));
  else if (name) errors.push(...validateDNS1123Label(name, path.child('name')));
  const number = port.port ?? 0;
  errors.push(...isValidPortNum(number).map((message) => invalid(path.child('port'), number, message)));
  const protocol = port.protocol ?? '';
  if (!protocol) errors.push(required(path.child('protocol')));
  else if (!(portProtocols as readonly string[]).includes(protocol)) errors.push(notSupported(path.child('protocol'), protocol, portProtocols));
  if (port.appProtocol !== undefined) {
    errors.push(...isQualifiedName(port.appProtocol).map((message) => invalid(path.child('appProtocol'), port.appProtocol, message)));
  }
  return errors;
}

/** upstream's ValidateEndpoints, beyond ObjectMeta (the store's): each subset's addresses and ports. */
export function validateEndpoints(endpoints: Endpoints): FieldError[] {
  const errors: FieldError[] = [];
  (endpoints.subsets ?? []).forEach((subset, i) => {
    const at = newPath('subsets').index(i);
    const addresses = subset.addresses ?? [];
    const notReady = subset.notReadyAddresses ?? [];
    if (!addresses.length && !notReady.length) errors.push(required(at, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((address, j) => errors.push(...validateAddress(address, at.child('addresses').index(j))));
    notReady.forEach((address, j) => errors.push(...validateAddress(address, at.child('notReadyAddresses').index(j))));
    const ports = subset.ports ?? [];
    ports.forEach((port, j) => errors.push(...validatePort(port, ports.length > 1, at.child('ports').index(j))));
  });
  return errors;
}

/**
 * kubectl's ENDPOINTS cell (upstream's formatEndpoints): `ip:port` for each address and port (the
 * bare IP for a subset without ports), at most three, then "+ N more..."; `<none>` without subsets.
 */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (!subsets.length) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  const add = (entry: string): boolean => {
    if (list.length === max) {
      more = true;
      return false;
    }
    list.push(entry);
    return true;
  };
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    if (!ports.length) {
      count += addresses.length;
      for (const address of addresses) if (!add(address.ip ?? '')) break;
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      // Go's net.JoinHostPort brackets an IPv6 address.
      for (const address of addresses) {
        const ip = address.ip ?? '';
        if (!add(`${ip.includes(':') ? `[${ip}]` : ip}:${port.port ?? 0}`)) break;
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsDefinition = {
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  resource: 'endpoints',
  singularName: 'endpoints',
  shortNames: ['ep'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    'A collection of endpoints that implement the actual service; its subsets are the addresses and ports that share them.',
    { subsets: atomicList(subsetsDescription, subsetSchema) },
  ),
  strategy: {
    // upstream's SetDefaults_Endpoints: a port's protocol is TCP unless named.
    default(endpoints) {
      for (const subset of endpoints.subsets ?? []) for (const port of subset.ports ?? []) if (!port.protocol) port.protocol = 'TCP';
    },
    validate: validateEndpoints,
    // NodeName may change on update (a reused node IP or pod CIDR), so an update is judged as a create.
    validateUpdate: validateEndpoints,
  },
  tableColumns: [
    nameColumn<Endpoints>(),
    { name: 'Endpoints', type: 'string', description: subsetsDescription, priority: 0, value: formatEndpoints },
    ageColumn<Endpoints>(),
  ],
  allowCreateOnUpdate: true,
  protobuf: {
    message: 'k8s.io.api.core.v1.Endpoints',
    // EndpointAddress.nodeName and EndpointPort.appProtocol are pointers upstream.
    pointers: ['subsets.addresses.nodeName', 'subsets.notReadyAddresses.nodeName', 'subsets.ports.appProtocol'],
  },
} satisfies ResourceDefinition<Endpoints>;
