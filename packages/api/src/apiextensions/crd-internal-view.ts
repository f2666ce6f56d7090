// A v1 CRD spec as upstream validates it: converted to the internal type first, where a schema,
// subresources or printer columns that every version shares identically move to the top level
// (spec.validation, spec.subresources, spec.additionalPrinterColumns). That decides the paths in
// error messages: a one-version CRD's schema errors read `spec.validation.openAPIV3Schema...`.
import type { InternalConversion } from './crd-conversion-validation.js';
import { isSet, jsonEqual } from './schema-props.js';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceSubresources,
  JSONSchemaProps,
} from './types.js';

export interface CustomResourceValidation {
  openAPIV3Schema?: JSONSchemaProps;
}

export interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  /** Absent is Go's nil, distinct from "". */
  deprecationWarning?: string;
  schema?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns: CustomResourceColumnDefinition[];
}

export interface InternalSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: string;
  /** The first version's name (upstream's deprecated spec.version, still validated). */
  version: string;
  versions: InternalVersion[];
  /** spec.versions as given, for error messages that quote the list. */
  givenVersions: unknown[];
  validation?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns: CustomResourceColumnDefinition[];
  conversion?: InternalConversion;
  preserveUnknownFields: boolean;
}

// Go's semantic equality of the converted structs: a missing field equals its zero value, where
// the zero of a string is "", of a bool false, of a list or map empty; pointers (numbers, nested
// structs, the JSON of defaults and examples, a few optional strings) are set or not.
const pointerKeys = new Set([
  '$ref',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'labelSelectorPath',
  'items',
  'not',
  'additionalProperties',
  'externalDocs',
  'status',
  'scale',
  'openAPIV3Schema',
]);
const rawJsonKeys = new Set(['default', 'example']);
const mapKeys = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);
const integerKeys = new Set(['priority']);

function isZeroWhenMissing(key: string, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (pointerKeys.has(key) || rawJsonKeys.has(key)) return false;
  if (value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (mapKeys.has(key) && typeof value === 'object') return Object.keys(value).length === 0;
  return integerKeys.has(key) && value === 0;
}

/** apiequality.Semantic.DeepEqual over the converted structs, read from their JSON. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isSet(a) || !isSet(b)) return !isSet(a) && !isSet(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const [vx, vy] = [x[key], y[key]];
    if (rawJsonKeys.has(key) || key === 'enum') {
      if (key === 'enum' ? !jsonEqual(vx ?? [], vy ?? []) : !(isSet(vx) ? isSet(vy) && jsonEqual(vx, vy) : !isSet(vy))) return false;
      continue;
    }
    if (!Object.hasOwn(x, key) || !isSet(vx)) {
      if (!isZeroWhenMissing(key, vy)) return false;
    } else if (!Object.hasOwn(y, key) || !isSet(vy)) {
      if (!isZeroWhenMissing(key, vx)) return false;
    } else if (!semanticEqual(vx, vy)) return false;
  }
  return true;
}

/** The v1 spec converted as upstream converts it before validating. */
export function internalSpec(spec: CustomResourceDefinitionSpec): InternalSpec {
  const versions: InternalVersion[] = (spec.versions ?? []).map((v) => {
    const version: InternalVersion = {
      name: v.name ?? '',
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      additionalPrinterColumns: v.additionalPrinterColumns ?? [],
    };
    if (isSet(v.deprecationWarning)) version.deprecationWarning = v.deprecationWarning;
    if (isSet(v.schema)) version.schema = v.schema;
    if (isSet(v.subresources)) version.subresources = v.subresources;
    return version;
  });
  const internal: InternalSpec = {
    group: spec.group ?? '',
    names: spec.names ?? { plural: '', kind: '' },
    scope: spec.scope ?? '',
    version: versions[0]?.name ?? '',
    versions,
    givenVersions: spec.versions ?? [],
    additionalPrinterColumns: [],
    preserveUnknownFields: spec.preserveUnknownFields === true,
  };
  if (isSet(spec.conversion)) {
    const conversion: InternalConversion = { strategy: spec.conversion.strategy ?? '' };
    const webhook = spec.conversion.webhook;
    if (isSet(webhook)) {
      if (isSet(webhook.conversionReviewVersions)) conversion.conversionReviewVersions = webhook.conversionReviewVersions;
      if (isSet(webhook.clientConfig)) conversion.webhookClientConfig = webhook.clientConfig;
    }
    internal.conversion = conversion;
  }
  if (versions.length === 0) return internal;

  const first = versions[0]!;
  if (versions.every((v) => semanticEqual(v.subresources, first.subresources))) {
    if (first.subresources) internal.subresources = first.subresources;
    for (const v of versions) delete v.subresources;
  }
  if (versions.every((v) => semanticEqual(v.schema, first.schema))) {
    if (first.schema) internal.validation = first.schema;
    for (const v of versions) delete v.schema;
  }
  if (versions.every((v) => semanticEqual(v.additionalPrinterColumns, first.additionalPrinterColumns))) {
    internal.additionalPrinterColumns = first.additionalPrinterColumns;
    for (const v of versions) v.additionalPrinterColumns = [];
  }
  return internal;
}

/** The subresources that apply to a version: the shared ones, or its own. */
export function subresourcesForVersion(spec: InternalSpec, version: InternalVersion): CustomResourceSubresources | undefined {
  return spec.versions.some((v) => v.subresources) ? version.subresources : spec.subresources;
}

const hasStatus = (subresources: CustomResourceSubresources | undefined): boolean => isSet(subresources?.status);

export const hasStatusEnabled = hasStatus;

/** Whether any version (or the shared subresources) enables status. */
export const hasAnyStatusEnabled = (spec: InternalSpec): boolean => hasStatus(spec.subresources) || spec.versions.some((v) => hasStatus(v.subresources));

/** Every schema of the spec: the shared one and the versions' own. */
export function specSchemas(spec: InternalSpec): JSONSchemaProps[] {
  const schemas: (JSONSchemaProps | undefined)[] = [spec.validation?.openAPIV3Schema, ...spec.versions.map((v) => v.schema?.openAPIV3Schema)];
  return schemas.filter((s): s is JSONSchemaProps => isSet(s));
}
