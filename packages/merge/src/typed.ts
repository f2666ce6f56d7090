// Schema-driven operations on objects for server-side apply, after structured-merge-diff's typed
// package: the field set an object sets, the merge of an applied configuration into a live object,
// the comparison of two objects, and the removal of fields an applier gave up.
import { FieldSet } from './fieldpath/field-set.js';
import { fieldElement, keyElement, pathString, valueElement, type PathElement } from './fieldpath/path-element.js';
import { deepCopy, deepCopyWithoutNulls, deepEqual, hasKey, isObject, setKey } from './json.js';
import { describeSchema, fieldSchema, isNamedField, isUndeclaredField, untypedSchema, type JSONSchema, type SchemaNode } from './schema-walker.js';

/** A value that does not fit its schema the way apply needs (a map-list item without its key, a duplicate). */
export class TypedError extends Error {
  override readonly name = 'TypedError';
}

const untyped = (): SchemaNode => describeSchema(untypedSchema);

/** How a value is walked at a node: as a granular object, a granular list, or a leaf. */
function shape(node: SchemaNode, value: unknown): 'object' | 'list' | 'leaf' {
  if (node.atomic) return 'leaf';
  switch (node.kind) {
    case 'struct':
    case 'map':
    case 'untyped':
      return isObject(value) ? 'object' : 'leaf';
    case 'list':
      return Array.isArray(value) ? 'list' : 'leaf';
    default:
      return 'leaf';
  }
}

// Map-list items seen before (live items recur in merge, prune and compare); objects are not
// modified while they are walked.
const itemElements = new WeakMap<object, PathElement>();

/** The path element of a list item: `k:` for map lists, `v:` for sets. */
function itemElement(node: SchemaNode, item: unknown, index: number, path: readonly PathElement[]): PathElement {
  if (node.listType === 'map' && node.keys.length > 0) {
    const cached = isObject(item) ? itemElements.get(item) : undefined;
    if (cached !== undefined) return cached;
    if (!isObject(item)) {
      throw new TypedError(`${pathString(path)}: element ${index}: associative list with keys may not have non-map elements`);
    }
    const key: Record<string, unknown> = {};
    for (const name of node.keys) {
      if (!hasKey(item, name) || item[name] === null || item[name] === undefined) {
        // A key field the item leaves out stands at its schema's default (structured-merge-diff's
        // getAssociativeKeyDefault: a Service port's protocol is TCP).
        const fieldSchema = (node.elements.properties as Record<string, { default?: unknown }> | undefined)?.[name];
        if (fieldSchema && Object.hasOwn(fieldSchema, 'default')) {
          key[name] = fieldSchema.default;
          continue;
        }
        throw new TypedError(
          `${pathString(path)}: element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`,
        );
      }
      key[name] = item[name];
    }
    const pe = keyElement(key);
    itemElements.set(item, pe);
    return pe;
  }
  return valueElement(item);
}

// ---------------------------------------------------------------------------------------------
// Field sets

/** Every field the object sets, as upstream's ToFieldSet: leaves, list items, and map entries. */
export function toFieldSet(value: unknown, schema: JSONSchema): FieldSet {
  const root = new FieldSet();
  collect(value, describeSchema(schema), root, []);
  return root;
}

function collect(value: unknown, node: SchemaNode, out: FieldSet, path: PathElement[]): void {
  const form = shape(node, value);
  if (form === 'leaf') {
    out.member = true;
    return;
  }
  if (form === 'object') {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (!hasKey(object, key) || isUndeclaredField(node, key)) continue;
      const child = object[key];
      const pe = fieldElement(key);
      const childNode = out.descend(pe);
      path.push(pe);
      collect(child, node.kind === 'untyped' ? untyped() : describeSchema(fieldSchema(node, key)), childNode, path);
      path.pop();
      // Struct fields are implied by their children; map entries, nulls and empty objects are members.
      if (child === null || (isObject(child) && isEmptyObject(child)) || !isNamedField(node, key)) childNode.member = true;
      if (!childNode.member && !childNode.children?.size) out.children!.delete(pe);
    }
    return;
  }
  const list = value as unknown[];
  const elements = describeSchema(node.elements);
  for (let i = 0; i < list.length; i++) {
    const pe = itemElement(node, list[i], i, path);
    const childNode = out.descend(pe);
    path.push(pe);
    collect(list[i], elements, childNode, path);
    path.pop();
    childNode.member = true;
  }
}

function isEmptyObject(object: Record<string, unknown>): boolean {
  for (const key in object) if (hasKey(object, key)) return false;
  return true;
}

function isEmptyContainer(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isObject(value) && isEmptyObject(value);
}

// ---------------------------------------------------------------------------------------------
// Merge

/**
 * The applied configuration `rhs` merged into `lhs` (upstream's TypedValue.Merge): granular objects
 * merge key by key, map and set lists item by item (live order kept, applied items in the applied
 * order), anything atomic or scalar is taken from `rhs`. A null in `rhs` removes the field. The
 * result shares nothing with the inputs. Throws TypedError for duplicate items in `rhs`.
 */
export function mergeValues(lhs: unknown, rhs: unknown, schema: JSONSchema): unknown {
  return merge(lhs, rhs, describeSchema(schema), []);
}

function merge(lhs: unknown, rhs: unknown, node: SchemaNode, path: PathElement[]): unknown {
  if (lhs === undefined) {
    checkDuplicates(rhs, node, path);
    return deepCopyWithoutNulls(rhs);
  }
  const form = shape(node, rhs);
  if (form === 'object' && isObject(lhs) && node.kind !== 'list') {
    const l = lhs;
    const r = rhs as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key in l) {
      if (!hasKey(l, key)) continue;
      if (!hasKey(r, key)) {
        setKey(out, key, deepCopy(l[key]));
        continue;
      }
      if (r[key] === null) continue;
      const pe = fieldElement(key);
      path.push(pe);
      setKey(out, key, merge(l[key], r[key], node.kind === 'untyped' ? untyped() : describeSchema(fieldSchema(node, key)), path));
      path.pop();
    }
    for (const key in r) {
      if (!hasKey(r, key) || hasKey(l, key) || r[key] === null) continue;
      path.push(fieldElement(key));
      checkDuplicates(r[key], node.kind === 'untyped' ? untyped() : describeSchema(fieldSchema(node, key)), path);
      path.pop();
      setKey(out, key, deepCopyWithoutNulls(r[key]));
    }
    return out;
  }
  if (form === 'list' && Array.isArray(lhs)) {
    if (lhs.length === 0 && (rhs as unknown[]).length === 0) return [];
    return mergeList(lhs, rhs as unknown[], node, path);
  }
  checkDuplicates(rhs, node, path);
  return deepCopyWithoutNulls(rhs);
}

interface Indexed {
  pes: PathElement[];
  items: Map<PathElement, unknown>;
}

function indexList(list: unknown[], node: SchemaNode, path: PathElement[], strict: boolean): Indexed {
  const pes: PathElement[] = [];
  const items = new Map<PathElement, unknown>();
  for (let i = 0; i < list.length; i++) {
    let pe = itemElement(node, list[i], i, path);
    if (items.has(pe)) {
      if (strict) throw new TypedError(`${pathString(path)}: duplicate entries for key ${pathString([pe]).slice(0)}`);
      // A duplicate already stored in the live object is kept where it is, unmerged.
      pe = `#duplicate:${i}`;
    }
    items.set(pe, list[i]);
    pes.push(pe);
  }
  return { pes, items };
}

function mergeList(lhs: unknown[], rhs: unknown[], node: SchemaNode, path: PathElement[]): unknown[] {
  const left = indexList(lhs, node, path, false);
  const right = indexList(rhs, node, path, true);
  const elements = describeSchema(node.elements);
  const shared = right.pes.filter((pe) => left.items.has(pe));
  let sharedAt = 0;
  let nextShared: PathElement | undefined = shared[sharedAt++];
  const emitted = new Set<PathElement>();
  const out: unknown[] = [];
  const mergeItem = (pe: PathElement): void => {
    emitted.add(pe);
    path.push(pe);
    const item = merge(left.items.get(pe), right.items.get(pe), elements, path);
    path.pop();
    // The merged item keeps the applied item's key fields: remember its element.
    if (isObject(item) && node.listType === 'map') itemElements.set(item, pe);
    out.push(item);
  };
  let l = 0;
  let r = 0;
  // Upstream's order: live items keep their places, applied items follow the applied order, and
  // shared items are placed where the applied configuration puts them.
  while (l < left.pes.length || r < right.pes.length) {
    if (l < left.pes.length && r < right.pes.length) {
      const pe = left.pes[l]!;
      if (pe === right.pes[r]) {
        mergeItem(pe);
        l++;
        r++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (right.items.has(pe) && nextShared !== undefined && nextShared !== pe) {
        l++;
        continue;
      }
    }
    if (l < left.pes.length) {
      const pe = left.pes[l]!;
      if (!right.items.has(pe)) {
        out.push(deepCopy(left.items.get(pe)));
        l++;
        continue;
      }
      if (emitted.has(pe) || r >= right.pes.length) {
        if (!emitted.has(pe)) mergeItem(pe);
        l++;
        continue;
      }
    }
    if (r < right.pes.length) {
      const pe = right.pes[r]!;
      r++;
      if (emitted.has(pe)) continue;
      mergeItem(pe);
      if (nextShared === pe) nextShared = shared[sharedAt++];
    }
  }
  return out;
}

/** Rejects duplicate items in an applied list that is taken whole (no live counterpart). */
function checkDuplicates(value: unknown, node: SchemaNode, path: PathElement[]): void {
  const form = shape(node, value);
  if (form === 'list') {
    const { pes, items } = indexList(value as unknown[], node, path, true);
    const elements = describeSchema(node.elements);
    if (elements.kind === 'scalar') return;
    for (const pe of pes) {
      path.push(pe);
      checkDuplicates(items.get(pe), elements, path);
      path.pop();
    }
  } else if (form === 'object' && node.kind !== 'scalar') {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (!hasKey(object, key)) continue;
      const child = object[key];
      if (typeof child !== 'object' || child === null) continue;
      path.push(fieldElement(key));
      checkDuplicates(child, node.kind === 'untyped' ? untyped() : describeSchema(fieldSchema(node, key)), path);
      path.pop();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Compare

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `lhs` to `rhs` (upstream's TypedValue.Compare): leaves that were added,
 * modified or removed, and the list items and map entries that appeared or went away. Paths under
 * `ignore`'s members are skipped.
 */
export function compareValues(lhs: unknown, rhs: unknown, schema: JSONSchema, ignore?: FieldSet): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compare(lhs, rhs, describeSchema(schema), [], c, ignore);
  return c;
}

function compare(
  lhs: unknown,
  rhs: unknown,
  node: SchemaNode,
  path: PathElement[],
  c: Comparison,
  ignore: FieldSet | undefined,
): void {
  const present = rhs !== undefined ? rhs : lhs;
  const form = shape(node, present);
  const lForm = lhs === undefined ? form : shape(node, lhs);
  const rForm = rhs === undefined ? form : shape(node, rhs);
  const emptyLeaf =
    (lhs === undefined || isEmptyContainer(lhs)) && (rhs === undefined || isEmptyContainer(rhs));
  if (form === 'leaf' || lForm !== rForm || emptyLeaf) {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (form === 'object') {
    const l = (lhs ?? {}) as Record<string, unknown>;
    const r = (rhs ?? {}) as Record<string, unknown>;
    const visit = (key: string, lv: unknown, rv: unknown): void => {
      const pe = fieldElement(key);
      const skip = ignore?.child(pe);
      if (skip?.member) return;
      path.push(pe);
      compare(lv, rv, node.kind === 'untyped' ? untyped() : describeSchema(fieldSchema(node, key)), path, c, skip);
      path.pop();
    };
    for (const key in l) if (hasKey(l, key)) visit(key, l[key], hasKey(r, key) ? r[key] : undefined);
    for (const key in r) if (hasKey(r, key) && !hasKey(l, key)) visit(key, undefined, r[key]);
  } else {
    const left = indexList((lhs ?? []) as unknown[], node, path, false);
    const right = indexList((rhs ?? []) as unknown[], node, path, false);
    const elements = describeSchema(node.elements);
    for (const pe of left.pes) {
      path.push(pe);
      compare(left.items.get(pe), right.items.get(pe), elements, path, c, undefined);
      path.pop();
    }
    for (const pe of right.pes) {
      if (left.items.has(pe)) continue;
      path.push(pe);
      compare(undefined, right.items.get(pe), elements, path, c, undefined);
      path.pop();
    }
  }
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

// ---------------------------------------------------------------------------------------------
// Prune

/**
 * Removes from `merged` (in place) what the applier owned before (`last`) and owns no more, unless
 * some manager (`owned`: every manager's set, the applier's new one included) still owns it, as
 * upstream's prune with its add-back passes: a struct field counts as owned when anything under it
 * is. Containers emptied by the removal are removed too.
 */
export function pruneValue(merged: Record<string, unknown>, schema: JSONSchema, last: FieldSet, owned: FieldSet): void {
  prune(merged, describeSchema(schema), last, owned, false, false, []);
}

function inSet(node: FieldSet | undefined, named: boolean): boolean {
  return node !== undefined && (node.member || (named && node.children !== undefined && node.children.size > 0));
}

function prune(
  value: unknown,
  node: SchemaNode,
  last: FieldSet,
  owned: FieldSet | undefined,
  unownedAbove: boolean,
  inClosure: boolean,
  path: PathElement[],
): void {
  const form = shape(node, value);
  if (form === 'leaf' || !last.children) return;
  // Decides for one child; returns 'remove', 'descend' or 'keep'.
  const decide = (pe: PathElement, named: boolean, child: unknown, childNode: SchemaNode): boolean => {
    const lastChild = last.children!.get(pe);
    if (!lastChild) return false;
    const ownedChild = owned?.children?.get(pe);
    const wasOwned = inSet(lastChild, named);
    const stillOwned = inSet(ownedChild, named);
    const closure = inClosure || wasOwned;
    if (wasOwned && (!stillOwned || unownedAbove)) return true;
    if (lastChild.children && lastChild.children.size > 0 && (isObject(child) || Array.isArray(child))) {
      const before = isEmptyContainer(child);
      path.push(pe);
      prune(child, childNode, lastChild, ownedChild, unownedAbove || (closure && !stillOwned), closure, path);
      path.pop();
      if (!before && isEmptyContainer(child)) return true;
    }
    return false;
  };
  if (form === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const childNode = node.kind === 'untyped' ? untyped() : describeSchema(fieldSchema(node, key));
      if (decide(fieldElement(key), isNamedField(node, key), object[key], childNode)) delete object[key];
    }
    return;
  }
  const list = value as unknown[];
  const elements = describeSchema(node.elements);
  let write = 0;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    let pe: PathElement;
    try {
      pe = itemElement(node, item, i, path);
    } catch {
      list[write++] = item;
      continue;
    }
    if (!decide(pe, false, item, elements)) list[write++] = item;
  }
  list.length = write;
}

// ---------------------------------------------------------------------------------------------
// Schema changes

/**
 * A manager's set made to fit the current schema (upstream's ReconcileFieldSetWithSchema): paths
 * below what is now atomic become the atomic field itself, so the previous owners of its parts own
 * the whole (spec 4.11). A field that became granular stays owned as a whole, which conflicts with
 * nobody's changes to its parts. Returns the same set when nothing changed.
 */
export function reconcileWithSchema(set: FieldSet, schema: JSONSchema): FieldSet {
  return reconcile(set, describeSchema(schema)) ?? set;
}

function reconcile(node: FieldSet, schema: SchemaNode): FieldSet | undefined {
  if (!node.children || node.children.size === 0) return undefined;
  if (schema.atomic) {
    const leaf = new FieldSet();
    leaf.member = true;
    return leaf;
  }
  let changed: Map<PathElement, FieldSet> | undefined;
  for (const [pe, child] of node.children) {
    let childSchema: SchemaNode | undefined;
    if (pe.startsWith('f:') && (schema.kind === 'struct' || schema.kind === 'map')) childSchema = describeSchema(fieldSchema(schema, pe.slice(2)));
    else if ((pe.startsWith('k:') || pe.startsWith('v:') || pe.startsWith('i:')) && schema.kind === 'list') childSchema = describeSchema(schema.elements);
    if (!childSchema) continue;
    const replaced = reconcile(child, childSchema);
    if (replaced) (changed ??= new Map(node.children)).set(pe, replaced);
  }
  if (!changed) return undefined;
  const out = new FieldSet();
  out.member = node.member;
  out.children = changed;
  return out;
}

/** A copy of `value` without the fields its schema does not declare, as decoding it would leave it. */
export function withoutUndeclared(value: unknown, schema: JSONSchema): unknown {
  return strip(value, describeSchema(schema));
}

function strip(value: unknown, node: SchemaNode): unknown {
  if (Array.isArray(value)) {
    if (node.kind !== 'list') return value;
    const elements = describeSchema(node.elements);
    return value.map((item) => strip(item, elements));
  }
  if (!isObject(value) || (node.kind !== 'struct' && node.kind !== 'map')) return value;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!hasKey(value, key) || isUndeclaredField(node, key)) continue;
    out[key] = strip(value[key], describeSchema(fieldSchema(node, key)));
  }
  return out;
}
