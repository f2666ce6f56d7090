// managedFields entries: decoding them into field sets keyed by manager identity, and encoding them
// back in upstream's form and order.
import { decodeFieldsV1, encodeFieldsV1 } from './fieldpath/fields-v1.js';
import { FieldSet } from './fieldpath/field-set.js';
import { isObject } from './json.js';

export type ManagedFieldsOperation = 'Apply' | 'Update';

/** One entry of `metadata.managedFields`, with upstream's field order. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** A manager's fields while they are worked on. */
export interface ManagedSet {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  subresource: string;
  time: string | undefined;
  set: FieldSet;
}

/** Manager identity → fields; the identity is upstream's BuildManagerIdentifier. */
export type ManagedMap = Map<string, ManagedSet>;

/**
 * Upstream's manager identifier: the entry without time and fields, and for appliers without the
 * apiVersion, as JSON. Entries merge when their identifiers are equal.
 */
export function managerIdentifier(manager: string, operation: ManagedFieldsOperation, apiVersion: string, subresource: string): string {
  // Every write asks for its manager's identifier: the few there are are kept.
  const key = `${manager}\u0000${operation}\u0000${apiVersion}\u0000${subresource}`;
  let identifier = identifiers.get(key);
  if (identifier === undefined) {
    const id: Record<string, string> = { manager, operation };
    if (operation === 'Update' && apiVersion) id.apiVersion = apiVersion;
    if (subresource) id.subresource = subresource;
    identifier = JSON.stringify(id);
    if (identifiers.size >= MAX_KEPT_IDENTIFIERS) identifiers.clear();
    identifiers.set(key, identifier);
  }
  return identifier;
}

/** Managers are few in practice; a client inventing a new one per request must not grow this without bound. */
const MAX_KEPT_IDENTIFIERS = 1000;
const identifiers = new Map<string, string>();

export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

/** Upstream's DecodeManagedFields; throws ManagedFieldsError for an entry it would refuse. */
export function decodeManagedFields(entries: unknown): ManagedMap {
  const out: ManagedMap = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((entry, i) => {
    if (!isObject(entry)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const operation = entry.operation;
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    const apiVersion = typeof entry.apiVersion === 'string' ? entry.apiVersion : '';
    if (apiVersion.length < 1) throw new ManagedFieldsError('apiVersion must not be empty');
    const fieldsType = typeof entry.fieldsType === 'string' ? entry.fieldsType : '';
    if (fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const manager = typeof entry.manager === 'string' ? entry.manager : '';
    const subresource = typeof entry.subresource === 'string' ? entry.subresource : '';
    let set: FieldSet;
    try {
      set = decodeFieldsV1(entry.fieldsV1 ?? {});
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set from entry ${i}: ${(err as Error).message}`);
    }
    out.set(managerIdentifier(manager, operation, apiVersion, subresource), {
      manager,
      operation,
      apiVersion,
      subresource,
      time: typeof entry.time === 'string' ? entry.time : undefined,
      set,
    });
  });
  return out;
}

/** Decodes, answering an empty map for entries upstream could not decode (its emptyManagedFieldsOnErr). */
export function decodeManagedFieldsOrEmpty(entries: unknown): ManagedMap {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

const seconds = (time: string | undefined): number => {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/** Upstream's encodeManagedFields: entries with non-empty sets, sorted as sortEncodedManagedFields. */
export function encodeManagedFields(managed: ManagedMap): ManagedFieldsEntry[] {
  const entries: { entry: ManagedFieldsEntry; seconds: number }[] = [];
  for (const m of managed.values()) {
    if (m.set.isEmpty()) continue;
    // Always re-encoded: entries a client wrote come back in upstream's canonical form.
    const fieldsV1 = encodeFieldsV1(m.set);
    const entry: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion } as ManagedFieldsEntry;
    if (m.time !== undefined) entry.time = m.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = fieldsV1;
    if (m.subresource) entry.subresource = m.subresource;
    entries.push({ entry, seconds: 0 });
  }
  // Times are parsed only to order several entries (a create has one).
  if (entries.length > 1) for (const e of entries) e.seconds = seconds(e.entry.time);
  entries.sort((p, q) => {
    if (p.entry.operation !== q.entry.operation) return p.entry.operation < q.entry.operation ? -1 : 1;
    if (p.seconds !== q.seconds) return p.seconds - q.seconds;
    if (p.entry.manager !== q.entry.manager) return p.entry.manager < q.entry.manager ? -1 : 1;
    if (p.entry.apiVersion !== q.entry.apiVersion) return p.entry.apiVersion < q.entry.apiVersion ? -1 : 1;
    const ps = p.entry.subresource ?? '';
    const qs = q.entry.subresource ?? '';
    return ps < qs ? -1 : ps > qs ? 1 : 0;
  });
  return entries.map((e) => e.entry);
}

/** Upstream's DefaultMaxUpdateManagers. */
export const maxUpdateManagers = 10;

/**
 * Upstream's capManagersManager: past ten Update entries, the oldest are merged, per apiVersion,
 * into an "ancient-changes" entry.
 */
export function capUpdateManagers(managed: ManagedMap, max = maxUpdateManagers): void {
  const updaters = [...managed.entries()].filter(([, m]) => m.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const d = seconds(managed.get(a)!.time) - seconds(managed.get(b)!.time);
    return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
  });
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const m = managed.get(id)!;
    const bucketId = managerIdentifier('ancient-changes', 'Update', m.apiVersion, '');
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, id);
      continue;
    }
    let bucket = managed.get(bucketId);
    if (!bucket) {
      const firstSet = managed.get(first)!;
      managed.delete(first);
      bucket = { ...firstSet, manager: 'ancient-changes', operation: 'Update', subresource: '' };
      managed.set(bucketId, bucket);
    }
    managed.set(bucketId, { ...bucket, set: m.set.union(bucket.set), apiVersion: m.apiVersion, time: m.time });
    managed.delete(id);
    length--;
  }
}

/** True for exactly `[{}]`: the value that asks the server to drop every managedFields entry (spec 4.11). */
export function isManagedFieldsReset(managedFields: unknown): boolean {
  return (
    Array.isArray(managedFields) &&
    managedFields.length === 1 &&
    isObject(managedFields[0]) &&
    Object.keys(managedFields[0]).length === 0
  );
}

export { encodeFieldsV1, decodeFieldsV1 };
