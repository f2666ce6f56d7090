// Malformed requests, generated from a seed out of what the server's own discovery serves: broken
// paths and parameters, bodies with wrong types, extreme numbers, deep nesting, bad syntax, patches
// of every type with bad operations and directives, odd headers. A request that could change state
// either carries dryRun=All or is built to fail (a stale resourceVersion, a test operation that
// cannot hold, a precondition on a uid no object has), so that the stored objects must come out of
// any run unchanged.

/** A small seeded PRNG (mulberry32): the same seed gives the same requests. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

export interface ServedResource {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  prefix: string;
  group: string;
  version: string;
  kind: string;
  /** The plural name, with a subresource after a slash. */
  name: string;
  namespaced: boolean;
  verbs: string[];
}

/** Stored objects the requests may aim at, by resource name (`roles`), each with its namespace. */
export type Targets = Map<string, { namespace?: string; name: string; object: Record<string, unknown> }[]>;

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What the generator did, for a failure's report. */
  note: string;
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
const WEIRD_STRINGS = ['', ' ', '\u0000', '\ud800', '😀'.repeat(50), 'a'.repeat(70_000), '../../etc/passwd', '%00', '$(rm -rf /)', '<script>', '\n\r\t', '{"a":1}', 'x'.repeat(254), 'UPPER', '-leading', 'trailing-', 'a..b', '*'];
const WEIRD_NUMBERS = ['-1', '0', '1e30', '-1e30', '2147483648', '-2147483649', '9007199254740993', '123456789012345678901234567890', '1.5', '-0', '1e-400', '1e400', '0.1e1'];
const QUERY_VALUES: Record<string, string[]> = {
  resourceVersion: ['', '0', '1', '-1', 'abc', '99999999999999999999', '1e3', ' 5'],
  resourceVersionMatch: ['Exact', 'NotOlderThan', 'exact', 'Bogus', ''],
  limit: ['-1', '0', '1', 'abc', '1e10', '9999999999999999999'],
  continue: ['abc', '%%%', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiL3gifQ', 'eyJ2IjoiYm9ndXMifQ'],
  labelSelector: ['a=b', 'a in (b,c)', '!a', 'a!=', '=b', 'a in (', 'a==b==c', 'x'.repeat(300), '\u0000', 'a=b,c notin (d)'],
  fieldSelector: ['metadata.name=x', 'metadata.namespace!=y', 'spec.bogus=1', 'metadata.name', '==', 'metadata.name=x,'],
  timeoutSeconds: ['abc', '-1', '0', '1.5'],
  watch: ['true', 'maybe', '0', ''],
  allowWatchBookmarks: ['true', 'nope'],
  sendInitialEvents: ['true', 'false', 'maybe'],
  fieldManager: ['x', 'a'.repeat(200), 'bad\u0007char', ''],
  fieldValidation: ['Strict', 'Warn', 'Ignore', 'strict', 'Bogus'],
  propagationPolicy: ['Orphan', 'Foreground', 'Background', 'Bogus'],
  gracePeriodSeconds: ['-1', '0', 'abc', '30'],
  orphanDependents: ['true', 'maybe'],
  force: ['true', 'yes'],
  pretty: ['true', 'x'],
  includeObject: ['Object', 'None', 'Metadata', 'Bogus'],
};

/** A random JSON value of any shape, sometimes extreme. */
function randomValue(random: Random, depth = 0): unknown {
  switch (random.int(depth > 3 ? 4 : 7)) {
    case 0:
      return random.pick(WEIRD_STRINGS);
    case 1:
      return Number(random.pick(WEIRD_NUMBERS));
    case 2:
      return random.pick([true, false, null]);
    case 3:
      return random.pick(['v1', 'get', 'Pod', 'default', '250m', '1Gi', 'kube-system']);
    case 4:
      return Array.from({ length: random.int(4) }, () => randomValue(random, depth + 1));
    case 5:
      return Object.fromEntries(Array.from({ length: random.int(4) }, () => [random.pick(['a', 'name', 'kind', '__proto__', 'constructor', 'metadata', '$patch', 'x-y']), randomValue(random, depth + 1)]));
    default: {
      // Deep nesting, sometimes past the bound.
      let value: unknown = 1;
      for (let i = random.pick([10, 499, 700, 2500]); i > 0; i--) value = random.chance(0.5) ? [value] : { a: value };
      return value;
    }
  }
}

/** The paths (as key lists) of the nodes of a JSON value, not below 20 levels (where a deep value was put). */
function nodePaths(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (path.length >= 20) return out;
  if (Array.isArray(value)) value.forEach((item, index) => nodePaths(item, [...path, index], out));
  else if (value !== null && typeof value === 'object') for (const key of Object.keys(value).sort()) nodePaths((value as Record<string, unknown>)[key], [...path, key], out);
  return out;
}

function setAt(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === undefined && !Array.isArray(node)) delete node[last];
  else node[last] = value;
  return root;
}

/** An object broken in a few random places: values replaced, fields removed or added. */
function mutate(random: Random, object: Record<string, unknown>): unknown {
  let value: unknown = structuredClone(object);
  for (let i = 1 + random.int(3); i > 0; i--) {
    const paths = nodePaths(value);
    const path = random.pick(paths);
    const choice = random.int(4);
    if (choice === 0 && path.length) value = setAt(value, path, undefined);
    else if (choice === 1 && value && typeof value === 'object' && !Array.isArray(value)) (value as Record<string, unknown>)[random.pick(['bogus', 'spec', 'status', 'data', 'items'])] = randomValue(random);
    else value = setAt(value, path, randomValue(random));
  }
  return value;
}

/** The text of a body, sometimes broken on the way (cut short, keys duplicated, bytes of nothing). */
function serialize(random: Random, value: unknown): string {
  let text = JSON.stringify(value) ?? 'null';
  switch (random.int(10)) {
    case 0:
      return text.slice(0, random.int(text.length));
    case 1:
      return text.replace('{', '{"metadata":{"name":"dup"},');
    case 2:
      return random.pick(['', 'null', '[]', '"string"', '42', '{', '\u0000\u0001', '\uFEFF{}', '{"a":1}{"b":2}']);
    case 3:
      // Long literals a double cannot hold.
      text = text.replace(/"(resourceVersion|generation)":"?\d*"?/, `"$1":123456789012345678901234567890`);
      return text;
    default:
      return text;
  }
}

function randomQuery(random: Random, exclude: readonly string[]): string[] {
  const names = Object.keys(QUERY_VALUES).filter((name) => !exclude.includes(name));
  return Array.from({ length: random.int(3) }, () => {
    const name = random.pick(names);
    return `${name}=${encodeURIComponent(random.pick(QUERY_VALUES[name]!))}`;
  });
}

function collectionPath(resource: ServedResource, namespace: string | undefined): string {
  const [plural] = resource.name.split('/');
  return `${resource.prefix}${resource.namespaced && namespace ? `/namespaces/${namespace}` : ''}/${plural}`;
}

function objectPath(resource: ServedResource, namespace: string | undefined, name: string): string {
  const [, sub] = resource.name.split('/');
  return `${collectionPath(resource, namespace)}/${encodeSegment(name)}${sub ? `/${sub}` : ''}`;
}

/** A lone surrogate has no UTF-8: sent as the bytes of one (invalid UTF-8), which is the point. */
function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/** A JSON patch with random operations, behind one that cannot hold. */
function jsonPatch(random: Random, object: Record<string, unknown>, mustFail: boolean): unknown[] {
  const pointers = nodePaths(object).map((path) => `/${path.map((key) => String(key).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`);
  const ops = Array.from({ length: 1 + random.int(4) }, () => {
    const op = random.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']);
    const path = random.chance(0.8) ? random.pick(pointers) : random.pick(['', '/', '/-', '/metadata/-', '/a/b/c', '~2', '/__proto__/x']);
    return { op, path, from: random.pick(pointers), value: randomValue(random) };
  });
  return mustFail ? [{ op: 'test', path: '/metadata/uid', value: 'no-object-has-this-uid' }, ...ops] : ops;
}

/** A merge or strategic patch: part of the object, broken, with strategic directives mixed in. */
function mergePatch(random: Random, object: Record<string, unknown>, staleVersion: boolean): unknown {
  const patch = mutate(random, object) as Record<string, unknown>;
  if (patch && typeof patch === 'object' && !Array.isArray(patch)) {
    if (random.chance(0.3)) patch[random.pick(['$patch', '$retainKeys', '$setElementOrder/rules', '$deleteFromPrimitiveList/finalizers'])] = randomValue(random);
    if (staleVersion) {
      const metadata = (patch.metadata && typeof patch.metadata === 'object' && !Array.isArray(patch.metadata) ? patch.metadata : (patch.metadata = {})) as Record<string, unknown>;
      metadata.resourceVersion = '1';
    }
  }
  return patch;
}

/** One request; a write carries dryRun=All or is built to fail, at random. */
export function generateRequest(random: Random, resources: readonly ServedResource[], targets: Targets, namespace: string): FuzzRequest {
  const resource = random.pick(resources);
  const [plural, sub] = resource.name.split('/');
  const known = targets.get(plural!) ?? [];
  const target = known.length && random.chance(0.85) ? random.pick(known) : { namespace, name: random.pick(['missing', ...WEIRD_STRINGS.slice(0, 8)]), object: { metadata: { name: 'missing' } } };
  const ns = resource.namespaced ? (target.namespace ?? namespace) : undefined;
  const verb = random.pick(resource.verbs.length ? resource.verbs : ['get']);
  const headers: Record<string, string> = {};
  const query: string[] = [];
  let method = 'GET';
  let path = objectPath(resource, ns, target.name);
  let body: string | undefined;
  let note = `${verb} ${resource.group || 'core'}/${resource.version}/${resource.name}`;
  const dryRunOrFail = random.chance(0.5) ? 'dryRun' : 'fail';

  switch (verb) {
    case 'list':
    case 'watch':
      path = collectionPath(resource, random.chance(0.8) ? ns : undefined);
      // A negative timeout ends the watch at once, as upstream's (0 would be no timeout: the default spread).
      if (verb === 'watch') query.push('watch=1', 'timeoutSeconds=-1');
      query.push(...randomQuery(random, ['timeoutSeconds', 'watch', 'dryRun']));
      break;
    case 'get':
      query.push(...randomQuery(random, ['watch', 'timeoutSeconds']));
      break;
    case 'create': {
      method = 'POST';
      path = sub ? objectPath(resource, ns, target.name) : collectionPath(resource, ns);
      query.push('dryRun=All', ...randomQuery(random, ['dryRun']));
      body = serialize(random, mutate(random, { apiVersion: resource.group ? `${resource.group}/${resource.version}` : resource.version, kind: resource.kind, ...target.object }));
      headers['Content-Type'] = random.chance(0.1) ? random.pick(['application/yaml', 'text/plain', 'application/json; charset=bogus', 'application/vnd.kubernetes.protobuf']) : 'application/json';
      break;
    }
    case 'update': {
      method = 'PUT';
      const object = mutate(random, target.object) as Record<string, unknown>;
      if (dryRunOrFail === 'dryRun') query.push('dryRun=All');
      else if (object && typeof object === 'object' && !Array.isArray(object)) {
        const metadata = (object.metadata && typeof object.metadata === 'object' && !Array.isArray(object.metadata) ? object.metadata : (object.metadata = {})) as Record<string, unknown>;
        metadata.resourceVersion = '1';
      } else {
        query.push('dryRun=All');
      }
      query.push(...randomQuery(random, ['dryRun']));
      body = serialize(random, object);
      headers['Content-Type'] = 'application/json';
      note += ` (${query.includes('dryRun=All') ? 'dry run' : 'stale resourceVersion'})`;
      break;
    }
    case 'patch': {
      method = 'PATCH';
      const type = random.pick(PATCH_TYPES);
      headers['Content-Type'] = type;
      // An apply to an object that does not exist creates it whatever resourceVersion it names (as
      // upstream's, whose create-on-update never compares one): only a dry run leaves nothing behind.
      const fail = dryRunOrFail === 'fail' && !(type === 'application/apply-patch+yaml' && !known.includes(target));
      if (!fail) query.push('dryRun=All');
      if (type === 'application/apply-patch+yaml') {
        query.push(`fieldManager=fuzz`);
        const applied = mergePatch(random, { apiVersion: resource.group ? `${resource.group}/${resource.version}` : resource.version, kind: resource.kind, ...target.object }, fail);
        body = random.chance(0.5) ? serialize(random, applied) : yamlish(random, applied);
      } else if (type === 'application/json-patch+json') {
        body = serialize(random, jsonPatch(random, target.object, fail));
      } else {
        body = serialize(random, mergePatch(random, target.object, fail));
      }
      query.push(...randomQuery(random, ['dryRun', 'fieldManager']));
      note += ` ${type}${fail ? ' (built to fail)' : ' (dry run)'}`;
      break;
    }
    case 'delete': {
      method = 'DELETE';
      body = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: '00000000-0000-0000-0000-000000000000' }, ...(random.chance(0.3) && { propagationPolicy: random.pick(['Orphan', 'Bogus']) }) });
      // Only a dry run may lose its precondition to a broken body.
      if (dryRunOrFail === 'dryRun') {
        query.push('dryRun=All');
        if (random.chance(0.3)) body = serialize(random, JSON.parse(body));
      }
      headers['Content-Type'] = 'application/json';
      query.push(...randomQuery(random, ['dryRun']));
      break;
    }
    case 'deletecollection': {
      method = 'DELETE';
      path = collectionPath(resource, ns);
      query.push('dryRun=All', ...randomQuery(random, ['dryRun']));
      break;
    }
    default:
      break;
  }
  // Now and then the path itself is broken.
  if (random.chance(0.08)) {
    const parts = path.split('/');
    parts.splice(1 + random.int(parts.length - 1), random.int(2), random.pick(['%zz', '..', '', 'x'.repeat(300), '%E0%A4%A', 'namespaces', 'status', '%F0%9F%98%80']));
    path = parts.join('/');
    note += ' (path broken)';
    // A write on a broken path may land on another resource: keep it harmless.
    if (method !== 'GET' && !query.includes('dryRun=All')) query.push('dryRun=All');
  }
  if (random.chance(0.05)) headers.Accept = random.pick(['application/json;as=Table;v=v1;g=meta.k8s.io', 'application/yaml', 'text/html', '*/*;q=bogus', 'application/vnd.kubernetes.protobuf', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io']);
  if (random.chance(0.03)) headers['Impersonate-Group'] = 'system:masters';
  if (random.chance(0.02)) headers['Impersonate-User'] = random.pick(['', 'system:anonymous', 'nobody']);
  return { method, path: query.length ? `${path}?${query.join('&')}` : path, headers, ...(body !== undefined && { body }), note };
}

/** A YAML text of a value, with flow collections and now and then an alias. */
function yamlish(random: Random, value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  if (random.chance(0.3)) return `x: &a ${JSON.stringify(random.pick(WEIRD_STRINGS.slice(0, 6)))}\ny: [*a, *a, *a]\n${text.slice(1, -1).replace(/","/g, '",\n"')}`;
  return text;
}
