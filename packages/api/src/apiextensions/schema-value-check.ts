// A CRD schema's default checked as upstream checks it (ValidateCustomResource with the default's
// path): the custom resources' OpenAPI validator (schema/openapi-validator.ts), its errors placed
// under the path of the `default` rather than at the root of an object.
import type { FieldError, FieldPath } from '@plat/apimachinery';
import { validationIssues } from './schema/openapi-validator.js';
import { issueToFieldError } from './schema/validate.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

/** Checks a value against a schema; errors sit under `path` (e.g. `...properties[a].default`). */
export type SchemaValueValidator = (path: FieldPath, value: JsonValue, schema: JSONSchemaProps) => FieldError[];

/** The value's problems against the schema, as upstream's ValidateCustomResource reports them. */
export const checkValueAgainstSchema: SchemaValueValidator = (path, value, schema) =>
  validationIssues(schema, value).map((issue) => issueToFieldError(issue, path));
