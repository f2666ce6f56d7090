// Defaulting of a v1 CustomResourceDefinition and its strategy's preparation of writes (upstream's
// v1 SetDefaults_* and registry/customresourcedefinition strategy). Pure functions, in place.
import { semanticEqual } from './crd-internal-view.js';
import type { CustomResourceDefinition, CustomResourceDefinitionStatus } from './types.js';

/**
 * v1's defaults: singular is the lower-case kind, listKind is kind + "List", conversion is None,
 * a conversion webhook's service port 443, and storedVersions (when empty) the storage version.
 */
export function setCustomResourceDefinitionDefaults(crd: CustomResourceDefinition): void {
  // Defaulting runs before validation: what is not shaped as it should be is left to validation.
  const spec = crd.spec;
  if (!isObject(spec)) return;
  const names = spec.names;
  if (isObject(names) && (names.kind === undefined || typeof names.kind === 'string')) {
    const kind = names.kind ?? '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind) names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const service = isObject(spec.conversion) ? spec.conversion.webhook?.clientConfig?.service : undefined;
  if (isObject(service) && (service.port === undefined || service.port === null)) service.port = 443;
  const status = crd.status;
  if (isObject(status) && !(Array.isArray(status.storedVersions) && status.storedVersions.length > 0)) {
    const storage = storageVersion(crd);
    if (storage) status.storedVersions = [storage];
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The name of the version marked as storage, if the versions are a list. */
function storageVersion(crd: CustomResourceDefinition): string | undefined {
  const versions: unknown = crd.spec?.versions;
  if (!Array.isArray(versions)) return undefined;
  const storage: unknown = versions.find((v: unknown) => isObject(v) && v.storage === true);
  return isObject(storage) && typeof storage.name === 'string' ? storage.name : undefined;
}

// Records the storage version among the stored ones (the storage version migration's input).
function recordStorageVersion(crd: CustomResourceDefinition, status: CustomResourceDefinitionStatus): void {
  const storage = storageVersion(crd);
  if (storage === undefined) return;
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (!stored.includes(storage)) status.storedVersions = [...stored, storage];
}

/** Create: the status is the server's (cleared, then the storage version stored), generation 1. */
export function prepareCustomResourceDefinitionForCreate(crd: CustomResourceDefinition): void {
  const status: CustomResourceDefinitionStatus = { acceptedNames: { plural: '', kind: '' } };
  recordStorageVersion(crd, status);
  crd.status = status;
  if (isObject(crd.metadata)) crd.metadata.generation = 1;
}

/**
 * Update: the status stays as stored (plus a new storage version), and the generation counts
 * changes of the spec.
 */
export function prepareCustomResourceDefinitionForUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): void {
  const status: CustomResourceDefinitionStatus = isObject(old.status) ? structuredClone(old.status) : { acceptedNames: { plural: '', kind: '' } };
  const generation = old.metadata.generation ?? 0;
  if (isObject(crd.metadata)) crd.metadata.generation = semanticEqual(old.spec, crd.spec) ? generation : generation + 1;
  recordStorageVersion(crd, status);
  crd.status = status;
}

/** The status subresource's update: the spec stays as stored (metadata is the store's to reset). */
export function prepareCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): void {
  crd.spec = structuredClone(old.spec);
}
