// Storage keys: <group>/<resource>/<namespace>/<name>, below the backend's prefix.

export interface KeyParts {
  /** API group; "" is the core (legacy) group, stored as "core". */
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

/**
 * The key of one object, or with no name the prefix (ending in "/") of a collection: a namespace's
 * objects when `namespace` is given, otherwise every object of the resource.
 */
export function objectKey({ group, resource, namespace, name }: KeyParts): string {
  const parts = [group || 'core', resource];
  if (namespace) parts.push(namespace);
  return name === undefined ? `/${parts.join('/')}/` : `/${parts.join('/')}/${name}`;
}
