// The JSON types of a CRD's fields, as upstream's typed decoding requires them before any rule
// runs. The kind's schema is expected to refuse a wrongly typed field first; this check keeps the
// validation functions total (never a throw, never a loop) whatever body reaches them.
import { invalid, newPath, type FieldError, type FieldPath } from '@plat/apimachinery';

type Shape =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'any'
  | 'schema'
  | { list: Shape }
  | { map: Shape }
  | { fields: Record<string, Shape> }
  | { either: [Shape, Shape]; name: string };

const strings: Shape = { list: 'string' };

const schemaFields: Record<string, Shape> = {
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  type: 'string',
  format: 'string',
  title: 'string',
  default: 'any',
  maximum: 'number',
  exclusiveMaximum: 'boolean',
  minimum: 'number',
  exclusiveMinimum: 'boolean',
  maxLength: 'integer',
  minLength: 'integer',
  pattern: 'string',
  maxItems: 'integer',
  minItems: 'integer',
  uniqueItems: 'boolean',
  multipleOf: 'number',
  enum: { list: 'any' },
  maxProperties: 'integer',
  minProperties: 'integer',
  required: strings,
  items: { either: ['schema', { list: 'schema' }], name: 'object or array' },
  allOf: { list: 'schema' },
  oneOf: { list: 'schema' },
  anyOf: { list: 'schema' },
  not: 'schema',
  properties: { map: 'schema' },
  additionalProperties: { either: ['schema', 'boolean'], name: 'object or boolean' },
  patternProperties: { map: 'schema' },
  dependencies: { map: { either: ['schema', strings], name: 'object or array' } },
  additionalItems: { either: ['schema', 'boolean'], name: 'object or boolean' },
  definitions: { map: 'schema' },
  externalDocs: { fields: { description: 'string', url: 'string' } },
  example: 'any',
  nullable: 'boolean',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
  'x-kubernetes-embedded-resource': 'boolean',
  'x-kubernetes-int-or-string': 'boolean',
  'x-kubernetes-list-map-keys': strings,
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  'x-kubernetes-validations': {
    list: { fields: { rule: 'string', message: 'string', messageExpression: 'string', reason: 'string', fieldPath: 'string' } },
  },
};

const names: Shape = {
  fields: { plural: 'string', singular: 'string', shortNames: strings, kind: 'string', listKind: 'string', categories: strings },
};

const crdFields: Record<string, Shape> = {
  spec: {
    fields: {
      group: 'string',
      names,
      scope: 'string',
      versions: {
        list: {
          fields: {
            name: 'string',
            served: 'boolean',
            storage: 'boolean',
            deprecated: 'boolean',
            deprecationWarning: 'string',
            schema: { fields: { openAPIV3Schema: 'schema' } },
            subresources: {
              fields: {
                status: { fields: {} },
                scale: { fields: { specReplicasPath: 'string', statusReplicasPath: 'string', labelSelectorPath: 'string' } },
              },
            },
            additionalPrinterColumns: {
              list: { fields: { name: 'string', type: 'string', format: 'string', description: 'string', priority: 'integer', jsonPath: 'string' } },
            },
          },
        },
      },
      conversion: {
        fields: {
          strategy: 'string',
          webhook: {
            fields: {
              conversionReviewVersions: strings,
              clientConfig: {
                fields: {
                  url: 'string',
                  caBundle: 'string',
                  service: { fields: { namespace: 'string', name: 'string', path: 'string', port: 'integer' } },
                },
              },
            },
          },
        },
      },
      preserveUnknownFields: 'boolean',
    },
  },
  status: {
    fields: {
      conditions: { list: { fields: { type: 'string', status: 'string', lastTransitionTime: 'string', reason: 'string', message: 'string' } } },
      acceptedNames: names,
      storedVersions: strings,
    },
  },
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function matches(value: unknown, shape: Shape): boolean {
  if (typeof shape === 'string') {
    switch (shape) {
      case 'any':
        return true;
      case 'string':
      case 'boolean':
      case 'number':
        return typeof value === shape;
      case 'integer':
        return Number.isInteger(value);
      case 'schema':
        return isObject(value);
    }
  }
  if ('list' in shape) return Array.isArray(value);
  if ('either' in shape) return shape.either.some((s) => matches(value, s));
  return isObject(value);
}

function shapeName(shape: Shape): string {
  if (typeof shape === 'string') return shape === 'schema' ? 'object' : shape;
  if ('list' in shape) return 'array';
  if ('either' in shape) return shape.name;
  return 'object';
}

/** Where a value sits, kept as cheap links and made a FieldPath only for an error. */
interface Crumb {
  parent: Crumb | undefined;
  step: string | number;
  /** A map key (`[key]`) rather than a field name. */
  key?: boolean;
}

function pathOf(crumb: Crumb): FieldPath {
  const steps: Crumb[] = [];
  for (let c: Crumb | undefined = crumb; c; c = c.parent) steps.unshift(c);
  let path = newPath(String(steps[0]!.step));
  for (const c of steps.slice(1)) path = typeof c.step === 'number' ? path.index(c.step) : c.key ? path.key(c.step) : path.child(c.step);
  return path;
}

function check(value: unknown, shape: Shape, at: Crumb, errors: FieldError[]): void {
  if (value === null || value === undefined) return;
  if (!matches(value, shape)) {
    errors.push(invalid(pathOf(at), value, `must be of type ${shapeName(shape)}`));
    return;
  }
  if (typeof shape === 'string') {
    if (shape === 'schema') checkFields(value as Record<string, unknown>, schemaFields, at, errors);
    return;
  }
  if ('list' in shape) (value as unknown[]).forEach((item, i) => check(item, shape.list, { parent: at, step: i }, errors));
  else if ('map' in shape) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) check(item, shape.map, { parent: at, step: key, key: true }, errors);
  } else if ('either' in shape) check(value, shape.either.find((s) => matches(value, s))!, at, errors);
  else checkFields(value as Record<string, unknown>, shape.fields, at, errors);
}

// Walks the value's own keys (a few) rather than every field the type could have.
function checkFields(value: Record<string, unknown>, fields: Record<string, Shape>, at: Crumb | undefined, errors: FieldError[]): void {
  for (const key of Object.keys(value)) {
    const shape = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (shape) check(value[key], shape, { parent: at, step: key }, errors);
  }
}

/** Whether the value has the shape throughout: the cheap first pass, with no paths made. */
function conforms(value: unknown, shape: Shape): boolean {
  if (value === null || value === undefined) return true;
  if (!matches(value, shape)) return false;
  if (typeof shape === 'string') return shape !== 'schema' || fieldsConform(value as Record<string, unknown>, schemaFields);
  if ('list' in shape) return (value as unknown[]).every((item) => conforms(item, shape.list));
  if ('map' in shape) {
    for (const key in value as Record<string, unknown>) if (!conforms((value as Record<string, unknown>)[key], shape.map)) return false;
    return true;
  }
  if ('either' in shape) return conforms(value, shape.either.find((s) => matches(value, s))!);
  return fieldsConform(value as Record<string, unknown>, shape.fields);
}

function fieldsConform(value: Record<string, unknown>, fields: Record<string, Shape>): boolean {
  for (const key in value) {
    const shape = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (shape && !conforms(value[key], shape)) return false;
  }
  return true;
}

/** Fields of the CRD whose JSON type is not the one upstream's types have, each at its path. */
export function crdShapeErrors(crd: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObject(crd)) return [invalid(newPath('spec'), crd ?? null, 'must be of type object')];
  if (fieldsConform(crd, crdFields)) return errors;
  checkFields(crd, crdFields, undefined, errors);
  return errors;
}

function zeroOf(shape: Shape): unknown {
  if (typeof shape === 'string') {
    if (shape === 'string') return '';
    if (shape === 'boolean') return false;
    if (shape === 'number' || shape === 'integer') return 0;
    return shape === 'schema' ? {} : null;
  }
  if ('list' in shape) return [];
  if ('either' in shape) return zeroOf(shape.either[0]);
  return {};
}

function withZeros(value: unknown, shape: Shape): unknown {
  if (value === null || value === undefined || !matches(value, shape)) return value;
  if (typeof shape === 'string') return shape === 'schema' ? fieldsWithZeros(value as Record<string, unknown>, schemaFields) : value;
  // A null item of a list or value of a map decodes as its type's zero value.
  const item = (x: unknown, s: Shape): unknown => (x === null ? zeroOf(s) : withZeros(x, s));
  if ('list' in shape) return (value as unknown[]).map((x) => item(x, shape.list));
  if ('map' in shape) return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, x]) => [k, item(x, shape.map)]));
  if ('either' in shape) return withZeros(value, shape.either.find((s) => matches(value, s))!);
  return fieldsWithZeros(value as Record<string, unknown>, shape.fields);
}

function fieldsWithZeros(value: Record<string, unknown>, fields: Record<string, Shape>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const shape = Object.hasOwn(fields, key) ? fields[key] : undefined;
    out[key] = shape ? withZeros(value[key], shape) : value[key];
  }
  return out;
}

/**
 * A copy of a CRD whose shape is right (crdShapeErrors is empty) with the nulls inside its lists
 * and maps read as Go reads them: the zero value of the item's type ("", {}, ...).
 */
export function withNullItemsAsZero<T extends object>(crd: T): T {
  return hasNullInside(crd) ? (fieldsWithZeros(crd as Record<string, unknown>, crdFields) as T) : crd;
}

function hasNullInside(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => item === null || hasNullInside(item));
  for (const key in value as Record<string, unknown>) {
    const item = (value as Record<string, unknown>)[key];
    if (item === null || hasNullInside(item)) return true;
  }
  return false;
}
