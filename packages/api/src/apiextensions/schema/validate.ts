// What upstream's custom resource strategy checks of an object against its version's schema: the
// OpenAPI validator's errors as field errors (apiextensions validation.go), the embedded resources
// and the list sets and maps. The store adds the rest: type meta, the root's ObjectMeta, the scale
// paths (scale.ts) and x-kubernetes-validations rules.
import { FieldError, goQuote } from '@plat/apimachinery';
import type { JSONSchemaProps } from '../types.js';
import { validateEmbeddedResources } from './embedded.js';
import { childOf, type OptionalPath } from './field-path.js';
import { badValue, canonicalJSON } from './go-format.js';
import { validateListSetsAndMaps } from './list-type.js';
import { validationIssues, type ValidationIssue } from './openapi-validator.js';

/**
 * The field a validator error is reported at: its name without the leading dot, under `base` (a
 * CRD default's path) when given; the root itself is `base`, or `<nil>` without one.
 */
function fieldOf(issue: ValidationIssue, base: OptionalPath): string {
  const name = issue.name && issue.name !== '.' ? issue.name.replace(/^\./, '') : '';
  return name ? childOf(base, name).toString() : (base?.toString() ?? '<nil>');
}

/** Upstream's NotSupported: the allowed values quoted, a non-string one as its JSON. */
function supportedValues(values: readonly unknown[]): string {
  return `supported values: ${values.map((value) => goQuote(typeof value === 'string' ? value : value === null ? 'null' : canonicalJSON(value))).join(', ')}`;
}

/** A validator error as upstream's field error, at `base` plus the error's name. */
export function issueToFieldError(issue: ValidationIssue, base?: OptionalPath): FieldError {
  const field = fieldOf(issue, base);
  const value = issue.value === undefined ? '' : badValue(issue.value);
  switch (issue.code) {
    case 'composite':
      return new FieldError('FieldValueInvalid', base?.toString() ?? '<nil>', '', issue.message);
    case 'required':
      return new FieldError('FieldValueRequired', field, '', '');
    case 'enum':
      return new FieldError('FieldValueNotSupported', field, badValue(issue.value), issue.values?.length ? supportedValues(issue.values) : '');
    case 'tooLong':
      return new FieldError('FieldValueTooLong', field, value, `may not be longer than ${issue.valid ?? -1}`);
    case 'maxItems':
    case 'tooManyProperties':
      return new FieldError('FieldValueTooMany', field, issue.value, `must have at most ${issue.valid ?? -1} items`);
    case 'invalidType':
      return new FieldError('FieldValueTypeInvalid', field, value, issue.message);
    default:
      return new FieldError('FieldValueInvalid', field, value, issue.message);
  }
}

/** The OpenAPI validator's errors for `value` against `schema`, as upstream converts them. */
function schemaErrors(schema: JSONSchemaProps, value: unknown): FieldError[] {
  return validationIssues(schema, value).map((issue) => issueToFieldError(issue));
}

/**
 * The errors of a custom resource against its version's `openAPIV3Schema` (as the CRD gives it, not
 * the structural schema): the OpenAPI validator's, then the embedded resources', then the list sets'
 * and maps'. Paths are upstream's (`spec.replicas`, `<nil>` for an anyOf/oneOf/allOf/not failure).
 */
export function validateCustomResource(schema: JSONSchemaProps, object: unknown): FieldError[] {
  return [...schemaErrors(schema, object), ...validateEmbeddedResources(schema, object), ...validateListSetsAndMaps(schema, object)];
}

/**
 * An update's errors: as validateCustomResource (1.28 has no ratcheting of schema errors), except that
 * duplicates in sets and map lists are reported only when the old object had none.
 */
export function validateCustomResourceUpdate(schema: JSONSchemaProps, object: unknown, old: unknown): FieldError[] {
  const lists = validateListSetsAndMaps(schema, old).length ? [] : validateListSetsAndMaps(schema, object);
  return [...schemaErrors(schema, object), ...validateEmbeddedResources(schema, object), ...lists];
}

/**
 * A status update's errors: the object's `status` (when it has one) against the schema's `status`
 * property, reported relative to the status as 1.28 reports them (`replicas`, not `status.replicas`),
 * then the list sets and maps of the whole object when the old object had none wrong. Embedded
 * resources are not checked here, as upstream's status strategy does not.
 */
export function validateCustomResourceStatus(schema: JSONSchemaProps, object: unknown, old: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const statusSchema = schema.properties?.status;
  const content = object !== null && typeof object === 'object' ? (object as Record<string, unknown>) : {};
  if (statusSchema && Object.hasOwn(content, 'status')) errors.push(...schemaErrors(statusSchema, content.status));
  const listErrors = validateListSetsAndMaps(schema, object);
  if (listErrors.length && !validateListSetsAndMaps(schema, old).length) errors.push(...listErrors);
  return errors;
}
