// EndpointSlice (discovery.{domain}/v1, namespaced): a slice of the endpoints of a Service, all of one
// address type. Upstream's EndpointSlice controller writes them for Services with selectors (labelled
// endpointslice.kubernetes.io/managed-by, a label the API server does not check); here nothing does
// yet, which is what a Service without a selector has: slices written by hand. Rules as upstream
// 1.28's: ports default to name "" and protocol TCP, the generation counts changes, v1 writes drop
// deprecatedTopology, and ValidateEndpointSlice with its limits (1000 endpoints, 100 addresses each,
// 100 ports, 8 zone hints).
import { isDeepStrictEqual } from 'node:util';
import {
  duplicate,
  FieldError,
  invalid,
  isQualifiedName,
  isValidLabelValue,
  newPath,
  notSupported,
  required,
  validateLabels,
  type FieldPath,
} from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectReferenceSchema, type ObjectReference } from '../common/object-reference.js';
import { atomicList, booleanField, integerField, objectSchema, stringField, stringMap } from '../common/schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import {
  isFullyQualifiedDomainName,
  isValidIPv4Address,
  isValidIPv6Address,
  nodeNameErrors,
  portProtocols,
  validateDNS1123Label,
  validateNonSpecialIP,
} from '../common/network-checks.js';

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface Endpoint {
  addresses?: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: ObjectReference;
  deprecatedTopology?: Record<string, string>;
  nodeName?: string;
  zone?: string;
  hints?: { forZones?: { name?: string }[] };
}

export interface EndpointSlicePort {
  name?: string;
  protocol?: string;
  port?: number;
  appProtocol?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Endpoint[];
  ports?: EndpointSlicePort[];
}

/** upstream 1.28's limits. */
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;

/** The address types a v1 slice may have, sorted as upstream's sets.List. */
const addressTypes = ['FQDN', 'IPv4', 'IPv6'] as const;

const tooMany = (path: FieldPath, actual: number, max: number): FieldError =>
  new FieldError('FieldValueTooMany', path.toString(), actual, `must have at most ${max} items`);

const addressTypeDescription =
  'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported:\n* IPv4: Represents an IPv4 Address.\n* IPv6: Represents an IPv6 Address.\n* FQDN: Represents a Fully Qualified Domain Name.';
const endpointsDescription = 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.';
const portsDescription =
  'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.';

const endpointSchema = objectSchema(
  'A single logical "backend" implementing a service.',
  {
    addresses: {
      type: 'array',
      description: 'The addresses of this endpoint, interpreted by the slice\'s addressType: at least 1, at most 100, all fungible.',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'set',
    },
    conditions: objectSchema('The current condition of the endpoint.', {
      ready: booleanField('The endpoint is prepared to receive traffic; never true for a terminating endpoint. Unset: unknown, read as ready.'),
      serving: booleanField('As ready, but set whatever the terminating state of the endpoint. Unset: defer to ready.'),
      terminating: booleanField('The endpoint is terminating. Unset: unknown, read as not terminating.'),
    }),
    hostname: stringField('The hostname of this endpoint (a DNS label); endpoints of one hostname are fungible.'),
    targetRef: { ...objectReferenceSchema, description: 'A reference to a Kubernetes object that represents this endpoint.' },
    deprecatedTopology: stringMap('Topology information of the v1beta1 API; not writable through v1 (silently dropped).'),
    nodeName: stringField('The name of the Node hosting this endpoint.'),
    zone: stringField('The name of the Zone this endpoint exists in.'),
    hints: objectSchema('How the endpoint should be consumed.', {
      forZones: atomicList(
        'The zone(s) this endpoint should be consumed by, for topology aware routing.',
        objectSchema('A zone that should consume this endpoint.', { name: stringField('The name of the zone.') }),
      ),
    }),
  },
  { required: ['addresses'] },
);

const portSchema = objectSchema(
  'A port of the endpoints of an EndpointSlice.',
  {
    name: stringField('The name of this port: unique in the slice, empty or a DNS label. Default is empty.'),
    protocol: stringField('The IP protocol for this port: UDP, TCP, or SCTP. Default is TCP.'),
    port: integerField('The port number of the endpoint. Unset: all ports, interpreted by the consumer.'),
    appProtocol: stringField('The application protocol for this port, as a label key (a standard service name, or a prefixed name such as mycompany.com/my-custom-protocol).'),
  },
  { mapType: 'atomic' },
);

function validateAddresses(endpoint: Endpoint, addressType: string, at: FieldPath): FieldError[] {
  const path = at.child('addresses');
  const addresses = endpoint.addresses ?? [];
  const errors: FieldError[] = [];
  if (!addresses.length) errors.push(required(path, 'must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES) errors.push(tooMany(path, addresses.length, MAX_ADDRESSES));
  addresses.forEach((address, i) => {
    // Only the known types are checked; an unknown one is refused by addressType's own check.
    if (addressType === 'IPv4') errors.push(...isValidIPv4Address(path.index(i), address), ...validateNonSpecialIP(address, path.index(i)));
    else if (addressType === 'IPv6') errors.push(...isValidIPv6Address(path.index(i), address), ...validateNonSpecialIP(address, path.index(i)));
    else if (addressType === 'FQDN') errors.push(...isFullyQualifiedDomainName(path.index(i), address));
  });
  return errors;
}

function validateHints(hints: NonNullable<Endpoint['hints']>, at: FieldPath): FieldError[] {
  const path = at.child('forZones');
  const zones = hints.forZones ?? [];
  if (zones.length > MAX_ZONE_HINTS) return [tooMany(path, zones.length, MAX_ZONE_HINTS)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((zone, i) => {
    const name = zone.name ?? '';
    const namePath = path.index(i).child('name');
    if (seen.has(name)) errors.push(duplicate(namePath, name));
    else seen.add(name);
    errors.push(...isValidLabelValue(name).map((message) => invalid(namePath, name, message)));
  });
  return errors;
}

function validateEndpoints(slice: EndpointSlice): FieldError[] {
  const path = newPath('endpoints');
  const endpoints = slice.endpoints ?? [];
  if (endpoints.length > MAX_ENDPOINTS) return [tooMany(path, endpoints.length, MAX_ENDPOINTS)];
  const errors: FieldError[] = [];
  endpoints.forEach((endpoint, i) => {
    const at = path.index(i);
    errors.push(...validateAddresses(endpoint, slice.addressType ?? '', at));
    if (endpoint.nodeName !== undefined) {
      errors.push(...nodeNameErrors(endpoint.nodeName).map((message) => invalid(at.child('nodeName'), endpoint.nodeName, message)));
    }
    const topology = endpoint.deprecatedTopology ?? {};
    const topologyPath = at.child('deprecatedTopology');
    if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) errors.push(tooMany(topologyPath, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
    errors.push(...validateLabels(topology, topologyPath));
    if (endpoint.hostname !== undefined) errors.push(...validateDNS1123Label(endpoint.hostname, at.child('hostname')));
    if (endpoint.hints) errors.push(...validateHints(endpoint.hints, at.child('hints')));
  });
  return errors;
}

function validatePorts(slice: EndpointSlice): FieldError[] {
  const path = newPath('ports');
  const ports = slice.ports ?? [];
  if (ports.length > MAX_PORTS) return [tooMany(path, ports.length, MAX_PORTS)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path.index(i);
    const name = port.name ?? '';
    if (name) errors.push(...validateDNS1123Label(name, at.child('name')));
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else names.add(name);
    if (port.protocol === undefined) errors.push(required(at.child('protocol')));
    else if (!(portProtocols as readonly string[]).includes(port.protocol)) errors.push(notSupported(at.child('protocol'), port.protocol, portProtocols));
    if (port.appProtocol !== undefined) {
      errors.push(...isQualifiedName(port.appProtocol).map((message) => invalid(at.child('appProtocol'), port.appProtocol, message)));
    }
  });
  return errors;
}

/** upstream's ValidateEndpointSlice, beyond ObjectMeta (the store's). */
export function validateEndpointSlice(slice: EndpointSlice): FieldError[] {
  const errors: FieldError[] = [];
  const addressType = slice.addressType ?? '';
  if (!addressType) errors.push(required(newPath('addressType')));
  else if (!(addressTypes as readonly string[]).includes(addressType)) errors.push(notSupported(newPath('addressType'), addressType, addressTypes));
  return [...errors, ...validateEndpoints(slice), ...validatePorts(slice)];
}

export function validateEndpointSliceUpdate(slice: EndpointSlice, old: EndpointSlice): FieldError[] {
  const errors = validateEndpointSlice(slice);
  if ((slice.addressType ?? '') !== (old.addressType ?? '')) errors.push(invalid(newPath('addressType'), slice.addressType ?? '', 'field is immutable'));
  return errors;
}

/** upstream's SetDefaults_EndpointPort, and the conditions struct Go always writes. */
function defaultEndpointSlice(slice: EndpointSlice): void {
  for (const port of slice.ports ?? []) {
    port.name ??= '';
    port.protocol ??= 'TCP';
  }
  for (const endpoint of slice.endpoints ?? []) endpoint.conditions ??= {};
}

/** v1 cannot write deprecatedTopology: it is dropped from endpoints written through v1 (upstream's dropTopologyOnV1). */
function dropTopology(slice: EndpointSlice): void {
  for (const endpoint of slice.endpoints ?? []) delete endpoint.deprecatedTopology;
}

/** At most three, then "+ N more..."; "<unset>" for none (upstream's listWithMoreString). */
function listWithMore(items: readonly string[]): string {
  const max = 3;
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === '' ? '<unset>' : shown;
}

/** kubectl's PORTS cell: each port's number, or its name where it has none, or `*`. */
export const formatSlicePorts = (slice: EndpointSlice): string =>
  listWithMore((slice.ports ?? []).map((port) => (port.port !== undefined ? String(port.port) : port.name !== undefined ? port.name : '*')));

/** kubectl's ENDPOINTS cell: the addresses of every endpoint. */
export const formatSliceEndpoints = (slice: EndpointSlice): string => listWithMore((slice.endpoints ?? []).flatMap((endpoint) => endpoint.addresses ?? []));

export const endpointSliceDefinition = {
  group: 'discovery.{domain}',
  version: 'v1',
  kind: 'EndpointSlice',
  resource: 'endpointslices',
  singularName: 'endpointslice',
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    'A subset of the endpoints that implement a service. A service may have several EndpointSlices, selected by labels, which together are its endpoints.',
    {
      addressType: stringField(addressTypeDescription),
      endpoints: atomicList(endpointsDescription, endpointSchema),
      ports: atomicList(portsDescription, portSchema),
    },
    ['addressType'],
  ),
  strategy: {
    prepareForCreate(slice) {
      slice.metadata.generation = 1;
      dropTopology(slice);
    },
    prepareForUpdate(slice, old) {
      // Defaults first, so that a slice sent without them is not a change; the generation counts
      // changes outside metadata, and of the labels.
      defaultEndpointSlice(slice);
      const { metadata, ...fields } = slice;
      const { metadata: oldMetadata, ...oldFields } = old;
      const changed = !isDeepStrictEqual(fields, oldFields) || !isDeepStrictEqual(metadata.labels ?? {}, oldMetadata.labels ?? {});
      const generation = oldMetadata.generation ?? 0;
      metadata.generation = changed ? generation + 1 : generation;
      if (!isDeepStrictEqual(slice.endpoints, old.endpoints)) dropTopology(slice);
    },
    default: defaultEndpointSlice,
    validate: validateEndpointSlice,
    validateUpdate: validateEndpointSliceUpdate,
  },
  tableColumns: [
    nameColumn<EndpointSlice>(),
    { name: 'AddressType', type: 'string', description: addressTypeDescription, priority: 0, value: (slice) => slice.addressType ?? '' },
    { name: 'Ports', type: 'string', description: portsDescription, priority: 0, value: formatSlicePorts },
    { name: 'Endpoints', type: 'string', description: endpointsDescription, priority: 0, value: formatSliceEndpoints },
    ageColumn<EndpointSlice>(),
  ],
  allowCreateOnUpdate: false,
  protobuf: {
    message: 'k8s.io.api.discovery.v1.EndpointSlice',
    // The pointers of upstream's discovery/v1 types.go (its pointer messages are kept whenever on the wire).
    pointers: [
      'endpoints.conditions.ready',
      'endpoints.conditions.serving',
      'endpoints.conditions.terminating',
      'endpoints.hostname',
      'endpoints.nodeName',
      'endpoints.zone',
      'ports.name',
      'ports.protocol',
      'ports.port',
      'ports.appProtocol',
    ],
  },
} satisfies ResourceDefinition<EndpointSlice>;
