// A CRD schema's default checked as upstream checks it (ValidateCustomResource with the default's
// path): the custom resources' OpenAPI validator (schema/openapi-validator.ts), its errors placed
// under the path of the `default` rather than at the root of an object.
import { FieldError, goQuote, invalid, required, type FieldPath } from '@plat/apimachinery';
import { badValue, canonicalJSON } from './schema/go-format.js';
import { validationIssues, type ValidationIssue } from './schema/openapi-validator.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

/** Checks a value against a schema; errors sit under `path` (e.g. `...properties[a].default`). */
export type SchemaValueValidator = (path: FieldPath, value: JsonValue, schema: JSONSchemaProps) => FieldError[];

/** Upstream's NotSupported list: the allowed values quoted, a non-string one as its JSON. */
const supportedValues = (values: readonly unknown[]): string =>
  `supported values: ${values.map((v) => goQuote(typeof v === 'string' ? v : v === null ? 'null' : canonicalJSON(v))).join(', ')}`;

// kube-openapi's error as upstream converts it, at `path` plus the error's own name.
function toFieldError(base: FieldPath, issue: ValidationIssue): FieldError {
  // A junctor's failure (anyOf, oneOf, allOf, not) is no Validation error: upstream puts it at the base.
  if (issue.code === 'composite') return invalid(base, '', issue.message);
  const name = issue.name.startsWith('.') ? issue.name.slice(1) : issue.name;
  const path = name && name !== '.' ? base.child(name) : base;
  const field = path.toString();
  const value = issue.value === undefined ? '' : badValue(issue.value);
  switch (issue.code) {
    case 'required':
      return required(path, '');
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

/** The value's problems against the schema, as upstream's ValidateCustomResource reports them. */
export const checkValueAgainstSchema: SchemaValueValidator = (path, value, schema) =>
  validationIssues(schema, value).map((issue) => toFieldError(path, issue));
