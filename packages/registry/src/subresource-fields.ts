// Field ownership through a subresource served as another kind (spec 4.11 with upstream's scale
// handler): a write records who owns what in the subresource kind's own fields, starting from the
// parent's entries turned into that kind's, and the result goes back to the parent's entries. Only
// the fields that stand for the parent's (SubresourceField) cross over; the rest belong to no one.
import {
  FieldSet,
  decodeManagedFields,
  encodeManagedFields,
  fieldElement,
  managerIdentifier,
  type FieldPath,
  type ManagedFieldsEntry,
  type ManagedMap,
  type ManagedSet,
} from '@plat/merge';
import type { SubresourceField } from './definition.js';

const pathOf = (fields: readonly string[]): FieldPath => fields.map(fieldElement);

/** Upstream keeps a stored object's entries as they are when they cannot be decoded; so do we. */
function decoded(entries: unknown): ManagedMap | undefined {
  try {
    return decodeManagedFields(entries);
  } catch {
    return undefined;
  }
}

/** The entry's identity apart from its apiVersion: how one manager's entry is found in the other kind. */
const identity = (m: ManagedSet): string => managerIdentifier(m.manager, m.operation, '', m.subresource);

/**
 * The parent's managedFields as the subresource kind's (upstream's ScaleHandler.ToSubresource): an
 * entry owning fields of the parent that the kind stands for becomes an entry, in the kind's
 * apiVersion, owning the kind's fields; entries owning none are left out.
 */
export function subresourceManagedFields(parentEntries: unknown, fields: readonly SubresourceField[], apiVersion: string): ManagedFieldsEntry[] {
  const parent = decoded(parentEntries);
  if (!parent) return [];
  const out: ManagedMap = new Map();
  for (const m of parent.values()) {
    const owned = fields.filter(({ parentField }) => m.set.has(pathOf(parentField))).map(({ field }) => pathOf(field));
    if (!owned.length) continue;
    const id = managerIdentifier(m.manager, m.operation, apiVersion, m.subresource);
    const set = FieldSet.of(...owned);
    const merged = out.get(id);
    out.set(id, { ...m, apiVersion, set: merged ? merged.set.union(set) : set, time: merged?.time ?? m.time });
  }
  return encodeManagedFields(out);
}

/**
 * The parent's managedFields after a write through the subresource (upstream's ToParent): the fields
 * the kind stands for are owned in the parent by exactly the managers that own them in the kind
 * after the write (`after`); every other field of the parent keeps its owners. A manager's fields go
 * to its entry in the parent's apiVersion, else to its entry that owned them before, else to a new
 * entry in the parent's apiVersion. An entry whose fields the write changed takes its new time.
 */
export function parentManagedFields(
  parentEntries: unknown,
  before: unknown,
  after: unknown,
  fields: readonly SubresourceField[],
  parentApiVersion: string,
): ManagedFieldsEntry[] | undefined {
  const parent = decoded(parentEntries);
  const was = decoded(before);
  const now = decoded(after);
  if (!parent || !was || !now) return undefined;
  const crossing = FieldSet.of(...fields.map(({ parentField }) => pathOf(parentField)));
  const out: ManagedMap = new Map();
  for (const [id, m] of parent) out.set(id, { ...m, set: m.set.difference(crossing) });
  const previous = new Map([...was.values()].map((m) => [identity(m), m]));
  for (const m of now.values()) {
    const owned = fields.filter(({ field }) => m.set.has(pathOf(field))).map(({ parentField }) => pathOf(parentField));
    if (!owned.length) continue;
    const set = FieldSet.of(...owned);
    const old = previous.get(identity(m));
    const changed = !old || old.time !== m.time || !old.set.equals(m.set);
    const current = managerIdentifier(m.manager, m.operation, parentApiVersion, m.subresource);
    const target =
      (out.has(current) ? current : undefined) ??
      [...parent].find(([, p]) => identity(p) === identity(m) && !p.set.intersection(set).isEmpty())?.[0];
    if (target) {
      const entry = out.get(target)!;
      out.set(target, { ...entry, set: entry.set.union(set), time: changed ? m.time : entry.time });
    } else {
      out.set(current, { ...m, apiVersion: parentApiVersion, set });
    }
  }
  return encodeManagedFields(out);
}
