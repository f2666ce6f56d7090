// FieldsV1: the JSON form of a FieldSet in managedFields. Each key is a path element; a leaf member
// is `{}`; a member that also has children carries `".": {}` (written first, as kube-apiserver does).
import { FieldSet } from './field-set.js';
import { canonicalElement, compareElements } from './path-element.js';

export type FieldsV1 = Record<string, unknown>;

/** The FieldsV1 object of a set, keys in upstream's order. */
export function encodeFieldsV1(set: FieldSet): FieldsV1 {
  return encodeChildren(set, false);
}

function encodeChildren(node: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  const children = node.children;
  if (!children || children.size === 0) return out;
  if (includeSelf) out['.'] = {};
  const keys = children.size === 1 ? [...children.keys()] : [...children.keys()].sort(compareElements);
  for (const pe of keys) {
    const child = children.get(pe)!;
    out[pe] = child.children && child.children.size > 0 ? encodeChildren(child, child.member) : {};
  }
  return out;
}

/**
 * The FieldSet a FieldsV1 object describes. Element types this version does not know are dropped
 * (as upstream); a malformed element throws.
 */
export function decodeFieldsV1(fieldsV1: unknown): FieldSet {
  const set = new FieldSet();
  if (fieldsV1 === null || fieldsV1 === undefined) return set;
  if (typeof fieldsV1 !== 'object' || Array.isArray(fieldsV1)) throw new Error('FieldsV1 must be a JSON object');
  readChildren(fieldsV1 as Record<string, unknown>, set);
  return set;
}

/** Fills `node` from `object`; returns whether `object` marks its own path as a member. */
function readChildren(object: Record<string, unknown>, node: FieldSet): boolean {
  let isMember = false;
  let any = false;
  for (const key in object) {
    if (!Object.prototype.hasOwnProperty.call(object, key)) continue;
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = canonicalElement(key);
    if (pe === undefined) continue;
    const value = object[key];
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new Error(`FieldsV1: the value of ${JSON.stringify(key)} must be an object`);
    }
    const child = node.descend(pe);
    const childMember = value === null ? true : readChildren(value as Record<string, unknown>, child);
    if (childMember) child.member = true;
    any = true;
  }
  // An object with no children (`{}`) is a leaf: its path is a member.
  return isMember || !any;
}
