// A definition bound to the running server's API domain: the concrete group, the storage keys.
import type { GroupKind, GroupResource } from '@plat/apimachinery';
import { objectKey } from '@plat/storage';
import type { KubeObject, ResourceDefinition } from './definition.js';

export interface ResolvedResource<T extends KubeObject = KubeObject> {
  readonly definition: ResourceDefinition<T>;
  readonly group: string;
  readonly version: string;
  /** "v1" for the core group, else "<group>/<version>". */
  readonly apiVersion: string;
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
}

export const resolveGroup = (group: string, domain: string): string => group.replaceAll('{domain}', domain);

export function resolveResource<T extends KubeObject>(definition: ResourceDefinition<T>, domain: string): ResolvedResource<T> {
  const group = resolveGroup(definition.group, domain);
  const { version, kind, resource, namespaced } = definition;
  const scope = (namespace: string): string | undefined => (namespaced && namespace ? namespace : undefined);
  return {
    definition,
    group,
    version,
    apiVersion: group ? `${group}/${version}` : version,
    kind,
    listKind: definition.listKind ?? `${kind}List`,
    resource,
    namespaced,
    groupResource: { group, resource },
    groupKind: { group, kind },
    key: (namespace, name) => objectKey({ group, resource, ...(scope(namespace) && { namespace }), name }),
    prefix: (namespace) => objectKey({ group, resource, ...(scope(namespace) && { namespace }) }),
  };
}
