// Validation of a CustomResourceDefinition (apiextensions v1), as upstream 1.28's
// ValidateCustomResourceDefinition and ValidateCustomResourceDefinitionUpdate: the group, names,
// scope, versions, schemas, subresources, printer columns, conversion, stored versions, the API
// approval annotation of protected groups, and what an update may not change. Generic metadata
// is the store's; the name rule (plural.group) is validateCustomResourceDefinitionName.
import {
  GoFormatted,
  goStringSlice,
  invalid,
  isDNS1035Label,
  isDNS1123Subdomain,
  nameIsDNSSubdomain,
  newPath,
  required,
  type FieldError,
  type FieldPath,
} from '@plat/apimachinery';
import { apiApprovalAnnotation, approvalState, isProtectedGroup } from './api-approval.js';
import { hasValidConversionReviewVersionOrEmpty, validateConversion, validateEnumString } from './crd-conversion-validation.js';
import {
  hasAnyStatusEnabled,
  hasStatusEnabled,
  internalSpec,
  specSchemas,
  subresourcesForVersion,
  type InternalSpec,
  type InternalVersion,
} from './crd-internal-view.js';
import { validateCustomResourceValidation, validateMapListKeysMapSet, type SchemaRuleOptions } from './crd-schema-validation.js';
import { crdShapeErrors, withNullItemsAsZero } from './crd-shape.js';
import { hasUnprunedDefaults } from './schema-defaults-check.js';
import { isSet, itemsSchema, schemaHas } from './schema-props.js';
import { checkValueAgainstSchema, type SchemaValueValidator } from './schema-value-check.js';
import { isNonStructural, structuralConversionError } from './structural-schema.js';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceSubresources,
  JSONSchemaProps,
} from './types.js';

export interface CustomResourceDefinitionValidationOptions {
  /** --api-domain: "plat.io" or "k8s.io"; decides the protected groups and the approval annotation. */
  domain: string;
  /**
   * Checks a schema's default against the schema. Default: checkValueAgainstSchema, which covers
   * what defaults need but not formats; the custom resources' own value validator fits here.
   */
  validateValue?: SchemaValueValidator;
}

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const openapiV3Types = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

/** Upstream's validationOptions for the spec. */
interface SpecOptions extends SchemaRuleOptions {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
}

/**
 * Problems with a CRD's name (or generateName prefix) as messages: a DNS subdomain, and exactly
 * `<spec.names.plural>.<spec.group>`. For the kind's name check (ResourceDefinition.validateName
 * with the object at hand).
 */
export function validateCustomResourceDefinitionName(name: string, prefix: boolean, crd: CustomResourceDefinition): string[] {
  const problems = nameIsDNSSubdomain(name, prefix);
  if (name !== `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`) problems.push('must be spec.names.plural+"."+spec.group');
  return problems;
}

/** A new CRD's problems (after defaulting and the strategy's preparation). */
export function validateCustomResourceDefinition(given: CustomResourceDefinition, options: CustomResourceDefinitionValidationOptions): FieldError[] {
  const shapeErrors = crdShapeErrors(given);
  if (shapeErrors.length) return shapeErrors;
  const crd = withNullItemsAsZero(given);
  const spec = internalSpec(crd.spec ?? ({} as CustomResourceDefinition['spec']));
  const specOptions: SpecOptions = {
    requireRecognizedConversionReviewVersion: true,
    requireImmutableNames: false,
    requireOpenAPISchema: true,
    requireValidPropertyType: true,
    requireStructuralSchema: true,
    requirePrunedDefaults: true,
    requireAtomicSetType: true,
    requireMapListKeysMapSetValidation: true,
    checkValue: options.validateValue ?? checkValueAgainstSchema,
  };
  return [
    ...validateSpec(spec, specOptions, newPath('spec')),
    ...validateCustomResourceDefinitionStatus(crd),
    ...validateStoredVersions(crd.status?.storedVersions, spec.versions, newPath('status', 'storedVersions')),
    ...validateAPIApproval(crd, undefined, options.domain),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

/**
 * An update's problems. Rules added since a CRD was stored do not fail it for what it already
 * had (invalid types, non-structural schemas, unpruned defaults, ...), as upstream ratchets them.
 */
export function validateCustomResourceDefinitionUpdate(
  given: CustomResourceDefinition,
  givenOld: CustomResourceDefinition,
  options: CustomResourceDefinitionValidationOptions,
): FieldError[] {
  const shapeErrors = crdShapeErrors(given);
  if (shapeErrors.length) return shapeErrors;
  // A stored object of the wrong shape (never written by this server) earns no leniency.
  if (crdShapeErrors(givenOld).length) return validateCustomResourceDefinition(given, options);
  const crd = withNullItemsAsZero(given);
  const old = withNullItemsAsZero(givenOld);
  const spec = internalSpec(crd.spec ?? ({} as CustomResourceDefinition['spec']));
  const oldSpec = internalSpec(old.spec ?? ({} as CustomResourceDefinition['spec']));
  const oldSchemas = specSchemas(oldSpec);
  const anyOld = (predicate: (s: JSONSchemaProps) => boolean): boolean => oldSchemas.some((s) => schemaHas(s, predicate));
  const specOptions: SpecOptions = {
    requireRecognizedConversionReviewVersion: !oldSpec.conversion || hasValidConversionReviewVersionOrEmpty(oldSpec.conversion.conversionReviewVersions),
    requireImmutableNames: isConditionTrue(old, 'Established'),
    requireOpenAPISchema: allVersionsSpecifyOpenAPISchema(oldSpec),
    requireValidPropertyType: !anyOld((s) => Boolean(s.type) && !openapiV3Types.has(s.type!)),
    requireStructuralSchema: !oldSchemas.some((s) => isNonStructural(s, newPath(''))),
    requirePrunedDefaults: !oldSchemas.some(schemaHasUnprunedDefaults),
    requireAtomicSetType: !anyOld(hasNonAtomicSetType),
    requireMapListKeysMapSetValidation: !anyOld((s) => validateMapListKeysMapSet(s, newPath('')).length > 0),
    checkValue: options.validateValue ?? checkValueAgainstSchema,
  };
  const path = newPath('spec');
  const errors = validateSpec(spec, specOptions, path);
  if (specOptions.requireImmutableNames) {
    // These decide the storage of the custom resources.
    errors.push(...immutable(spec.scope, oldSpec.scope, path.child('scope')));
    errors.push(...immutable(spec.names.kind ?? '', oldSpec.names.kind ?? '', path.child('names', 'kind')));
  }
  // These make the CRD's name, which never changes.
  errors.push(...immutable(spec.group, oldSpec.group, path.child('group')));
  errors.push(...immutable(spec.names.plural ?? '', oldSpec.names.plural ?? '', path.child('names', 'plural')));
  return [
    ...errors,
    ...validateCustomResourceDefinitionStatus(crd),
    ...validateStoredVersions(crd.status?.storedVersions, spec.versions, newPath('status', 'storedVersions')),
    ...validateAPIApproval(crd, old, options.domain),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** The status's own rules (the status subresource's update): the accepted names are valid names. */
export function validateCustomResourceDefinitionStatus(given: CustomResourceDefinition): FieldError[] {
  const shapeErrors = crdShapeErrors(given);
  if (shapeErrors.length) return shapeErrors;
  const crd = withNullItemsAsZero(given);
  return validateNames(crd.status?.acceptedNames ?? { plural: '', kind: '' }, newPath('status', 'acceptedNames'));
}

const immutable = (value: string, old: string, path: FieldPath): FieldError[] =>
  value === old ? [] : [invalid(path, value, 'field is immutable')];

const isConditionTrue = (crd: CustomResourceDefinition, type: string): boolean =>
  (crd.status?.conditions ?? []).find((c) => c.type === type)?.status === 'True';

const joined = (problems: string[]): string => problems.join(',');

function validateSpec(spec: InternalSpec, options: SpecOptions, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!spec.group) errors.push(required(path.child('group'), ''));
  else if (isDNS1123Subdomain(spec.group).length) errors.push(invalid(path.child('group'), spec.group, joined(isDNS1123Subdomain(spec.group))));
  else if (spec.group.split('.').length < 2) errors.push(invalid(path.child('group'), spec.group, 'should be a domain with at least one dot'));

  errors.push(...validateEnumString(path.child('scope'), spec.scope, ['Cluster', 'Namespaced']));

  // Pruning (preserveUnknownFields false) needs structural schemas.
  const schemaOptions: SpecOptions = { ...options };
  if (!spec.preserveUnknownFields) schemaOptions.requireStructuralSchema = true;

  if (!isSet(spec.validation?.openAPIV3Schema)) {
    spec.versions.forEach((v, i) => {
      if (isSet(v.schema?.openAPIV3Schema)) return;
      const schemaPath = path.child('versions').index(i).child('schema', 'openAPIV3Schema');
      if (options.requireOpenAPISchema) errors.push(required(schemaPath, 'schemas are required'));
      else if (!spec.preserveUnknownFields && v.served) errors.push(required(schemaPath, 'because otherwise all fields are pruned'));
    });
  }
  const schemas = specSchemas(spec);
  if (schemas.some((s) => schemaHas(s, (x) => isSet(x.default)))) {
    schemaOptions.requireStructuralSchema = true;
    if (spec.preserveUnknownFields) {
      errors.push(invalid(path.child('preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'));
    }
  }
  if (schemas.some((s) => schemaHas(s, hasKubernetesExtension))) schemaOptions.requireStructuralSchema = true;

  let storageVersions = 0;
  const names = new Set<string>();
  let unique = true;
  spec.versions.forEach((version, i) => {
    if (version.storage) storageVersions++;
    if (names.has(version.name)) unique = false;
    names.add(version.name);
    const versionPath = path.child('versions').index(i);
    const problems = isDNS1035Label(version.name);
    if (problems.length) errors.push(invalid(versionPath.child('name'), version.name, joined(problems)));
    const statusEnabled = hasStatusEnabled(subresourcesForVersion(spec, version));
    errors.push(...validateVersion(version, versionPath, statusEnabled, schemaOptions));
  });
  if (!unique) errors.push(invalid(path.child('versions'), spec.givenVersions, 'must contain unique version names'));
  if (storageVersions !== 1) errors.push(invalid(path.child('versions'), spec.givenVersions, 'must have exactly one version marked as storage version'));
  // spec.version is the first version's name in the internal type; upstream checks it again.
  if (spec.version && isDNS1035Label(spec.version).length) {
    errors.push(invalid(path.child('version'), spec.version, joined(isDNS1035Label(spec.version))));
  }

  const namesPath = path.child('names');
  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!spec.names[field]) errors.push(required(namesPath.child(field), ''));
  }
  errors.push(...validateNames(spec.names, namesPath));
  errors.push(...validateCustomResourceValidation(spec.validation, hasAnyStatusEnabled(spec), schemaOptions, path.child('validation')));
  errors.push(...validateSubresources(spec.subresources, path.child('subresources')));
  spec.additionalPrinterColumns.forEach((column, i) => errors.push(...validateColumn(column, path.child('additionalPrinterColumns').index(i))));

  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    errors.push(invalid(path.child('conversion').child('strategy'), spec.conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errors.push(...validateConversion(spec.conversion, options.requireRecognizedConversionReviewVersion, path.child('conversion')));
  return errors;
}

const hasKubernetesExtension = (s: JSONSchemaProps): boolean =>
  s['x-kubernetes-embedded-resource'] === true ||
  isSet(s['x-kubernetes-preserve-unknown-fields']) ||
  s['x-kubernetes-int-or-string'] === true ||
  (s['x-kubernetes-list-map-keys'] ?? []).length > 0 ||
  isSet(s['x-kubernetes-list-type']) ||
  (s['x-kubernetes-validations'] ?? []).length > 0;

function validateVersion(version: InternalVersion, path: FieldPath, statusEnabled: boolean, options: SpecOptions): FieldError[] {
  const errors = deprecationWarningProblems(version.deprecated, version.deprecationWarning).map((problem) =>
    invalid(path.child('deprecationWarning'), version.deprecationWarning ?? null, problem),
  );
  errors.push(...validateCustomResourceValidation(version.schema, statusEnabled, options, path.child('schema')));
  errors.push(...validateSubresources(version.subresources, path.child('subresources')));
  version.additionalPrinterColumns.forEach((column, i) => errors.push(...validateColumn(column, path.child('additionalPrinterColumns').index(i))));
  return errors;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A deprecated version's warning: 1 to 256 bytes of printable text. */
function deprecationWarningProblems(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const problems: string[] = [];
  const bytes = Buffer.byteLength(warning, 'utf8');
  if (bytes > 256) problems.push('must be <= 256 characters long');
  if (warning.length === 0) problems.push('must not be an empty string');
  let index = 0;
  for (const ch of warning) {
    if (!printable.test(ch)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch, 'utf8');
  }
  if (/\p{Cs}/u.test(warning)) problems.push('must only contain printable UTF-8 characters');
  return problems;
}

/** Names as the spec and the accepted names must have them: DNS-1035 labels, kinds in any case. */
function validateNames(names: CustomResourceDefinitionNames, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const label = (field: 'plural' | 'singular', value: string | undefined): void => {
    if (value && isDNS1035Label(value).length) errors.push(invalid(path.child(field), value, joined(isDNS1035Label(value))));
  };
  const kind = (field: 'kind' | 'listKind', value: string | undefined): void => {
    const problems = value ? isDNS1035Label(value.toLowerCase()) : [];
    if (problems.length) errors.push(invalid(path.child(field), value, `may have mixed case, but should otherwise match: ${joined(problems)}`));
  };
  label('plural', names.plural);
  label('singular', names.singular);
  kind('kind', names.kind);
  kind('listKind', names.listKind);
  (names.shortNames ?? []).forEach((shortName, i) => {
    const problems = isDNS1035Label(shortName);
    if (problems.length) errors.push(invalid(path.child('shortNames').index(i), shortName, joined(problems)));
  });
  // A list's kind equal to the item kind would make decoding ambiguous.
  if (names.kind && names.kind === names.listKind) errors.push(invalid(path.child('listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((category, i) => {
    const problems = isDNS1035Label(category);
    if (problems.length) errors.push(invalid(path.child('categories').index(i), category, joined(problems)));
  });
  return errors;
}

/** Upstream's validateSimpleJSONPath: a path beginning with a dot. */
function validateSimpleJSONPath(value: string, path: FieldPath): FieldError[] {
  if (!value) return [invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(subresources: CustomResourceSubresources | undefined, path: FieldPath): FieldError[] {
  const scale = subresources?.scale;
  if (!isSet(scale)) return [];
  const errors: FieldError[] = [];
  const replicasPath = (value: string | undefined, field: string, under: string): void => {
    const p = path.child(`scale.${field}`);
    if (!value) {
      errors.push(required(p, ''));
      return;
    }
    const problems = validateSimpleJSONPath(value, p);
    if (problems.length) errors.push(...problems);
    else if (!value.startsWith(`.${under}.`)) errors.push(invalid(p, value, `should be a json path under .${under}`));
  };
  replicasPath(scale.specReplicasPath, 'specReplicasPath', 'spec');
  replicasPath(scale.statusReplicasPath, 'statusReplicasPath', 'status');
  const selector = scale.labelSelectorPath;
  if (selector) {
    const p = path.child('scale.labelSelectorPath');
    const problems = validateSimpleJSONPath(selector, p);
    if (problems.length) errors.push(...problems);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errors.push(invalid(p, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errors;
}

// Upstream names the column's path field JSONPath, as its Go field.
function validateColumn(column: CustomResourceColumnDefinition, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!column.name) errors.push(required(path.child('name'), ''));
  const types = `must be one of ${printerColumnTypes.join(',')}`;
  if (!column.type) errors.push(required(path.child('type'), types));
  else if (!printerColumnTypes.includes(column.type)) errors.push(invalid(path.child('type'), column.type, types));
  if (column.format && !printerColumnFormats.includes(column.format)) {
    errors.push(invalid(path.child('format'), column.format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  if (!column.jsonPath) errors.push(required(path.child('JSONPath'), ''));
  else errors.push(...validateSimpleJSONPath(column.jsonPath, path.child('JSONPath')));
  return errors;
}

/** status.storedVersions: not empty, holding the storage version, naming only versions of the spec. */
function validateStoredVersions(storedVersions: string[] | undefined, versions: InternalVersion[], path: FieldPath): FieldError[] {
  const value = new GoFormatted(goStringSlice(storedVersions ?? null));
  if (!storedVersions?.length) return [invalid(path, value, 'must have at least one stored version')];
  const errors: FieldError[] = [];
  const remaining = new Map<string, number>();
  storedVersions.forEach((v, i) => remaining.set(v, i));
  for (const version of versions) {
    const stored = remaining.has(version.name);
    if (version.storage && !stored) errors.push(invalid(path, value, `must have the storage version ${version.name}`));
    if (stored) remaining.delete(version.name);
  }
  for (const [name, i] of [...remaining].sort((a, b) => a[1] - b[1])) errors.push(invalid(path.index(i), name, 'must appear in spec.versions'));
  return errors;
}

/**
 * A CRD in a protected group needs the approval annotation (`api-approved.kubernetes.io` under
 * k8s.io, `api-approved.plat.io` under plat.io): a URL of the approval, or a reason starting with
 * "unapproved". An update that leaves the annotation's state as it was is never refused for it.
 */
function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined, domain: string): FieldError[] {
  if (!isProtectedGroup(crd.spec?.group ?? '', domain)) return [];
  const key = apiApprovalAnnotation(domain);
  const now = approvalState(crd.metadata?.annotations, key);
  if (old && approvalState(old.metadata?.annotations, key).state === now.state) return [];
  const path = newPath('metadata', 'annotations').key(key);
  switch (now.state) {
    case 'missing':
      return [required(path, now.reason)];
    case 'invalid':
      return [invalid(path, crd.metadata?.annotations?.[key] ?? '', now.reason)];
    default:
      return [];
  }
}

/** spec.preserveUnknownFields may not be turned on (v1 keeps it only for CRDs that had it). */
function validatePreserveUnknownFields(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true) return [];
  if (crd.spec?.preserveUnknownFields !== true) return [];
  const detail = 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead';
  return [invalid(newPath('spec', 'preserveUnknownFields'), true, detail)];
}

function allVersionsSpecifyOpenAPISchema(spec: InternalSpec): boolean {
  if (isSet(spec.validation?.openAPIV3Schema)) return true;
  return spec.versions.every((v) => isSet(v.schema?.openAPIV3Schema));
}

// A set of objects or lists whose items are not atomic (allowed only where it already was).
function hasNonAtomicSetType(s: JSONSchemaProps): boolean {
  const items = itemsSchema(s);
  if (s['x-kubernetes-list-type'] !== 'set' || !items) return false;
  if (items.type === 'array') return isSet(items['x-kubernetes-list-type']) && items['x-kubernetes-list-type'] !== 'atomic';
  if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
  return false;
}

function schemaHasUnprunedDefaults(s: JSONSchemaProps): boolean {
  if (!schemaHas(s, (x) => isSet(x.default))) return false;
  if (structuralConversionError(s) !== undefined || isNonStructural(s, newPath(''))) return false;
  return hasUnprunedDefaults(s);
}
