// LimitRange (core v1, namespaced): per-kind minimum, maximum and default resource amounts in a namespace.
import {
  duplicate,
  forbidden,
  invalid,
  isQualifiedName,
  newPath,
  parseQuantity,
  required,
  type FieldError,
  type FieldPath,
  type Quantity,
} from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition } from '@plat/registry';
import { wellKnownPrefix } from '../common/domain.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, objectSchema, resourceList, stringField } from '../common/schema.js';
import { allVerbs } from '../common/verbs.js';

/** Resource name to quantity, e.g. {cpu: "500m", memory: "1Gi"}. */
export type ResourceList = Record<string, string | number>;

export interface LimitRangeItem {
  /** Pod, Container, PersistentVolumeClaim, or a fully qualified type. */
  type: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRangeSpec {
  limits: LimitRangeItem[];
}

export interface LimitRange extends KubeObject {
  spec?: LimitRangeSpec;
}

const quantityFields = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
type QuantityField = (typeof quantityFields)[number];

const limitRangeItemSchema: JSONSchema = objectSchema(
  'Min/max limits for the resources of one kind of object.',
  {
    type: stringField('Kind of object this limit applies to: Pod, Container or PersistentVolumeClaim.'),
    max: resourceList('Maximum usage on this kind, by resource name.'),
    min: resourceList('Minimum usage on this kind, by resource name.'),
    default: resourceList('Default limit when a limit is omitted, by resource name.'),
    defaultRequest: resourceList('Default request when a request is omitted, by resource name.'),
    maxLimitRequestRatio: resourceList(
      'When set, the named resource must have non-zero request and limit, and limit divided by request must be at most this value: the maximum burst.',
    ),
  },
  { required: ['type'] },
);

const standardLimitTypes = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);

// Upstream's helper.IsStandardResourceName and IsStandardContainerResourceName.
const standardResources = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const isHugePage = (name: string): boolean => name.startsWith('hugepages-');
const isStandardResource = (name: string): boolean =>
  standardResources.has(name) || isHugePage(name) || name.startsWith('requests.hugepages-');
// A resource of the platform itself: unprefixed, or under the well-known prefix ("plat.io/...").
const isNativeResource = (name: string, domain: string): boolean =>
  !name.includes('/') || name.includes(`${wellKnownPrefix(domain)}/`);
const isExtendedResource = (name: string, domain: string): boolean =>
  !isNativeResource(name, domain) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
// Resources that may not be overcommitted (hugepages, extended resources) need default == defaultRequest.
const isOvercommitAllowed = (name: string, domain: string): boolean => isNativeResource(name, domain) && !isHugePage(name);

function validateLimitTypeName(type: string, path: FieldPath): FieldError[] {
  const errors = isQualifiedName(type).map((message) => invalid(path, type, message));
  if (errors.length) return errors;
  if (!type.includes('/') && !standardLimitTypes.has(type)) {
    errors.push(invalid(path, type, 'must be a standard limit type or fully qualified'));
  }
  return errors;
}

function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const errors = isQualifiedName(name).map((message) => invalid(path, name, message));
  if (errors.length) return errors;
  if (!name.includes('/') && !isStandardResource(name)) {
    errors.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  return errors;
}

// Pods and containers take compute resources only; other types (a claim's storage) any resource.
function validateLimitResourceName(type: string, name: string, path: FieldPath, domain: string): FieldError[] {
  const errors = validateResourceName(name, path);
  if (type !== 'Pod' && type !== 'Container') return errors;
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !isHugePage(name)) {
      errors.push(invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name, domain) && !isExtendedResource(name, domain)) {
    errors.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

function parse(value: string | number): Quantity | undefined {
  try {
    return parseQuantity(String(value));
  } catch {
    return undefined;
  }
}

function parseError(value: string | number): string {
  try {
    parseQuantity(String(value));
    return '';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Go's %f: six decimals. */
const goFloat = (n: number): string => (Number.isFinite(n) ? n.toFixed(6) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN');

function validateLimitRangeItem(limit: LimitRangeItem, path: FieldPath, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = limit.type ?? '';
  const keys = new Set<string>();
  const quantities: Record<QuantityField, Map<string, Quantity>> = {
    max: new Map(),
    min: new Map(),
    default: new Map(),
    defaultRequest: new Map(),
    maxLimitRequestRatio: new Map(),
  };
  const collect = (field: QuantityField): void => {
    for (const [name, value] of Object.entries(limit[field] ?? {})) {
      const at = path.child(field).key(name);
      errors.push(...validateLimitResourceName(type, name, at, domain));
      keys.add(name);
      const quantity = parse(value);
      // Upstream rejects such a value while decoding the body; we report it here, at its path.
      if (quantity) quantities[field].set(name, quantity);
      else errors.push(invalid(at, value, parseError(value)));
    }
  };

  collect('max');
  collect('min');
  if (type === 'Pod') {
    if (Object.keys(limit.default ?? {}).length) {
      errors.push(forbidden(path.child('default'), "may not be specified when `type` is 'Pod'"));
    }
    if (Object.keys(limit.defaultRequest ?? {}).length) {
      errors.push(forbidden(path.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
    }
  } else {
    collect('default');
    collect('defaultRequest');
  }
  if (type === 'PersistentVolumeClaim' && !Object.hasOwn(limit.min ?? {}, 'storage') && !Object.hasOwn(limit.max ?? {}, 'storage')) {
    // The path is upstream's, `limits` below the item.
    errors.push(required(path.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'));
  }
  collect('maxLimitRequestRatio');

  for (const name of keys) {
    const min = quantities.min.get(name);
    const max = quantities.max.get(name);
    const def = quantities.default.get(name);
    const defReq = quantities.defaultRequest.get(name);
    const ratio = quantities.maxLimitRequestRatio.get(name);
    const at = (field: QuantityField): FieldPath => path.child(field).key(name);

    if (min && max && min.compare(max) > 0) {
      errors.push(invalid(at('min'), min.toString(), `min value ${min} is greater than max value ${max}`));
    }
    if (defReq && min && min.compare(defReq) > 0) {
      errors.push(invalid(at('defaultRequest'), defReq.toString(), `min value ${min} is greater than default request value ${defReq}`));
    }
    if (defReq && max && defReq.compare(max) > 0) {
      errors.push(invalid(at('defaultRequest'), defReq.toString(), `default request value ${defReq} is greater than max value ${max}`));
    }
    if (defReq && def && defReq.compare(def) > 0) {
      errors.push(
        invalid(at('defaultRequest'), defReq.toString(), `default request value ${defReq} is greater than default limit value ${def}`),
      );
    }
    // Upstream reports the min (and below, the max) as the bad value of `default`.
    if (def && min && min.compare(def) > 0) {
      errors.push(invalid(at('default'), min.toString(), `min value ${min} is greater than default value ${def}`));
    }
    if (def && max && def.compare(max) > 0) {
      errors.push(invalid(at('default'), max.toString(), `default value ${def} is greater than max value ${max}`));
    }
    if (ratio && ratio.compare(parseQuantity('1')) < 0) {
      errors.push(invalid(at('maxLimitRequestRatio'), ratio.toString(), `ratio ${ratio} is less than 1`));
    }
    // With min 0 upstream divides by zero and compares against +Inf or NaN: never an error.
    if (ratio && min && max && !min.isZero()) {
      const limit = max.ratioTo(min);
      if (ratio.ratioTo(parseQuantity('1')) > limit) {
        errors.push(invalid(at('maxLimitRequestRatio'), ratio.toString(), `ratio ${ratio} is greater than max/min = ${goFloat(limit)}`));
      }
    }
    if (!isOvercommitAllowed(name, domain) && def && defReq && def.compare(defReq) !== 0) {
      errors.push(
        invalid(at('defaultRequest'), defReq.toString(), `default value ${def} must equal to defaultRequest value ${defReq} in ${name}`),
      );
    }
  }
  return errors;
}

function validateLimitRange(limitRange: LimitRange, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const path = newPath('spec', 'limits');
  const types = new Set<string>();
  (limitRange.spec?.limits ?? []).forEach((limit, i) => {
    const type = limit.type ?? '';
    errors.push(...validateLimitTypeName(type, path.index(i).child('type')));
    if (types.has(type)) errors.push(duplicate(path.index(i).child('type'), type));
    types.add(type);
    errors.push(...validateLimitRangeItem(limit, path.index(i), domain));
  });
  return errors;
}

/**
 * Upstream's defaulting of a Container item: a missing default limit is the max, a missing default
 * request the default limit or else the min. Quantities are stored in canonical form ("1000m" is "1").
 */
function defaultLimitRange(limitRange: LimitRange): void {
  for (const limit of limitRange.spec?.limits ?? []) {
    if (limit.type === 'Container') {
      const fill = (target: 'default' | 'defaultRequest', source: ResourceList | undefined): void => {
        for (const [name, value] of Object.entries(source ?? {})) {
          if (Object.hasOwn(limit[target] ?? {}, name)) continue;
          limit[target] = { ...limit[target], [name]: value };
        }
      };
      fill('default', limit.max);
      fill('defaultRequest', limit.default);
      fill('defaultRequest', limit.min);
    }
    for (const field of quantityFields) {
      const list = limit[field];
      if (!list) continue;
      for (const [name, value] of Object.entries(list)) {
        const quantity = parse(value);
        if (quantity) list[name] = quantity.toString();
      }
    }
  }
}

export const limitRangeDefinition = {
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { spec: {} },
  resource: 'limitranges',
  singularName: 'limitrange',
  shortNames: ['limits'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema('Resource usage limits for each kind of resource in a namespace.', {
    spec: objectSchema(
      'The limits enforced.',
      { limits: atomicList('Limits enforced, one item per kind of object.', limitRangeItemSchema) },
      { required: ['limits'] },
    ),
  }),
  strategy: {
    default: defaultLimitRange,
    validate: (limitRange, { domain }) => validateLimitRange(limitRange, domain),
    validateUpdate: (limitRange, _old, { domain }) => validateLimitRange(limitRange, domain),
  },
  // No columns of its own: Name and Created At, as upstream.
  allowCreateOnUpdate: true,
  protobuf: { message: 'k8s.io.api.core.v1.LimitRange' },
} satisfies ResourceDefinition<LimitRange>;
