// Strategic merge patch: a merge patch whose lists merge as the schema's patch strategy says (maps by
// their merge key, scalars as sets), with the directives $patch, $retainKeys,
// $deleteFromPrimitiveList/<list> and $setElementOrder/<list>. After upstream's strategicpatch with
// MergeParallelList and IgnoreUnmatchedNulls, as kube-apiserver applies it.
import { deepCopy, deepEqual, hasKey, isObject, setKey } from './json.js';
import { PatchError } from './patch-error.js';
import { describeSchema, fieldSchema, type JSONSchema, type SchemaNode } from './schema-walker.js';

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

type JSONMap = Record<string, unknown>;

const badRequest = (message: string): PatchError => new PatchError('bad-request', message);
const errNoMergeKey = (m: JSONMap, key: string): PatchError => badRequest(`map: ${goMap(m)} does not contain declared merge key: ${key}`);
const errBadPrimitiveList = (): PatchError => badRequest('invalid patch format of primitive list');
const errBadRetainKeys = (): PatchError => badRequest('invalid patch format of retainKeys');
const errBadSetElementOrder = (): PatchError => badRequest('invalid patch format of setElementOrder list');

/** Go's %v of a map, as upstream's error messages print it (close enough for a message). */
function goMap(value: unknown): string {
  if (isObject(value)) {
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goMap(value[k])}`)
      .join(' ')}]`;
  }
  if (Array.isArray(value)) return `[${value.map(goMap).join(' ')}]`;
  return value === null ? '<nil>' : String(value);
}

/**
 * Applies a strategic merge patch to a copy of `document`, driven by `schema`'s
 * `x-kubernetes-patch-strategy` (`merge`, `replace`, `retainKeys`) and `x-kubernetes-patch-merge-key`.
 * Lists without the merge strategy are replaced, as upstream does for built-in kinds. Throws
 * PatchError for malformed patches and directives.
 */
export function applyStrategicMergePatch(document: unknown, patch: unknown, schema: JSONSchema): unknown {
  if (!isObject(patch)) throw badRequest('the strategic merge patch must be a JSON object');
  const original = isObject(document) ? deepCopy(document) : {};
  return mergeMap(original, deepCopy(patch), describeSchema(schema));
}

/** The patch strategy of a field without `retainKeys` (upstream's extractRetainKeysPatchStrategy). */
function strategyOf(node: SchemaNode): string {
  const strategies = node.patchStrategies;
  if (strategies.length === 0) return '';
  if (strategies.length === 1) return strategies[0] === 'retainKeys' ? '' : strategies[0]!;
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return strategies[1]!;
    if (strategies[1] === 'retainKeys') return strategies[0]!;
  }
  throw badRequest(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

const childNode = (node: SchemaNode, key: string): SchemaNode => describeSchema(fieldSchema(node, key));

function mergeMap(original: JSONMap, patch: JSONMap, node: SchemaNode): JSONMap {
  if (hasKey(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    if (directive === 'replace') {
      delete patch[directiveMarker];
      return patch;
    }
    if (directive === 'delete') return {};
    // Only replace and delete are directives on a map; upstream refuses `merge` too (it is the default).
    throw badRequest(`unknown patch type: ${String(directive)} in map: ${goMap(patch)}`);
  }
  applyRetainKeys(original, patch);
  mergeSetElementOrder(original, patch, node);

  for (const rawKey of Object.keys(patch)) {
    const patchV = patch[rawKey];
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(deleteFromPrimitiveListPrefix)) {
      key = extractKey(rawKey, deleteFromPrimitiveListPrefix);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[key];
      continue;
    }
    const child = childNode(node, key);
    if (!hasKey(original, key)) {
      if (!isDeleteList) setKey(original, key, fresh(patchV, child));
      continue;
    }
    const originalV = original[key];
    if (goType(originalV) !== goType(patchV)) {
      if (!isDeleteList) setKey(original, key, fresh(patchV, child));
      continue;
    }
    const strategy = strategyOf(child);
    if (isObject(originalV)) {
      setKey(original, key, strategy === 'replace' ? discardNulls(patchV) : mergeMap(originalV, patchV as JSONMap, child));
    } else if (Array.isArray(originalV)) {
      setKey(original, key, mergeSliceHandler(originalV, patchV as unknown[], child, strategy, isDeleteList));
    } else {
      setKey(original, key, patchV);
    }
  }
  return original;
}

/**
 * A patch value for a field the original lacks. Upstream stores it as is (nulls dropped), which can
 * leave directives in the object; we run it through the merge against nothing so they take effect.
 */
function fresh(patchV: unknown, node: SchemaNode): unknown {
  if (isObject(patchV)) return strategyOf(node) === 'replace' ? discardNulls(patchV) : mergeMap({}, patchV, node);
  if (Array.isArray(patchV) && strategyOf(node) === 'merge') return mergeSlice([], patchV, node, false);
  return discardNulls(patchV);
}

function discardNulls(value: unknown): unknown {
  if (isObject(value)) {
    for (const key of Object.keys(value)) {
      if (value[key] === null) delete value[key];
      else discardNulls(value[key]);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) discardNulls(item);
  }
  return value;
}

/** Go's dynamic type of a decoded JSON value, for upstream's "types differ: replace" rule. */
function goType(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (value === null) return 'nil';
  return typeof value === 'object' ? 'map' : typeof value;
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === deleteFromPrimitiveListPrefix ? errBadPrimitiveList() : errBadSetElementOrder();
  }
  return key.slice(slash + 1);
}

/** `$retainKeys`: drops the original's keys the list does not name; the patch may only set named keys. */
function applyRetainKeys(original: JSONMap, patch: JSONMap): void {
  if (!hasKey(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw errBadRetainKeys();
  const keep = new Set(retain.filter((k): k is string => typeof k === 'string'));
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
    if (!keep.has(key)) throw new PatchError('invalid', "patch content doesn't match retainKeys list");
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

/** `$setElementOrder/<list>`: merges that list now and orders it as the directive says. */
function mergeSetElementOrder(original: JSONMap, patch: JSONMap, node: SchemaNode): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(setElementOrderPrefix)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw badRequest(`expected []interface{}, but got ${goType(order)}`);
    const key = extractKey(directiveKey, setElementOrderPrefix);
    const foundOriginal = hasKey(original, key);
    const foundPatch = hasKey(patch, key);
    const originalList = foundOriginal ? original[key] : undefined;
    const patchList = foundPatch ? patch[key] : undefined;
    if (foundOriginal && !Array.isArray(originalList)) throw badRequest(`expected []interface{}, but got ${goType(originalList)}`);
    if (foundPatch && !Array.isArray(patchList)) throw badRequest(`expected []interface{}, but got ${goType(patchList)}`);
    const child = childNode(node, key);
    const strategy = strategyOf(child);
    const mergeKey = child.patchMergeKey ?? '';
    validatePatchWithSetOrderList((patchList as unknown[] | undefined) ?? [], order, mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList as unknown[];
    else if (!foundOriginal && foundPatch) merged = patchList as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList as unknown[], patchList as unknown[], child, strategy, false);
    else continue;

    const [patchItems, serverOnly] = partition(merged, order, mergeKey);
    const kind = elementKind((originalList as unknown[] | undefined) ?? [], (patchList as unknown[] | undefined) ?? []);
    original[key] = normalizeElementOrder(patchItems, serverOnly, order, (originalList as unknown[] | undefined) ?? [], mergeKey, kind);
    delete patch[key];
  }
}

function containsDirective(item: unknown): boolean {
  return isObject(item) && hasKey(item, directiveMarker);
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return deepEqual(left, right);
  if (!isObject(left) || !isObject(right)) throw badRequest('expected a map in a list with a merge key');
  if (!hasKey(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return deepEqual(left[mergeKey], right[mergeKey]);
}

/** Every (non-deleting) patch item appears in `$setElementOrder`, in the same relative order. */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    if (containsDirective(items[p])) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(items[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length) throw errBadSetElementOrder();
}

/** Splits `$patch: delete` items from the others. */
function extractToDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const remove: unknown[] = [];
  for (const item of list) {
    if (!isObject(item)) throw badRequest(`expected map[string]interface{}, but got ${goType(item)}`);
    if (item[directiveMarker] === 'delete') remove.push(item);
    else keep.push(item);
  }
  return [keep, remove];
}

function mergeSliceHandler(original: unknown[], patch: unknown[], node: SchemaNode, strategy: string, isDeleteList: boolean): unknown[] {
  // Delete lists are handled the same way whatever the field's strategy.
  if (strategy === 'merge' || isDeleteList) return mergeSlice(original, patch, node, isDeleteList);
  return discardNulls(patch) as unknown[];
}

/** The element kind of the lists: `map`, or `scalar`; refuses lists of lists and mixed lists. */
function elementKind(...lists: unknown[][]): 'map' | 'scalar' {
  let previous: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = goType(item);
      if (previous === undefined) {
        previous = type;
        if (type === 'slice') throw new PatchError('invalid', 'lists of lists are not supported');
      } else if (previous !== type) {
        throw badRequest(`list element types are not identical: ${goMap(lists)}`);
      }
    }
  }
  if (previous === undefined) throw badRequest('no elements in any of the given slices');
  return previous === 'map' ? 'map' : 'scalar';
}

function mergeSlice(original: unknown[], patch: unknown[], node: SchemaNode, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  const mergeKey = node.patchMergeKey ?? '';
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((item) => !patch.some((d) => deepEqual(d, item)));
    merged = dedupe([...original, ...patch]);
  } else {
    if (!mergeKey) throw badRequest('cannot merge lists without merge key');
    [original, patch] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements(original, patch, mergeKey, describeSchema(node.elements));
  }
  const [patchItems, serverOnly] = partition(merged, patch, kind === 'map' ? mergeKey : '');
  return normalizeElementOrder(patchItems, serverOnly, patch, original, kind === 'map' ? mergeKey : '', kind);
}

function dedupe(list: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const item of list) if (!out.some((seen) => deepEqual(seen, item))) out.push(item);
  return out;
}

/** `$patch` items of a map list: delete removes by key, replace keeps only the patch's items. */
function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  for (const item of patch) {
    const map = item as JSONMap;
    if (!hasKey(map, directiveMarker)) {
      plain.push(item);
      continue;
    }
    switch (map[directiveMarker]) {
      case 'delete':
        if (!hasKey(map, mergeKey)) throw errNoMergeKey(map, mergeKey);
        original = original.filter((o) => !(isObject(o) && hasKey(o, mergeKey) && deepEqual(o[mergeKey], map[mergeKey])));
        break;
      case 'replace':
        replace = true;
        break;
      case 'merge':
        throw badRequest('merging lists cannot yet be specified in the patch');
      default:
        throw badRequest(`unknown patch type: ${String(map[directiveMarker])} in map: ${goMap(map)}`);
    }
  }
  return replace ? [plain, []] : [original, plain];
}

function findByKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObject(item)) throw badRequest(`value for key ${i} is not a map.`);
    if (hasKey(item, mergeKey) && deepEqual(item[mergeKey], value)) return i;
  }
  return -1;
}

function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, elements: SchemaNode): unknown[] {
  const out = [...original];
  for (const item of patch) {
    const map = item as JSONMap;
    if (!hasKey(map, mergeKey)) throw errNoMergeKey(map, mergeKey);
    const at = findByKey(out, mergeKey, map[mergeKey]);
    if (at >= 0) out[at] = mergeMap(out[at] as JSONMap, map, elements);
    else out.push(isObject(map) ? mergeMap({}, map, elements) : map);
  }
  return out;
}

/** Splits `list` into items present in `by` (by merge key for maps) and the others. */
function partition(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const item of list) {
    let found: boolean;
    if (mergeKey) {
      if (!isObject(item)) throw badRequest(`expected map[string]interface{}, but got ${goType(item)}`);
      if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      found = findByKey(by, mergeKey, item[mergeKey]) >= 0;
    } else {
      found = by.some((b) => deepEqual(b, item));
    }
    (found ? inPatch : serverOnly).push(item);
  }
  return [inPatch, serverOnly];
}

function indexIn(order: unknown[], item: unknown, mergeKey: string, kind: 'map' | 'scalar'): number {
  if (kind === 'map') {
    if (!isObject(item)) return -1;
    for (let i = 0; i < order.length; i++) {
      const o = order[i];
      if (isObject(o) && hasKey(o, mergeKey) && deepEqual(o[mergeKey], item[mergeKey])) return i;
    }
    return -1;
  }
  return order.findIndex((o) => deepEqual(o, item));
}

/** Sorts `toSort` by its items' places in `order` (items not there keep their order, after the rest). */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: 'map' | 'scalar'): unknown[] {
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const item of [...toSort, ...order]) {
      if (!isObject(item)) throw badRequest(`expected map[string]interface{}, but got ${goType(item)}`);
      if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
    [toSort, toDelete] = extractToDeleteItems(toSort);
  }
  const decorated = toSort.map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey, kind) }));
  decorated.sort((a, b) => {
    if (a.at >= 0 && b.at >= 0) return a.at - b.at;
    if (a.at >= 0) return -1;
    if (b.at >= 0) return 1;
    return a.i - b.i;
  });
  return [...decorated.map((d) => d.item), ...toDelete];
}

/**
 * Upstream's normalizeElementOrder: the patch's items in the patch's order, the server-only items in
 * the live order, and the two interleaved so that each server-only item stays before the first
 * patch item that followed it in the live list.
 */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: 'map' | 'scalar',
): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
