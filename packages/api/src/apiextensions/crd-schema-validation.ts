// A CRD version's openAPIV3Schema: the OpenAPI subset Kubernetes accepts, structural, with valid
// list and map extensions and valid, pruned defaults (upstream's
// validateCustomResourceDefinitionValidation and ValidateCustomResourceDefinitionOpenAPISchema).
import { GoFormatted, forbidden, goStringSlice, invalid, notSupported, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import { celRuleErrors, childCelContext, rootCelContext, totalCostErrors, validateValidationRuleFields, type CelSchemaContext } from './crd-cel-rules.js';
import { validateSchemaDefaults } from './schema-defaults-check.js';
import { hasEntries, isSet, itemsList, itemsSchema, additionalPropertiesSchema, metaFields, schemaEntries } from './schema-props.js';
import type { SchemaValueValidator } from './schema-value-check.js';
import { structuralConversionError, validateStructural } from './structural-schema.js';
import type { JSONSchemaProps } from './types.js';

const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** What the schema rules depend on: upstream's validationOptions, looser on update for old data. */
export interface SchemaRuleOptions {
  requireValidPropertyType: boolean;
  requireStructuralSchema: boolean;
  requirePrunedDefaults: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
  checkValue: SchemaValueValidator;
}

// What the root schema may hold when the status subresource is on (upstream's allowedFieldsAtRootSchema,
// by JSON name): so that properties.status alone carries the status's validation.
const allowedAtRootWithStatus = new Set([
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
]);

// The fields in the order of upstream's JSONSchemaProps struct, which is the order it reports in.
const schemaFieldOrder = [
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'externalDocs',
  'example',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

const stringFields = new Set(['id', '$schema', 'description', 'type', 'format', 'title', 'pattern']);
const boolFields = new Set([
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
]);

/** Whether Go holds the field at other than its zero value: a string non-empty, a bool true, a pointer, slice or map present. */
function isNonZero(field: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (stringFields.has(field)) return value !== '';
  if (boolFields.has(field)) return value === true;
  return true;
}

function rootFieldsWithStatus(schema: JSONSchemaProps, path: FieldPath): FieldError[] {
  for (const field of schemaFieldOrder) {
    if (!isNonZero(field, schema[field])) continue;
    if (field === 'type') {
      if (schema.type !== 'object') {
        const detail = 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled';
        return [invalid(path.child('openAPIV3Schema.type'), schema.type, detail)];
      }
      continue;
    }
    if (!allowedAtRootWithStatus.has(field)) {
      // Upstream names the fields by their Go names.
      const allowed =
        '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems ' +
        'UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';
      const detail = `only ${allowed} fields are allowed at the root of the schema if the status subresource is enabled`;
      return [invalid(path.child('openAPIV3Schema'), schema, detail)];
    }
  }
  return [];
}

/**
 * The problems of one version's (or the shared) `schema` at `path` (`spec.validation` or
 * `spec.versions[i].schema`), given whether the status subresource is on for it.
 */
export function validateCustomResourceValidation(
  validation: { openAPIV3Schema?: JSONSchemaProps } | null | undefined,
  statusEnabled: boolean,
  options: SchemaRuleOptions,
  path: FieldPath,
): FieldError[] {
  const schema = validation?.openAPIV3Schema;
  if (!isSet(schema)) return [];
  const errors: FieldError[] = [];
  if (statusEnabled) errors.push(...rootFieldsWithStatus(schema, path));
  if (schema.nullable) errors.push(forbidden(path.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));

  const schemaPath = path.child('openAPIV3Schema');
  let conversionErrors: FieldError[] = [];
  // Rules are compiled only on a structural schema whose defaults are valid (upstream's CELSchemaContext).
  let cel: CelSchemaContext | undefined;
  if (options.requireStructuralSchema) {
    const conversionError = structuralConversionError(schema);
    if (conversionError) conversionErrors = [invalid(schemaPath, '', conversionError)];
    else {
      const structural = validateStructural(schemaPath, schema);
      if (structural.length) errors.push(...structural);
      else {
        const defaults = validateSchemaDefaults(schemaPath, schema, options.requirePrunedDefaults, options.checkValue);
        errors.push(...defaults);
        if (!defaults.length) cel = rootCelContext(schema);
      }
    }
  }
  const context: WalkContext = { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false, ruleHolder: true, cel };
  const walked = validateOpenAPISchema(schema, schemaPath, context, true, options);
  errors.push(...walked.schema, ...walked.cel);
  // The conversion's complaints repeat what validation says better; alone, they are all there is.
  if (errors.length === 0) errors.push(...conversionErrors);
  if (cel) errors.push(...totalCostErrors(cel.totalCost, schemaPath));
  return errors;
}

/** Upstream's specStandardValidator state as the walk descends. */
interface WalkContext {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
  /** Whether x-kubernetes-validations rules apply here (not under allOf, anyOf, oneOf, not, definitions). */
  ruleHolder: boolean;
  /** Where rules are compiled and costed; undefined when they are not (not structural, or under a junctor). */
  cel: CelSchemaContext | undefined;
  /** The highest list above whose items cannot be paired with their old values: no transition rules below. */
  uncorrelatable?: FieldPath;
}

/** Schema errors apart from rule errors: upstream reports all of the former first, and skips rules under a schema error. */
interface WalkErrors {
  schema: FieldError[];
  cel: FieldError[];
}

function appendWalk(into: WalkErrors, from: WalkErrors): void {
  into.schema.push(...from.schema);
  into.cel.push(...from.cel);
}

const withForbiddenDefaults = (c: WalkContext, reason: string): WalkContext => ({ ...c, allowDefaults: false, disallowDefaultsReason: reason });

// The OpenAPI v3 keywords and forms Kubernetes does not accept.
function standardValidator(s: JSONSchemaProps, path: FieldPath, c: WalkContext, options: SchemaRuleOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (options.requireValidPropertyType && s.type && !openapiV3Types.includes(s.type)) {
    errors.push(notSupported(path.child('type'), s.type, openapiV3Types));
  }
  if (isSet(s.default) && !c.allowDefaults) {
    errors.push(forbidden(path.child('default'), c.disallowDefaultsReason ? `must not be set ${c.disallowDefaultsReason}` : 'must not be set'));
  }
  if (s.id) errors.push(forbidden(path.child('id'), 'id is not supported'));
  if (isSet(s.additionalItems)) errors.push(forbidden(path.child('additionalItems'), 'additionalItems is not supported'));
  if (hasEntries(s.patternProperties)) errors.push(forbidden(path.child('patternProperties'), 'patternProperties is not supported'));
  if (hasEntries(s.definitions)) errors.push(forbidden(path.child('definitions'), 'definitions is not supported'));
  if (isSet(s.dependencies)) errors.push(forbidden(path.child('dependencies'), 'dependencies is not supported'));
  if (isSet(s.$ref)) errors.push(forbidden(path.child('$ref'), '$ref is not supported'));
  if (s.type === 'null') errors.push(forbidden(path.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (itemsList(s).length > 0) errors.push(forbidden(path.child('items'), 'items must be a schema object and not an array'));
  if (c.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    errors.push(forbidden(path.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errors;
}

function validateOpenAPISchema(s: JSONSchemaProps, path: FieldPath, c: WalkContext, isRoot: boolean, options: SchemaRuleOptions): WalkErrors {
  const errors = standardValidator(s, path, c, options);
  const result: WalkErrors = { schema: errors, cel: [] };
  const child = (schema: JSONSchemaProps, childPath: FieldPath, childContext: WalkContext): void =>
    appendWalk(result, validateOpenAPISchema(schema, childPath, childContext, false, options));
  const junctor: WalkContext = { ...c, ruleHolder: false, cel: undefined };
  if (s.uniqueItems === true) {
    errors.push(forbidden(path.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }

  // properties are for structs, additionalProperties for maps: not both.
  if (isSet(s.additionalProperties)) {
    const additional = additionalPropertiesSchema(s);
    if (hasEntries(s.properties) && (s.additionalProperties === false || additional)) {
      errors.push(forbidden(path.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    // Pruning a map under metadata by a default would be ambiguous.
    const sub = c.insideResourceMeta ? withForbiddenDefaults(c, 'inside additionalProperties applying to object metadata') : c;
    if (additional) child(additional, path.child('additionalProperties'), { ...sub, cel: childCelContext(c.cel, s, additional) });
  }

  for (const [key, property] of schemaEntries(s.properties)) {
    let sub: WalkContext = { ...c, cel: childCelContext(c.cel, s, property) };
    // A map type other than granular or atomic would not pair old and new values: none exists in 1.28.
    const mapType = s['x-kubernetes-map-type'];
    if (mapType !== undefined && mapType !== 'granular' && mapType !== 'atomic') sub = { ...sub, uncorrelatable: c.uncorrelatable ?? path };
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && metaFields.has(key)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${key}`);
    }
    child(property, path.child('properties').key(key), sub);
  }

  if (isSet(s.not)) child(s.not, path.child('not'), junctor);
  (s.allOf ?? []).forEach((x, i) => child(x, path.child('allOf').index(i), junctor));
  (s.oneOf ?? []).forEach((x, i) => child(x, path.child('oneOf').index(i), junctor));
  (s.anyOf ?? []).forEach((x, i) => child(x, path.child('anyOf').index(i), junctor));
  for (const [key, definition] of schemaEntries(s.definitions)) child(definition, path.child('definitions').key(key), junctor);

  // Old and new items pair up only in map lists: below any other list, transition rules cannot run.
  const itemsContext = (itemSchema: JSONSchemaProps): WalkContext => ({
    ...c,
    cel: childCelContext(c.cel, s, itemSchema),
    uncorrelatable: s['x-kubernetes-list-type'] === 'map' ? c.uncorrelatable : (c.uncorrelatable ?? path),
  });
  const items = itemsSchema(s);
  if (items) child(items, path.child('items'), itemsContext(items));
  itemsList(s).forEach((x, i) => child(x, path.child('items').index(i), itemsContext(x)));

  for (const [key, dependency] of Object.entries(s.dependencies ?? {})) {
    if (!Array.isArray(dependency) && isSet(dependency)) child(dependency, path.child('dependencies').key(key), junctor);
  }

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errors.push(invalid(path.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  errors.push(...listAndMapTypeRules(s, path, options));
  if (options.requireMapListKeysMapSetValidation) errors.push(...validateMapListKeysMapSet(s, path));
  errors.push(...validateValidationRuleFields(s, path));
  // Rules are compiled only where nothing here or below is wrong with the schema: an invalid schema
  // would give rule errors that go away once it is fixed.
  if ((s['x-kubernetes-validations'] ?? []).length && result.schema.length === 0 && c.ruleHolder && c.cel) {
    result.cel.push(...celRuleErrors(s, path, c.cel, c.uncorrelatable));
  }
  return result;
}

const typeMustBe = (s: JSONSchemaProps, path: FieldPath, type: string, detail: string): FieldError =>
  s.type ? invalid(path.child('type'), s.type, detail) : required(path.child('type'), detail);

// x-kubernetes-map-type, x-kubernetes-list-type and x-kubernetes-list-map-keys.
function listAndMapTypeRules(s: JSONSchemaProps, path: FieldPath, options: SchemaRuleOptions): FieldError[] {
  const errors: FieldError[] = [];
  const mapType = s['x-kubernetes-map-type'];
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = itemsSchema(s);

  if (isSet(mapType) && s.type !== 'object') errors.push(typeMustBe(s, path, 'object', 'must be object if x-kubernetes-map-type is specified'));
  if (isSet(mapType) && mapType !== 'atomic' && mapType !== 'granular') {
    errors.push(notSupported(path.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }

  if (isSet(listType) && s.type !== 'array') {
    errors.push(typeMustBe(s, path, 'array', 'must be array if x-kubernetes-list-type is specified'));
  } else if (options.requireAtomicSetType && listType === 'set' && items) {
    // A set's items are compared whole: they must be atomic themselves.
    const detail = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemListType = items['x-kubernetes-list-type'];
    if (items.type === 'array' && isSet(itemListType) && itemListType !== 'atomic') {
      errors.push(invalid(path.child('items').child('x-kubernetes-list-type'), itemListType, detail));
    }
    // Upstream reports the item's list type here, which is absent on an object.
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errors.push(invalid(path.child('items').child('x-kubernetes-map-type'), itemListType ?? null, detail));
    }
  }
  if (isSet(listType) && !['atomic', 'set', 'map'].includes(listType)) {
    errors.push(notSupported(path.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }

  if (mapKeys.length > 0) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (!isSet(listType)) errors.push(required(path.child('x-kubernetes-list-type'), detail));
    else if (listType !== 'map') errors.push(invalid(path.child('x-kubernetes-list-type'), listType, detail));
  }

  if (listType === 'map') {
    if (mapKeys.length === 0) errors.push(required(path.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (!isSet(s.items)) errors.push(required(path.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (isSet(s.items) && !items) errors.push(invalid(path.child('items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') {
      errors.push(invalid(path.child('items').child('type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === 'object') {
      const keysValue = new GoFormatted(goStringSlice(mapKeys));
      const seen = new Set<string>();
      for (const key of mapKeys) {
        const property = items.properties?.[key];
        if (property) {
          if (property.type === 'array' || property.type === 'object') {
            // Upstream reports the item's type ("object"), not the key's.
            const typePath = path.child('items').child('properties').key(key).child('type');
            errors.push(invalid(typePath, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errors.push(invalid(path.child('x-kubernetes-list-map-keys'), keysValue, 'entries must all be names of item properties'));
        }
        if (seen.has(key)) errors.push(invalid(path.child('x-kubernetes-list-map-keys'), keysValue, 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  return errors;
}

/** The items of a set or map list are never null, and a map list's keys are always there. */
export function validateMapListKeysMapSet(s: JSONSchemaProps, path: FieldPath): FieldError[] {
  const items = itemsSchema(s);
  const listType = s['x-kubernetes-list-type'];
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errors: FieldError[] = [];
  if (items.nullable) errors.push(forbidden(path.child('items').child('nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const requiredKeys = new Set(items.required ?? []);
    for (const key of s['x-kubernetes-list-map-keys'] ?? []) {
      const property = items.properties?.[key];
      if (!property) continue;
      const keyPath = path.child('items').child('properties').key(key);
      if (!requiredKeys.has(key) && !isSet(property.default)) {
        const detail = 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property';
        errors.push(required(keyPath.child('default'), detail));
      }
      if (property.nullable) errors.push(forbidden(keyPath.child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
  return errors;
}
