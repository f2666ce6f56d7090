// What a request to the secured server asks, as an access review names it: every path is the node's
// `proxy` subresource, except /stats, /metrics, /logs and /spec, which are subresources of their
// own (the kubelet's mapping), so that reading metrics need not grant running commands.

export interface NodeRequestAttributes {
  verb: string;
  /** Always "nodes" in the core group, version v1. */
  resource: 'nodes';
  subresource: 'proxy' | 'stats' | 'metrics' | 'log' | 'spec';
  name: string;
  path: string;
}

const verbs: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** `path` is `prefix` or below it (`/logs/` covers `/logs` and `/logs/a`, not `/logsx`). */
export function isSubpath(path: string, prefix: string): boolean {
  const base = prefix.replace(/\/$/, '');
  return path === base || (path.startsWith(base) && path[base.length] === '/');
}

const subresources: [string, NodeRequestAttributes['subresource']][] = [
  ['/stats/', 'stats'],
  ['/metrics', 'metrics'],
  ['/logs/', 'log'],
  ['/spec/', 'spec'],
];

export function requestAttributes(method: string, path: string, nodeName: string): NodeRequestAttributes {
  const subresource = subresources.find(([prefix]) => isSubpath(path, prefix))?.[1] ?? 'proxy';
  // An unknown method gets no verb, which no rule grants.
  return { verb: verbs[method] ?? '', resource: 'nodes', subresource, name: nodeName, path };
}
