// Structural schemas (upstream's pkg/apiserver/schema): every field a custom resource may hold is
// typed outside the logical junctors (allOf, anyOf, oneOf, not), which may only add value
// checks; metadata may only restrict name and generateName. A CRD's schemas must be structural.
import { forbidden, invalid, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import { goRegexpError } from './go-regexp-syntax.js';
import { hasEntries, isSet, itemsList, itemsSchema, additionalPropertiesSchema, schemaEntries } from './schema-props.js';
import type { JSONSchemaProps } from './types.js';

/**
 * Why the schema cannot be read as a structural schema at all (upstream's NewStructural error),
 * or undefined. Validation reports the same problems more precisely; this shows only without them.
 */
export function structuralConversionError(s: JSONSchemaProps): string | undefined {
  const unsupported = unsupportedFieldError(s);
  if (unsupported) return unsupported;
  for (const junctor of [s.not, ...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    if (isSet(junctor)) {
      const error = structuralConversionError(junctor);
      if (error) return error;
    }
  }
  const additional = additionalPropertiesSchema(s);
  if (additional) {
    const error = structuralConversionError(additional);
    if (error) return error;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  if (itemsList(s).length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const items = itemsSchema(s);
  if (items) {
    const error = structuralConversionError(items);
    if (error) return error;
  }
  for (const [, property] of schemaEntries(s.properties)) {
    const error = structuralConversionError(property);
    if (error) return error;
  }
  return undefined;
}

function unsupportedFieldError(s: JSONSchemaProps): string | undefined {
  if (s.id) return "OpenAPIV3Schema 'id' is not supported";
  if (s.$schema) return "OpenAPIV3Schema 'schema' is not supported";
  if (s.$ref) return "OpenAPIV3Schema '$ref' is not supported";
  if (hasEntries(s.patternProperties)) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (hasEntries(s.dependencies)) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (isSet(s.additionalItems)) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (hasEntries(s.definitions)) return "OpenAPIV3Schema 'definitions' is not supported";
  return undefined;
}

// Which fields a structural schema holds, and when Go holds each as its zero value: strings when
// empty, booleans when false, pointers when absent, and the junctor lists and properties (rebuilt
// on conversion) when empty, while `required` and the list extensions keep an empty list as set.
const zeroWhenEmptyString = ['description', 'type', 'title', 'format', 'pattern'] as const;
const zeroWhenFalse = [
  'nullable',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
] as const;
const zeroWhenAbsent = [
  'default',
  'additionalProperties',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'multipleOf',
  'maxProperties',
  'minProperties',
  'required',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
  'not',
  'items',
] as const;
const zeroWhenEmptyList = ['enum', 'allOf', 'oneOf', 'anyOf'] as const;

type StructuralField = (typeof zeroWhenEmptyString | typeof zeroWhenFalse | typeof zeroWhenAbsent | typeof zeroWhenEmptyList)[number] | 'properties';

/** The structural fields of `s` that Go would hold as something other than their zero value. */
function setStructuralFields(s: JSONSchemaProps, nested: boolean): StructuralField[] {
  const set: StructuralField[] = [];
  for (const key of zeroWhenEmptyString) if (s[key]) set.push(key);
  for (const key of zeroWhenFalse) if (s[key] === true) set.push(key);
  for (const key of zeroWhenAbsent) if (isSet(s[key])) set.push(key);
  for (const key of zeroWhenEmptyList) if ((s[key] ?? []).length > 0) set.push(key);
  // A nested value validation keeps an empty properties map; a structural schema drops it.
  if (isSet(s.properties) && (nested || Object.keys(s.properties).length > 0)) set.push('properties');
  return set;
}

const isOnlyType = (s: JSONSchemaProps, type: string): boolean => {
  const set = setStructuralFields(s, true);
  return s.type === type && set.length === 1;
};

// The two int-or-string forms a schema may spell out: anyOf [integer, string], alone or as allOf's first.
const isIntOrStringAnyOf = (anyOf: JSONSchemaProps[] | null | undefined): boolean =>
  (anyOf ?? []).length === 2 && isOnlyType(anyOf![0]!, 'integer') && isOnlyType(anyOf![1]!, 'string');

type Level = 'root' | 'item' | 'field';

const emptyTypeMessages: Record<Level, string> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/**
 * The structural-schema errors of a schema that converts (structuralConversionError is
 * undefined), sorted by their text as upstream sorts them.
 */
export function validateStructural(path: FieldPath, s: JSONSchemaProps): FieldError[] {
  const errors = [...structuralInvariants(s, 'root', path), ...valueValidationCompleteness(s, s, path, path)];
  const text = (e: FieldError): string => e.toString();
  return errors.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

function structuralInvariants(s: JSONSchemaProps, level: Level, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const items = itemsSchema(s);
  if (s.type === 'array' && !items) errors.push(required(path.child('items'), 'must be specified'));
  if (items) errors.push(...structuralInvariants(items, 'item', path.child('items')));
  for (const [key, property] of schemaEntries(s.properties)) {
    errors.push(...structuralInvariants(property, 'field', path.child('properties').key(key)));
  }

  if (isSet(s.additionalProperties)) {
    if (level === 'root') errors.push(forbidden(path.child('additionalProperties'), 'must not be used at the root'));
    const additional = additionalPropertiesSchema(s);
    if (additional) errors.push(...structuralInvariants(additional, 'field', path.child('additionalProperties')));
  }

  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserveUnknown = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserveUnknown) {
    errors.push(invalid(path.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    errors.push(invalid(path.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }

  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = (s.allOf ?? []).length >= 1 && isIntOrStringAnyOf(s.allOf![0]!.anyOf);
  errors.push(...valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, level, path));

  const checkMetadata = level === 'root' || embedded;
  const type = s.type ?? '';
  if (embedded && type !== 'object') {
    if (!type) errors.push(required(path.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errors.push(invalid(path.child('type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!type && !intOrString && !preserveUnknown) {
    errors.push(required(path.child('type'), emptyTypeMessages[level]));
  }
  if (embedded && isSet(s.additionalProperties)) {
    errors.push(forbidden(path.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (level === 'root' && type && type !== 'object') errors.push(invalid(path.child('type'), type, 'must be object at the root'));

  const properties = s.properties ?? {};
  for (const typeField of ['kind', 'apiVersion'] as const) {
    const field = properties[typeField];
    if (field && checkMetadata && field.type !== 'string') {
      errors.push(invalid(path.child('properties').key(typeField).child('type'), field.type ?? '', 'must be string'));
    }
  }
  const metadata = properties.metadata;
  if (metadata) errors.push(...metadataInvariants(metadata, checkMetadata, level, path.child('properties').key('metadata')));

  if (embedded && !preserveUnknown && !hasEntries(s.properties)) {
    errors.push(
      required(path.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    );
  }
  return errors;
}

// A resource's metadata is the server's ObjectMeta: a schema may only narrow name and generateName.
function metadataInvariants(s: JSONSchemaProps, checkMetadata: boolean, level: Level, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errors.push(invalid(path.child('type'), s.type ?? '', 'must be object'));
  if (level === 'root') {
    const names = Object.keys(s.properties ?? {});
    const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
    const rest = setStructuralFields(s, false).filter(
      (key) => key !== 'type' && key !== 'default' && !(key === 'properties' && onlyNames),
    );
    if (rest.length > 0) {
      errors.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  return errors;
}

function valueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, level: Level, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!skipAnyOf) (s.anyOf ?? []).forEach((v, i) => errors.push(...nestedValueValidation(v, false, level, path.child('anyOf').index(i))));
  (s.allOf ?? []).forEach((v, i) =>
    errors.push(...nestedValueValidation(v, skipFirstAllOfAnyOf && i === 0, level, path.child('allOf').index(i))),
  );
  (s.oneOf ?? []).forEach((v, i) => errors.push(...nestedValueValidation(v, false, level, path.child('oneOf').index(i))));
  if (isSet(s.not)) errors.push(...nestedValueValidation(s.not, false, level, path.child('not')));
  if (s.pattern) {
    const problem = goRegexpError(s.pattern);
    if (problem) errors.push(invalid(path.child('pattern'), s.pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  return errors;
}

// Inside a junctor: value checks only, nothing that would type or shape a field.
function nestedValueValidation(v: JSONSchemaProps, skipAnyOf: boolean, level: Level, path: FieldPath): FieldError[] {
  const errors = valueValidation(v, skipAnyOf, false, level, path);
  const items = itemsSchema(v);
  if (items) errors.push(...nestedValueValidation(items, false, level, path.child('items')));
  for (const [key, property] of schemaEntries(v.properties)) {
    errors.push(...nestedValueValidation(property, false, 'field', path.child('properties').key(key)));
  }
  const mustBe = (key: string, detail: string): void => void errors.push(forbidden(path.child(key), detail));
  if (v.type) mustBe('type', 'must be empty to be structural');
  if (isSet(v.additionalProperties)) mustBe('additionalProperties', 'must be undefined to be structural');
  if (isSet(v.default)) mustBe('default', 'must be undefined to be structural');
  if (v.title) mustBe('title', 'must be empty to be structural');
  if (v.description) mustBe('description', 'must be empty to be structural');
  if (v.nullable === true) mustBe('nullable', 'must be false to be structural');
  if (v['x-kubernetes-preserve-unknown-fields'] === true) mustBe('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (v['x-kubernetes-embedded-resource'] === true) mustBe('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (v['x-kubernetes-int-or-string'] === true) mustBe('x-kubernetes-int-or-string', 'must be false to be structural');
  if ((v['x-kubernetes-list-map-keys'] ?? []).length > 0) mustBe('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (isSet(v['x-kubernetes-list-type'])) mustBe('x-kubernetes-list-type', 'must be undefined to be structural');
  if (isSet(v['x-kubernetes-map-type'])) mustBe('x-kubernetes-map-type', 'must be undefined to be structural');
  if ((v['x-kubernetes-validations'] ?? []).length > 0) mustBe('x-kubernetes-validations', 'must be empty to be structural');
  if (v.properties && Object.hasOwn(v.properties, 'metadata')) {
    errors.push(forbidden(path.child('properties').key('metadata'), 'must not be specified in a nested context'));
  }
  return errors;
}

// Every field or item a junctor speaks of must also be specified in the structural part.
function valueValidationCompleteness(v: JSONSchemaProps, s: JSONSchemaProps, sPath: FieldPath, vPath: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (isSet(v.not)) errors.push(...nestedCompleteness(v.not, s, sPath, vPath.child('not')));
  (v.allOf ?? []).forEach((x, i) => errors.push(...nestedCompleteness(x, s, sPath, vPath.child('allOf').index(i))));
  (v.anyOf ?? []).forEach((x, i) => errors.push(...nestedCompleteness(x, s, sPath, vPath.child('anyOf').index(i))));
  (v.oneOf ?? []).forEach((x, i) => errors.push(...nestedCompleteness(x, s, sPath, vPath.child('oneOf').index(i))));
  return errors;
}

function nestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: FieldPath, vPath: FieldPath): FieldError[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath.toString()}`)];
  const errors = valueValidationCompleteness(v, s, sPath, vPath);
  const items = itemsSchema(v);
  if (items) errors.push(...nestedCompleteness(items, itemsSchema(s), sPath.child('items'), vPath.child('items')));
  for (const [key, property] of schemaEntries(v.properties)) {
    const structural = s.properties?.[key];
    const sChild = sPath.child('properties').key(key);
    const vChild = vPath.child('properties').key(key);
    if (!structural) errors.push(required(sChild, `because it is defined in ${vChild.toString()}`));
    else errors.push(...nestedCompleteness(property, structural, sChild, vChild));
  }
  return errors;
}

/** Whether the schema is not structural (upstream's schemaIsNonStructural), for update ratcheting. */
export function isNonStructural(s: JSONSchemaProps | null | undefined, path: FieldPath): boolean {
  if (!isSet(s)) return false;
  return structuralConversionError(s) !== undefined || validateStructural(path, s).length > 0;
}
