// IPAddress (networking.{domain}/v1alpha1, cluster-scoped): one allocated IP address, named by the
// address itself in canonical form, and the object it is allocated to.
import {
  invalid,
  ipAddressNameErrors,
  isDNS1123Subdomain,
  nameIsPathSegment,
  newPath,
  required,
  type FieldError,
  type FieldPath,
} from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectSchema, stringField } from '../common/schema.js';
import { nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';

export interface ParentReference {
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

export interface IPAddressSpec {
  parentRef?: ParentReference;
}

export interface IPAddress extends KubeObject {
  spec?: IPAddressSpec;
}

const parentReferenceSchema: JSONSchema = objectSchema(
  'Identifies the object an IPAddress is attached to.',
  {
    group: stringField('Group of the referenced object; "" for the core group.'),
    resource: stringField('Resource of the referenced object.'),
    namespace: stringField('Namespace of the referenced object; empty for a cluster-scoped object.'),
    name: stringField('Name of the referenced object.'),
    uid: stringField('UID of the referenced object.'),
  },
  { required: ['resource', 'name'] },
);

const ipAddressSchema = kindSchema(
  'A single IP of a single IP family, named by the address in canonical form: IPv4 as four decimal numbers without leading zeros, IPv6 as RFC 5952 (compressed). Used by the service allocation API.',
  {
    spec: objectSchema(
      'The desired state of the IPAddress.',
      { parentRef: { ...parentReferenceSchema, description: 'The object the IPAddress is attached to. Required.' } },
      { required: ['parentRef'] },
    ),
  },
);

function pathSegmentErrors(value: string, path: FieldPath): FieldError[] {
  return nameIsPathSegment(value, false).map((message) => invalid(path, value, message));
}

function validateParentReference(ref: ParentReference | undefined, spec: FieldPath): FieldError[] {
  if (!ref) return [required(spec.child('parentRef'))];
  const path = spec.child('parentRef');
  const errors: FieldError[] = [];
  // The core group, used by Services, is "": the group cannot be required.
  if (ref.group) errors.push(...isDNS1123Subdomain(ref.group).map((m) => invalid(path.child('group'), ref.group, m)));
  if (!ref.resource) errors.push(required(path.child('resource')));
  else errors.push(...pathSegmentErrors(ref.resource, path.child('resource')));
  if (!ref.name) errors.push(required(path.child('name')));
  else errors.push(...pathSegmentErrors(ref.name, path.child('name')));
  if (ref.namespace) errors.push(...pathSegmentErrors(ref.namespace, path.child('namespace')));
  return errors;
}

const validateIPAddress = (address: IPAddress): FieldError[] => validateParentReference(address.spec?.parentRef, newPath('spec'));

const sameParent = (a: ParentReference | undefined, b: ParentReference | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : (['group', 'resource', 'namespace', 'name', 'uid'] as const).every((k) => (a[k] ?? '') === (b[k] ?? ''));

/** "resource.group/namespace/name", lower case, as kubectl shows the parent. */
function parentRefText(ref: ParentReference | undefined): string {
  if (!ref) return '<none>';
  const groupResource = ref.group ? `${ref.resource ?? ''}.${ref.group}` : (ref.resource ?? '');
  return `${groupResource.toLowerCase()}${ref.namespace ? `/${ref.namespace}` : ''}/${ref.name ?? ''}`;
}

export const ipAddressDefinition = {
  group: 'networking.{domain}',
  version: 'v1alpha1',
  kind: 'IPAddress',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { spec: {} },
  resource: 'ipaddresses',
  singularName: 'ipaddress',
  shortNames: ['ip'],
  namespaced: false,
  verbs: allVerbs,
  schema: ipAddressSchema,
  // The name is the address. A generateName prefix is checked as a whole address too, as upstream
  // does: a prefix like "10.0.0." is rejected.
  validateName: (name, _prefix) => ipAddressNameErrors(name),
  strategy: {
    validate: validateIPAddress,
    validateUpdate: (address, old) => {
      const errors = validateIPAddress(address);
      const ref = address.spec?.parentRef;
      if (!sameParent(ref, old.spec?.parentRef)) errors.push(invalid(newPath('spec', 'parentRef'), ref ?? null, 'field is immutable'));
      return errors;
    },
  },
  tableColumns: [
    nameColumn<IPAddress>(),
    {
      name: 'ParentRef',
      type: 'string',
      description: 'The object the IPAddress is attached to.',
      priority: 0,
      value: (address) => parentRefText(address.spec?.parentRef),
    },
  ],
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.networking.v1alpha1.IPAddress' },
} satisfies ResourceDefinition<IPAddress>;
