// A definition bound to the running server's API domain: the concrete group, the storage keys, and
// the kinds its subresources are served as.
import type { GroupKind, GroupResource } from '@plat/apimachinery';
import { objectKey } from '@plat/storage';
import type { JSONSchema, KubeObject, ResourceDefinition, SubresourceKind, Verb } from './definition.js';

export interface ResolvedResource<T extends KubeObject = KubeObject> {
  readonly definition: ResourceDefinition<T>;
  readonly group: string;
  readonly version: string;
  /** "v1" for the core group, else "<group>/<version>". */
  readonly apiVersion: string;
  /** The apiVersion its objects are stored with: its own, or that of the kind it is stored as. */
  readonly storedApiVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly groupResource: GroupResource;
  readonly groupKind: GroupKind;
  /** The storage key of one object. */
  key(namespace: string, name: string): string;
  /** The storage prefix of a namespace's objects, or of all of them when namespace is "". */
  prefix(namespace: string): string;
  /**
   * The subresources served as another kind (scale), each as that kind: what their requests are
   * decoded, patched, checked and answered as. These are never stored: the parent's store serves them.
   */
  readonly subresourceKinds: ReadonlyMap<string, ResolvedResource>;
}

export const resolveGroup = (group: string, domain: string): string => group.replaceAll('{domain}', domain);

export function resolveResource<T extends KubeObject>(definition: ResourceDefinition<T>, domain: string): ResolvedResource<T> {
  const group = resolveGroup(definition.group, domain);
  const { version, kind, resource, namespaced } = definition;
  const scope = (namespace: string): string | undefined => (namespaced && namespace ? namespace : undefined);
  // A kind stored as another lives at that kind's keys (the watch cache then holds one copy for both).
  const stored = definition.storedAs ? { group: resolveGroup(definition.storedAs.group, domain), resource: definition.storedAs.resource } : { group, resource };
  const storedVersion = definition.storedAs?.version ?? version;
  const subresourceKinds = new Map<string, ResolvedResource>();
  for (const [name, subresource] of Object.entries(definition.subresources ?? {})) {
    if (subresource.servedAs) subresourceKinds.set(name, resolveResource(subresourceKindDefinition(definition, subresource.servedAs, subresource.verbs), domain));
  }
  return {
    definition,
    group,
    version,
    apiVersion: group ? `${group}/${version}` : version,
    storedApiVersion: stored.group ? `${stored.group}/${storedVersion}` : storedVersion,
    kind,
    listKind: definition.listKind ?? `${kind}List`,
    resource,
    namespaced,
    groupResource: { group, resource },
    groupKind: { group, kind },
    key: (namespace, name) => objectKey({ ...stored, ...(scope(namespace) && { namespace }), name }),
    prefix: (namespace) => objectKey({ ...stored, ...(scope(namespace) && { namespace }) }),
    subresourceKinds,
  };
}

/** The verbs of a subresource that names none: upstream's status and scale verbs. */
export const DEFAULT_SUBRESOURCE_VERBS: readonly Verb[] = ['get', 'patch', 'update'];

/**
 * A subresource's kind as a definition of its own, at the parent's path and scope: its schema,
 * Protobuf form and columns are what decoding, patching and answering need. It has no rules of its
 * own (the parent's strategy judges what is stored) and is never given a store.
 */
function subresourceKindDefinition<T extends KubeObject>(
  parent: ResourceDefinition<T>,
  kind: SubresourceKind<T>,
  verbs: readonly Verb[] = DEFAULT_SUBRESOURCE_VERBS,
): ResourceDefinition {
  return {
    group: kind.group,
    version: kind.version,
    kind: kind.kind,
    resource: parent.resource,
    singularName: '',
    namespaced: parent.namespaced,
    verbs,
    schema: kind.schema,
    strategy: { validate: () => [], validateUpdate: () => [] },
    allowCreateOnUpdate: false,
    ...(kind.protobuf && { protobuf: kind.protobuf }),
    ...(kind.tableColumns && { tableColumns: kind.tableColumns }),
  };
}

/** An unstructured kind that names no schema for its fields: every object granular, every list atomic. */
const UNTYPED: JSONSchema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** The schema field ownership, apply and patches work by: an unstructured kind's own, else the kind's. */
export function fieldsSchemaOf<T extends KubeObject>(definition: ResourceDefinition<T>): JSONSchema {
  if (!definition.unstructured) return definition.schema;
  return definition.unstructured.fieldsSchema ?? UNTYPED;
}
