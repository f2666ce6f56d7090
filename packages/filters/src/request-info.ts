// Request info: what a request URL addresses, computed once per request as kube-apiserver's
// RequestInfoFactory does, so that no router needs one route per resource.

export interface RequestInfo {
  /** True for /api/... and /apis/... paths that name a resource; false for /healthz, /version, ... */
  isResourceRequest: boolean;
  /** The decoded URL path. */
  path: string;
  /**
   * For resource requests: get, list, watch, create, update, patch, delete, deletecollection, proxy
   * (or '' for an unknown method). For other paths: the lowercased HTTP method.
   */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path segments from the resource on: resource/name/subresource/... */
  parts: string[];
}

const apiPrefixes = new Set(['api', 'apis']);
const grouplessApiPrefixes = new Set(['api']);
/** Verbs that may come first in the path (/api/v1/watch/pods), as upstream's deprecated forms. */
const specialVerbs = new Set(['proxy', 'watch']);
const specialVerbsNoSubresources = new Set(['proxy']);
/** What follows /namespaces/<name> when it is the namespace's own subresource, not a resource. */
const namespaceSubresources = new Set(['status', 'finalize']);

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

// Each segment is decoded on its own so that an escaped "/" cannot create a segment; an invalid
// escape is kept as written (such a name never matches a stored object).
function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (!trimmed) return [];
  return trimmed.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
}

// Go's strconv.ParseBool, which upstream's parameter codec uses for ?watch=.
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function isWatch(query: URLSearchParams): boolean {
  const values = query.getAll('watch');
  if (!values.length) return false;
  const parsed = parseBool(values[0]!);
  // On a value that does not parse upstream falls back to "anything but false or 0 is a watch".
  return parsed ?? !['false', '0'].includes(values[0]!.toLowerCase());
}

/** The name in a `metadata.name=<name>` term of a field selector, when it is a valid path segment. */
function nameFromFieldSelector(selector: string | null): string {
  if (!selector) return '';
  for (const term of selector.split(',')) {
    const match = /^\s*metadata\.name\s*==?(.*)$/.exec(term);
    if (!match) continue;
    const name = match[1]!.trim();
    if (name && name !== '.' && name !== '..' && !/[/%]/.test(name)) return name;
  }
  return '';
}

export function newRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts = splitPath(path);
  // /api/v1 and /apis/group/version are discovery documents, not resources.
  if (parts.length < 3 || !apiPrefixes.has(parts[0]!)) return info;
  const apiPrefix = parts[0]!;
  parts = parts.slice(1);
  let apiGroup = '';
  if (!grouplessApiPrefixes.has(apiPrefix)) {
    if (parts.length < 3) return info;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  info.isResourceRequest = true;
  info.apiPrefix = apiPrefix;
  info.apiGroup = apiGroup;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);

  if (specialVerbs.has(parts[0]!) && parts.length >= 2) {
    info.verb = parts[0]!;
    parts = parts.slice(1);
  } else {
    info.verb = methodVerbs[method.toUpperCase()] ?? '';
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      // /namespaces/<ns>/<resource>/...: what follows the namespace is a resource in its own right.
      if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;
  if (parts.length >= 3 && !specialVerbsNoSubresources.has(info.verb)) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;

  // A get without a name is a list or a watch of the collection.
  if (!info.name && info.verb === 'get') {
    info.verb = isWatch(query) ? 'watch' : 'list';
    info.name = nameFromFieldSelector(query.get('fieldSelector'));
  }
  if (!info.name && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
