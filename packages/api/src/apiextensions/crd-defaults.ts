// Defaulting of a v1 CustomResourceDefinition and its strategy's preparation of writes (upstream's
// v1 SetDefaults_* and registry/customresourcedefinition strategy). Pure functions, in place.
import { semanticEqual } from './crd-internal-view.js';
import type { CustomResourceDefinition, CustomResourceDefinitionStatus } from './types.js';

/**
 * v1's defaults: singular is the lower-case kind, listKind is kind + "List", conversion is None,
 * a conversion webhook's service port 443, and storedVersions (when empty) the storage version.
 */
export function setCustomResourceDefinitionDefaults(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (spec.names) {
    if (!spec.names.singular) spec.names.singular = (spec.names.kind ?? '').toLowerCase();
    if (!spec.names.listKind && spec.names.kind) spec.names.listKind = `${spec.names.kind}List`;
  }
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && (service.port === undefined || service.port === null)) service.port = 443;
  if (crd.status && !crd.status.storedVersions?.length) {
    const storage = (spec.versions ?? []).find((v) => v.storage);
    if (storage) crd.status.storedVersions = [storage.name];
  }
}

// Records the storage version among the stored ones (the storage version migration's input).
function recordStorageVersion(crd: CustomResourceDefinition, status: CustomResourceDefinitionStatus): void {
  const storage = (crd.spec.versions ?? []).find((v) => v.storage);
  if (!storage) return;
  const stored = status.storedVersions ?? [];
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
}

/** Create: the status is the server's (cleared, then the storage version stored), generation 1. */
export function prepareCustomResourceDefinitionForCreate(crd: CustomResourceDefinition): void {
  const status: CustomResourceDefinitionStatus = { acceptedNames: { plural: '', kind: '' } };
  recordStorageVersion(crd, status);
  crd.status = status;
  crd.metadata.generation = 1;
}

/**
 * Update: the status stays as stored (plus a new storage version), and the generation counts
 * changes of the spec.
 */
export function prepareCustomResourceDefinitionForUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): void {
  const status: CustomResourceDefinitionStatus = structuredClone(old.status ?? { acceptedNames: { plural: '', kind: '' } });
  const generation = old.metadata.generation ?? 0;
  crd.metadata.generation = semanticEqual(old.spec, crd.spec) ? generation : generation + 1;
  recordStorageVersion(crd, status);
  crd.status = status;
}

/** The status subresource's update: the spec stays as stored (metadata is the store's to reset). */
export function prepareCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): void {
  crd.spec = structuredClone(old.spec);
}
