// Server-side apply and the field ownership of updates (spec 4.11), after structured-merge-diff's
// Updater and the managers kube-apiserver stacks around it (strip meta, before-first-apply, caps).
import { StatusError, type Status } from '@plat/apimachinery';
import { FieldSet } from './fieldpath/field-set.js';
import { fieldElement, goJSON, pathString, type FieldPath } from './fieldpath/path-element.js';
import { deepCopy, deepEqual, isObject } from './json.js';
import {
  capUpdateManagers,
  decodeManagedFieldsOrEmpty,
  encodeManagedFields,
  isManagedFieldsReset,
  managerIdentifier,
  type ManagedFieldsEntry,
  type ManagedMap,
  type ManagedSet,
} from './managed-fields.js';
import { PatchError } from './patch-error.js';
import type { JSONSchema } from './schema-walker.js';
import { compareValues, mergeValues, pruneValue, reconcileWithSchema, toFieldSet, TypedError, withoutUndeclared, type Comparison } from './typed.js';

/** The manager that becomes the owner of an untracked object's fields when it is first applied to. */
export const beforeFirstApplyManager = 'before-first-apply';

/** The annotation kubectl's client-side apply keeps; synced by apply from manager "kubectl" (upstream's lastAppliedUpdater). */
export const lastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

export interface OwnershipOptions {
  manager: string;
  /** The apiVersion of the request (`v1`, `rbac.authorization.plat.io/v1`). */
  apiVersion: string;
  /** RFC 3339 time recorded on entries that change. */
  now: string;
  schema: JSONSchema;
  subresource?: string;
  /**
   * Fields the request may not set and nobody owns (upstream's reset fields). Default: `status`
   * for the main resource, `spec` for the status subresource.
   */
  ignoredFields?: FieldSet;
  /**
   * The kind's zero value, the "before" of a create and of before-first-apply. Upstream compares
   * against its typed empty object, where non-pointer structs are present as `{}` (a Namespace's
   * `spec`), so a create does not record `.` for them. Default `{}`.
   */
  emptyObject?: Record<string, unknown>;
}

export interface ApplyOptions extends OwnershipOptions {
  force: boolean;
  /** When given, the applied body must carry this kind (and `apiVersion`), as upstream's version check. */
  kind?: string;
  /** The client-side apply annotation kept in sync for manager "kubectl"; empty disables. */
  lastAppliedAnnotation?: string;
}

export interface ApplyResult {
  /** The merged object, without `metadata.managedFields`. */
  object: Record<string, unknown>;
  /** The new `metadata.managedFields` (empty: leave the field out). */
  managedFields: ManagedFieldsEntry[];
}

export interface ApplyConflict {
  /** The other manager's name. */
  manager: string;
  /** Upstream's path string: `.spec.replicas`, `.metadata.labels.app`, `.secrets[name="x"]`. */
  field: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource: string;
  /** How upstream names the manager: `"kubectl"`, `"kube-controller-manager" using v1`. */
  description: string;
}

/** An apply that would change fields other managers own; answered 409 Conflict with one cause per field. */
export class ApplyConflictError extends Error {
  override readonly name = 'ApplyConflictError';
  constructor(readonly conflicts: ApplyConflict[]) {
    super(conflictMessage(conflicts));
  }

  /** Upstream's NewApplyConflict: 409, reason Conflict, causes of type FieldManagerConflict. */
  toStatusError(): StatusError {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: 'Conflict',
      details: {
        causes: this.conflicts.map((c) => ({
          reason: 'FieldManagerConflict',
          message: `conflict with ${c.description}`,
          field: c.field,
        })),
      },
      code: 409,
    } satisfies Status;
    return new StatusError(status, { cause: this });
  }
}

function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${c.description}: ${c.field}`;
  }
  const lines: string[] = [];
  let current: string | undefined;
  for (const c of conflicts) {
    if (c.description !== current) {
      current = c.description;
      lines.push(`conflicts with ${c.description}:`);
    }
    lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** Upstream's printManager. */
function describeManager(m: ManagedSet): string {
  let out = JSON.stringify(m.manager);
  if (m.subresource) out += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') out += ` using ${m.apiVersion}`;
  return out;
}

// Fields never recorded as anyone's (upstream's stripMeta): the type, the object's identity and the
// server-maintained metadata. `.metadata` itself is dropped from the recorded sets separately.
const strippedLeaves: FieldPath[] = [
  ['f:apiVersion'],
  ['f:kind'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (name): FieldPath => ['f:metadata', fieldElement(name)],
  ),
];
const metadataNode = FieldSet.of(['f:metadata']);
const mainResourceReset = FieldSet.of(['f:status']);
const statusResourceReset = FieldSet.of(['f:spec']);
const ignoreCache = new WeakMap<FieldSet, FieldSet>();

function resetPaths(options: OwnershipOptions): FieldSet {
  return options.ignoredFields ?? (options.subresource === 'status' ? statusResourceReset : mainResourceReset);
}

function ignoredPaths(options: OwnershipOptions): FieldSet {
  const reset = resetPaths(options);
  let ignore = ignoreCache.get(reset);
  if (!ignore) {
    ignore = FieldSet.of(...strippedLeaves).union(reset);
    ignoreCache.set(reset, ignore);
  }
  return ignore;
}

/** The fields a set records: without ignored or stripped paths, nor the `.metadata` node itself. */
function recordable(set: FieldSet, ignore: FieldSet): FieldSet {
  return set.recursiveDifference(ignore).difference(metadataNode);
}

/** A shallow view of the object without `metadata.managedFields`. */
function withoutManagedFields(object: Record<string, unknown> | null): Record<string, unknown> {
  if (!object) return {};
  const metadata = object.metadata;
  if (!isObject(metadata) || !('managedFields' in metadata)) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}

/** Every entry fitted to the current schema (see reconcileWithSchema). Mutates `managed`. */
function reconcileManaged(managed: ManagedMap, schema: JSONSchema): ManagedMap {
  for (const [id, m] of managed) {
    const set = reconcileWithSchema(m.set, schema);
    if (set !== m.set) managed.set(id, { ...m, set });
  }
  return managed;
}

function uidOf(object: Record<string, unknown> | null): string {
  const metadata = object?.metadata;
  return isObject(metadata) && typeof metadata.uid === 'string' ? metadata.uid : '';
}

function isUnchanged(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}

/**
 * The ownership part of an update (upstream's Updater.update with the current operation as the
 * manager): fields the change touched leave every other entry, fields it removed leave every
 * entry, and the manager's entry gains what it added or modified. Mutates `managed`.
 */
function recordChange(
  managed: ManagedMap,
  live: Record<string, unknown>,
  updated: Record<string, unknown>,
  id: string,
  entry: Omit<ManagedSet, 'set' | 'time'>,
  options: OwnershipOptions,
): void {
  const ignore = ignoredPaths(options);
  const c = compareValues(live, updated, options.schema, ignore);
  if (isUnchanged(c)) return;
  const changed = c.modified.union(c.added);
  for (const [otherId, other] of managed) {
    const set = other.set.difference(changed).difference(c.removed);
    if (set.isEmpty()) managed.delete(otherId);
    else if (set !== other.set) managed.set(otherId, { ...other, set });
  }
  const own = recordable(changed.difference(c.removed), ignore);
  if (own.isEmpty()) return;
  const previous = managed.get(id);
  managed.set(id, {
    ...entry,
    set: previous ? own.union(previous.set) : own,
    time: options.now,
  });
}

/**
 * The managedFields after a PUT or a non-apply PATCH by `options.manager` (operation Update).
 * Managed fields come from `updated` when it carries valid ones (a client editing them), else from
 * `live`; `[{}]` in `updated` resets them first. Never conflicts. An existing object that has no
 * managedFields stays untracked (upstream's skipNonApplied), except right after a reset, where
 * the requester owns what the same request changed (spec 4.11.7).
 */
export function recordUpdate(live: object | null, updated: object, options: OwnershipOptions): ManagedFieldsEntry[] {
  const liveObject = (live as Record<string, unknown> | null) ?? null;
  const updatedObject = updated as Record<string, unknown>;
  const updatedMeta = isObject(updatedObject.metadata) ? updatedObject.metadata : {};
  const liveMeta = isObject(liveObject?.metadata) ? liveObject!.metadata : {};
  let managed: ManagedMap;
  let reset = false;
  if (options.subresource) {
    managed = decodeManagedFieldsOrEmpty(liveMeta.managedFields);
  } else if (isManagedFieldsReset(updatedMeta.managedFields)) {
    managed = new Map();
    reset = true;
  } else {
    managed = decodeManagedFieldsOrEmpty(updatedMeta.managedFields);
    if (managed.size === 0) managed = decodeManagedFieldsOrEmpty(liveMeta.managedFields);
  }
  if (managed.size === 0 && !reset && uidOf(liveObject) !== '') return [];
  reconcileManaged(managed, options.schema);

  const manager = options.manager || 'unknown';
  const subresource = options.subresource ?? '';
  const id = managerIdentifier(manager, 'Update', options.apiVersion, subresource);
  recordChange(
    managed,
    liveObject ? withoutManagedFields(liveObject) : (options.emptyObject ?? {}),
    withoutManagedFields(updatedObject),
    id,
    { manager, operation: 'Update', apiVersion: options.apiVersion, subresource },
    options,
  );
  capUpdateManagers(managed);
  return encodeManagedFields(managed);
}

/** The gvk string upstream prints: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const group = slash >= 0 ? av.slice(0, slash) : '';
  const version = slash >= 0 ? av.slice(slash + 1) : av;
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * Server-side apply of `applied` (the manager's whole intent) onto `live` (null: the object does
 * not exist yet). Returns the merged object and its managedFields; throws ApplyConflictError when
 * the intent changes fields other managers own and `force` is false, PatchError (`bad-request`)
 * for a body apply refuses (managedFields in it, a wrong kind, a map-list item without its key,
 * duplicate list items).
 */
export function apply(live: object | null, applied: object, options: ApplyOptions): ApplyResult {
  const liveObject = (live as Record<string, unknown> | null) ?? null;
  if (!isObject(applied)) throw new PatchError('bad-request', 'the apply body must be an object');
  const appliedMeta = applied.metadata;
  if (isObject(appliedMeta) && appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null) {
    throw new PatchError('bad-request', 'metadata.managedFields must be nil');
  }
  if (options.kind !== undefined && (applied.apiVersion !== options.apiVersion || applied.kind !== options.kind)) {
    throw new PatchError('bad-request', `invalid object type: ${gvkString(applied.apiVersion, applied.kind)}`);
  }
  const ignore = ignoredPaths(options);
  const manager = options.manager || 'unknown';
  const subresource = options.subresource ?? '';
  const liveMeta = isObject(liveObject?.metadata) ? liveObject!.metadata : {};
  const managed = reconcileManaged(decodeManagedFieldsOrEmpty(liveMeta.managedFields), options.schema);
  const current = withoutManagedFields(liveObject);

  // An object nobody tracks yet: its present fields become before-first-apply's.
  if (managed.size === 0) {
    const id = managerIdentifier(beforeFirstApplyManager, 'Update', options.apiVersion, subresource);
    recordChange(
      managed,
      options.emptyObject ?? {},
      current,
      id,
      { manager: beforeFirstApplyManager, operation: 'Update', apiVersion: options.apiVersion, subresource },
      options,
    );
  }

  const lastAppliedName = options.lastAppliedAnnotation ?? lastAppliedConfigAnnotation;
  let result: ApplyResult;
  try {
    result = applyOnce(current, applied, managed, manager, subresource, ignore, options, options.force);
  } catch (err) {
    if (!(err instanceof ApplyConflictError) || manager !== 'kubectl' || !lastAppliedName) throw err;
    // Upstream's lastAppliedManager: conflicts that only restate kubectl's client-side apply
    // (its last-applied annotation, where it still matches the object) are forced.
    const allowed = allowedByLastApplied(current, lastAppliedName, options);
    if (!allowed) throw err;
    const remaining = err.conflicts.filter((c) => !allowed.has(c.field));
    if (remaining.length > 0) throw new ApplyConflictError(remaining);
    result = applyOnce(current, applied, managed, manager, subresource, ignore, options, true);
  }
  if (manager === 'kubectl' && lastAppliedName) syncLastApplied(result.object, applied, lastAppliedName);
  return result;
}

function applyOnce(
  current: Record<string, unknown>,
  applied: Record<string, unknown>,
  managedIn: ManagedMap,
  manager: string,
  subresource: string,
  ignore: FieldSet,
  options: ApplyOptions,
  force: boolean,
): ApplyResult {
  const managed: ManagedMap = new Map(managedIn);
  let merged: Record<string, unknown>;
  let appliedSet: FieldSet;
  try {
    merged = mergeValues(current, applied, options.schema) as Record<string, unknown>;
    appliedSet = toFieldSet(applied, options.schema).recursiveDifference(resetPaths(options));
  } catch (err) {
    if (err instanceof TypedError) throw new PatchError('bad-request', err.message, { cause: err });
    throw err;
  }
  // What the applier records; prune still sees the identity fields (name, namespace) as applied,
  // as upstream strips them only after pruning.
  const configSet = recordable(appliedSet, ignore);
  const id = managerIdentifier(manager, 'Apply', options.apiVersion, subresource);
  const last = managed.get(id);
  const mine: ManagedSet = {
    manager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    subresource,
    time: last?.time,
    set: configSet,
  };
  managed.set(id, mine);

  // Fields this applier applied last time and no longer applies, and that nobody else owns, go.
  if (last && !last.set.isEmpty()) {
    let owned = appliedSet;
    for (const [otherId, m] of managed) if (otherId !== id) owned = owned.union(m.set);
    pruneValue(merged, options.schema, last.set, owned);
  }

  // Fields the schema does not declare are dropped when the result is decoded: they change nothing,
  // conflict with nobody and belong to no one.
  const decoded = withoutUndeclared(merged, options.schema);
  const c = compareValues(current, decoded, options.schema, ignore);
  const changed = c.modified.union(c.added);
  const conflicts: { id: string; other: ManagedSet; set: FieldSet }[] = [];
  if (!changed.isEmpty()) {
    for (const [otherId, other] of managed) {
      if (otherId === id) continue;
      const set = other.set.intersection(changed);
      if (!set.isEmpty()) conflicts.push({ id: otherId, other, set });
    }
  }
  if (conflicts.length > 0 && !force) {
    conflicts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    throw new ApplyConflictError(
      conflicts.flatMap(({ other, set }) =>
        set.paths().map((path) => ({
          manager: other.manager,
          field: pathString(path),
          operation: other.operation,
          apiVersion: other.apiVersion,
          subresource: other.subresource,
          description: describeManager(other),
        })),
      ),
    );
  }
  for (const { id: otherId, other, set } of conflicts) managed.set(otherId, { ...other, set: other.set.difference(set) });
  if (!c.removed.isEmpty()) {
    for (const [otherId, other] of managed) {
      if (otherId === id) continue;
      const set = other.set.difference(c.removed);
      if (set !== other.set) managed.set(otherId, { ...other, set });
    }
  }
  for (const [otherId, other] of managed) if (other.set.isEmpty()) managed.delete(otherId);

  // Upstream stamps the time when the object changed; a first entry gets one too (upstream 1.28
  // leaves a second applier of identical values without a time: kubernetes#127938).
  const objectChanged = !isUnchanged(c) || !deepEqual(current, decoded);
  if (managed.has(id) && (objectChanged || !last)) managed.set(id, { ...mine, time: options.now });

  return { object: merged, managedFields: encodeManagedFields(managed) };
}

/** The fields of kubectl's last-applied annotation that still match the live object, as path strings. */
function allowedByLastApplied(current: Record<string, unknown>, annotation: string, options: ApplyOptions): Set<string> | undefined {
  const metadata = current.metadata;
  const annotations = isObject(metadata) && isObject(metadata.annotations) ? metadata.annotations : undefined;
  const text = annotations?.[annotation];
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== options.apiVersion) return undefined;
  try {
    const set = toFieldSet(lastApplied, options.schema);
    const c = compareValues(lastApplied, current, options.schema);
    const kept = set.difference(c.modified).difference(c.added).difference(c.removed);
    return new Set(kept.paths().map(pathString));
  } catch {
    return undefined;
  }
}

/** Upstream's lastAppliedUpdater: the annotation, when present, becomes the applied body (without it). */
function syncLastApplied(object: Record<string, unknown>, applied: Record<string, unknown>, annotation: string): void {
  const metadata = object.metadata;
  if (!isObject(metadata) || !isObject(metadata.annotations)) return;
  const current = metadata.annotations[annotation];
  if (typeof current !== 'string' || current === '') return;
  const body = deepCopy(applied);
  const bodyMeta = body.metadata;
  if (isObject(bodyMeta) && isObject(bodyMeta.annotations)) {
    delete bodyMeta.annotations[annotation];
  }
  metadata.annotations[annotation] = goJSON(body) + '\n';
}
