// The shapes the client reads and writes: objects, lists, watch events, and the coordinates of a resource.
import type { KubeObject, ObjectMeta, Status } from '@plat/apimachinery';

export type { KubeObject, ObjectMeta, OwnerReference } from '@plat/apimachinery';

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One line of a watch stream. An ERROR event carries a Status instead of an object. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

/** Where a resource is served: /api/v1 for the core group, /apis/{group}/{version} otherwise. */
export interface ResourceRef {
  /** "" for the core group. */
  group: string;
  version: string;
  /** The plural, lower-case name in URLs. */
  resource: string;
  namespaced: boolean;
  kind?: string;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** "group/version", or "version" for the core group: an object's apiVersion. */
export const groupVersionString = (group: string, version: string): string => (group ? `${group}/${version}` : version);

/** {group, version} of an apiVersion. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The cache key of an object: "namespace/name", or "name" for a cluster-scoped one (client-go's MetaNamespaceKeyFunc). */
export function objectKey(object: { metadata: ObjectMeta }): string {
  const { namespace, name = '' } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}
