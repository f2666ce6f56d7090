// The fields the status and scale subresources reach by a CRD's simple paths (`.spec.replicas`,
// `.status.labelSelector`): read and written as upstream's unstructured helpers do (NestedInt64,
// NestedString, SetNestedField), and the scale paths' checks of the custom resource strategy
// (ValidateScaleSpec, ValidateScaleStatus), with upstream's messages.
import { invalid, newPath, type FieldError } from '@plat/apimachinery';
import type { CustomResourceSubresourceScale } from '../types.js';
import { goPlain, goTypeName, isInt64 } from './go-format.js';

/** The field names of a simple path: `.spec.replicas` is ["spec", "replicas"] (the leading dot is optional). */
export function simplePathFields(path: string): string[] {
  return (path.startsWith('.') ? path.slice(1) : path).split('.');
}

const jsonPath = (fields: readonly string[]): string => `.${fields.join('.')}`;

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export interface PathValue {
  /** Whether the path leads to a field (it may hold null). */
  found: boolean;
  value: unknown;
  /** Why the path cannot be followed or the value is not of the wanted type (upstream's accessor error). */
  error?: string;
}

/** The value at `path` (upstream's NestedFieldNoCopy): not found where a field is missing or a parent is null. */
export function readPath(object: unknown, path: string): PathValue {
  const fields = simplePathFields(path);
  let value: unknown = object;
  for (const [index, field] of fields.entries()) {
    if (value === null || value === undefined) return { found: false, value: undefined };
    const parent = asObject(value);
    if (!parent) {
      const where = jsonPath(fields.slice(0, index + 1));
      return { found: false, value: undefined, error: `${where} accessor error: ${goPlain(value)} is of the type ${goTypeName(value)}, expected map[string]interface{}` };
    }
    if (!Object.hasOwn(parent, field)) return { found: false, value: undefined };
    value = parent[field];
  }
  return { found: true, value };
}

function typed(object: unknown, path: string, expected: 'int64' | 'string', accepts: (value: unknown) => boolean): PathValue {
  const read = readPath(object, path);
  if (!read.found || read.error) return read;
  if (accepts(read.value)) return read;
  const { value } = read;
  return { found: false, value: undefined, error: `${jsonPath(simplePathFields(path))} accessor error: ${goPlain(value)} is of the type ${goTypeName(value)}, expected ${expected}` };
}

/** The integer at `path` (upstream's NestedInt64). */
export const readInt64 = (object: unknown, path: string): PathValue => typed(object, path, 'int64', (value) => typeof value === 'number' && isInt64(value));

/** The string at `path` (upstream's NestedString). */
export const readString = (object: unknown, path: string): PathValue => typed(object, path, 'string', (value) => typeof value === 'string');

/**
 * Sets the field at `path` (upstream's SetNestedField), making the objects on the way; throws when a
 * field on the way holds something other than an object.
 */
export function writePath(object: Record<string, unknown>, path: string, value: unknown): void {
  const fields = simplePathFields(path);
  let parent = object;
  for (const [index, field] of fields.slice(0, -1).entries()) {
    const next = parent[field];
    if (next === undefined || next === null) {
      parent[field] = {};
    } else if (!asObject(next)) {
      throw new Error(`value cannot be set because ${jsonPath(fields.slice(0, index + 1))} is not a map[string]interface{}`);
    }
    parent = parent[field] as Record<string, unknown>;
  }
  parent[fields[fields.length - 1]!] = structuredClone(value);
}

const MAX_INT32 = 2 ** 31 - 1;

/** A replicas path's errors, reported at the path as the CRD gives it (`.spec.replicas`). */
function replicasErrors(object: unknown, path: string): FieldError[] {
  const read = readInt64(object, path);
  const at = newPath(path);
  if (read.error) return [invalid(at, 0, read.error)];
  const replicas = read.found ? (read.value as number) : 0;
  if (replicas < 0) return [invalid(at, replicas, 'should be a non-negative integer')];
  if (replicas > MAX_INT32) return [invalid(at, replicas, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** Upstream's ValidateScaleSpec: the spec replicas, if present, an integer within 0 and 2^31-1. */
export function validateScaleSpec(object: unknown, scale: CustomResourceSubresourceScale): FieldError[] {
  return replicasErrors(object, scale.specReplicasPath);
}

/** Upstream's ValidateScaleStatus: the status replicas as the spec's, and the label selector, if present, a string. */
export function validateScaleStatus(object: unknown, scale: CustomResourceSubresourceScale): FieldError[] {
  const errors = replicasErrors(object, scale.statusReplicasPath);
  if (scale.labelSelectorPath !== undefined) {
    const read = readString(object, scale.labelSelectorPath);
    if (read.error) errors.push(invalid(newPath(scale.labelSelectorPath), '', read.error));
  }
  return errors;
}
