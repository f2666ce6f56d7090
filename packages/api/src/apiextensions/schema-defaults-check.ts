// The defaults of a CRD schema must be values the schema accepts, already pruned (upstream's
// defaulting.ValidateDefaults), so that defaulting never produces an object that fails validation.
import { aggregateMessage, invalid, type FieldError, type FieldPath } from '@plat/apimachinery';
import { coerceEmbeddedMeta } from './embedded-object-meta.js';
import { validateEmbeddedResourcesAt } from './schema/embedded.js';
import { badValue } from './schema/go-format.js';
import { deepCopy, additionalPropertiesSchema, isJsonObject, isSet, itemsSchema, jsonEqual, metaFields, schemaEntries } from './schema-props.js';
import type { SchemaValueValidator } from './schema-value-check.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

const isEmbedded = (s: JSONSchemaProps, forced: boolean): boolean => forced || s['x-kubernetes-embedded-resource'] === true;

/**
 * Removes, in place, the object fields the schema does not specify (upstream's pruning), keeping
 * the type and object metadata of embedded resources (and of the root when `isResourceRoot`).
 */
export function prune(x: JsonValue, s: JSONSchemaProps | undefined, isResourceRoot: boolean): void {
  if (s && s['x-kubernetes-preserve-unknown-fields'] === true) {
    skipPrune(x, s, isResourceRoot);
    return;
  }
  if (Array.isArray(x)) {
    const items = s ? itemsSchema(s) : undefined;
    for (const item of x) prune(item, items, false);
    return;
  }
  if (!isJsonObject(x)) return;
  if (!s) {
    for (const key of Object.keys(x)) delete x[key];
    return;
  }
  const embedded = isEmbedded(s, isResourceRoot);
  for (const key of Object.keys(x)) {
    if (embedded && metaFields.has(key)) continue;
    const property = s.properties?.[key];
    // additionalProperties true or false leaves no schema: the values' own fields are pruned.
    if (property) prune(x[key]!, property, false);
    else if (isSet(s.additionalProperties)) prune(x[key]!, additionalPropertiesSchema(s), false);
    else delete x[key];
  }
}

function skipPrune(x: JsonValue, s: JSONSchemaProps | undefined, isResourceRoot: boolean): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (const item of x) skipPrune(item, itemsSchema(s), false);
    return;
  }
  if (!isJsonObject(x)) return;
  const embedded = isEmbedded(s, isResourceRoot);
  for (const key of Object.keys(x)) {
    if (embedded && metaFields.has(key)) continue;
    const property = s.properties?.[key];
    if (property) prune(x[key]!, property, false);
    else if (isSet(s.additionalProperties)) prune(x[key]!, additionalPropertiesSchema(s), false);
  }
}

/** How a default sits inside the object around it: under a field, or as a list's item. */
type Step = { field: string } | 'item';

/** The object with `value` at the end of `steps` (upstream's SurroundingObjectFunc). */
function surround(value: JsonValue, steps: readonly Step[]): JsonValue {
  return steps.reduceRight<JsonValue>((inner, step) => (step === 'item' ? [inner] : { [step.field]: inner }), value);
}

/** The value at the end of `steps` in `root`, or undefined (the accessor of a surrounding object). */
function valueAt(root: JsonValue, steps: readonly Step[]): JsonValue | undefined {
  let x: JsonValue | undefined = root;
  for (const step of steps) {
    if (step === 'item') x = Array.isArray(x) && x.length > 0 ? x[0] : undefined;
    else x = isJsonObject(x) && Object.hasOwn(x, step.field) ? x[step.field] : undefined;
    if (x === undefined) return undefined;
  }
  return x;
}

/**
 * The problems of the defaults in a CRD's root schema: each default must validate against its
 * schema, be pruned already (when `requirePruned`), and, inside a resource's type or object
 * metadata, make valid metadata. Defaults under additionalProperties are not checked (upstream
 * does not follow them either).
 */
export function validateSchemaDefaults(
  path: FieldPath,
  root: JSONSchemaProps,
  requirePruned: boolean,
  checkValue: SchemaValueValidator,
): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (p: FieldPath, s: JSONSchemaProps, resourceRoot: JSONSchemaProps, steps: Step[], insideMeta: boolean, forced: boolean): void => {
    const embedded = isEmbedded(s, forced);
    if (embedded) {
      insideMeta = false;
      steps = [];
      resourceRoot = forced ? { ...s, 'x-kubernetes-embedded-resource': true } : s;
    }
    if (isSet(s.default)) errors.push(...checkDefault(p.child('default'), s, s.default, resourceRoot, steps, insideMeta, embedded));
    const items = itemsSchema(s);
    if (items) walk(p.child('items'), items, resourceRoot, [...steps, 'item'], insideMeta, false);
    for (const [key, property] of schemaEntries(s.properties)) {
      const meta = insideMeta || (embedded && metaFields.has(key));
      walk(p.child('properties').key(key), property, resourceRoot, [...steps, { field: key }], meta, false);
    }
  };

  const checkDefault = (
    p: FieldPath,
    s: JSONSchemaProps,
    value: JsonValue,
    resourceRoot: JSONSchemaProps,
    steps: Step[],
    insideMeta: boolean,
    embedded: boolean,
  ): FieldError[] => {
    if (insideMeta) {
      // A default of metadata, apiVersion or kind is checked in the object it would land in.
      const object = surround(deepCopy(value), steps);
      if (isJsonObject(object)) {
        object.kind ??= 'Validation';
        object.apiVersion ??= 'validation/v1';
      }
      const coerceError = coerceEmbeddedMeta(undefined, object, resourceRoot, true);
      if (coerceError) return [invalid(p, badValue(value), `must result in valid metadata: ${coerceError.toString()}`)];
      const metaErrors = validateEmbeddedResourcesAt(undefined, object, resourceRoot, true);
      if (metaErrors.length) return [invalid(p, badValue(value), `must result in valid metadata: ${aggregateMessage(metaErrors)}`)];
      return checkValue(p, value, s);
    }
    const found: FieldError[] = [];
    if (requirePruned) {
      const pruned = deepCopy(value);
      prune(pruned, s, embedded);
      if (!jsonEqual(pruned, value)) found.push(invalid(p, badValue(value), 'must not have unknown fields'));
    }
    const coerced = deepCopy(value);
    const coerceError = coerceEmbeddedMeta(p, coerced, s, embedded);
    if (coerceError) return [...found, coerceError];
    const metaErrors = validateEmbeddedResourcesAt(p, coerced, s, embedded);
    if (metaErrors.length) return [...found, ...metaErrors];
    return [...found, ...checkValue(p, coerced, s)];
  };

  walk(path, root, root, [], false, true);
  return errors;
}

/**
 * Whether some default in the schema is not pruned (upstream's schemaHasUnprunedDefaults): then
 * an update may keep such defaults, as they were accepted before the rule.
 */
export function hasUnprunedDefaults(root: JSONSchemaProps): boolean {
  let found = false;
  const walk = (s: JSONSchemaProps, steps: Step[]): void => {
    if (found) return;
    if (isSet(s.default)) {
      const object = surround(deepCopy(s.default), steps);
      // The root's own default must be an object; otherwise upstream gives up and says no.
      if (!isJsonObject(object)) return;
      coerceEmbeddedMeta(undefined, object, root, true);
      prune(object, root, true);
      const after = valueAt(object, steps);
      if (after === undefined || !jsonEqual(after, s.default)) {
        found = true;
        return;
      }
    }
    const additional = additionalPropertiesSchema(s);
    if (additional) walk(additional, [...steps, { field: '*' }]);
    const items = itemsSchema(s);
    if (items) walk(items, [...steps, 'item']);
    for (const [key, property] of schemaEntries(s.properties)) walk(property, [...steps, { field: key }]);
  };
  walk(root, []);
  return found;
}
