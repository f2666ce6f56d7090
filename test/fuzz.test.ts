// Random malformed requests (test/support/fuzz.ts) against a replica on each backend: no 5xx but the
// documented 504 for a resourceVersion the store has not reached, the process alive, and the stored
// objects unchanged. FUZZ_SEED repeats a run, FUZZ_REQUESTS sets its length.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { adminTokenFile, startApiserver, type ApiserverProcess, type Response } from './support/apiserver-process.js';
import { Random, generateRequest, type FuzzRequest, type ServedResource, type Targets } from './support/fuzz.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const CONCURRENCY = 8;
const NS = 'fuzz';

interface Json {
  [field: string]: any;
}

async function discover(server: ApiserverProcess, token: string): Promise<ServedResource[]> {
  const get = async (path: string): Promise<Json> => JSON.parse((await server.request(path, { token })).body) as Json;
  const versions: { prefix: string; group: string; version: string }[] = [{ prefix: '/api/v1', group: '', version: 'v1' }];
  for (const group of (await get('/apis')).groups as Json[]) {
    for (const version of group.versions as Json[]) versions.push({ prefix: `/apis/${version.groupVersion}`, group: group.name, version: version.version });
  }
  const resources: ServedResource[] = [];
  for (const { prefix, group, version } of versions) {
    for (const resource of (await get(prefix)).resources as Json[]) {
      resources.push({ prefix, group, version, kind: resource.kind, name: resource.name, namespaced: resource.namespaced, verbs: resource.verbs });
    }
  }
  return resources;
}

/** Every stored object's resourceVersion, by resource path and name: what no request may change. */
async function snapshot(server: ApiserverProcess, token: string, resources: readonly ServedResource[]): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  for (const resource of resources) {
    if (resource.name.includes('/') || !resource.verbs.includes('list')) continue;
    const response = await server.request(`${resource.prefix}/${resource.name}`, { token });
    assert.equal(response.status, 200, `${resource.prefix}/${resource.name}: ${response.body}`);
    for (const item of (JSON.parse(response.body) as Json).items as Json[]) {
      state.set(`${resource.prefix}/${resource.name}/${item.metadata.namespace ?? ''}/${item.metadata.name}`, item.metadata.resourceVersion);
    }
  }
  return state;
}

async function targetsOf(server: ApiserverProcess, token: string, resources: readonly ServedResource[]): Promise<Targets> {
  const targets: Targets = new Map();
  for (const resource of resources) {
    if (resource.name.includes('/') || !resource.verbs.includes('list') || targets.has(resource.name)) continue;
    const items = (JSON.parse((await server.request(`${resource.prefix}/${resource.name}`, { token })).body) as Json).items as Json[];
    targets.set(resource.name, items.slice(0, 5).map((object) => ({ namespace: object.metadata.namespace, name: object.metadata.name, object })));
  }
  return targets;
}

async function seed(server: ApiserverProcess, token: string, domain: string): Promise<void> {
  const rbac = `/apis/rbac.authorization.${domain}/v1`;
  const rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }];
  const objects: [string, Json][] = [
    ['/api/v1/namespaces', { metadata: { name: NS, labels: { team: 'a' } } }],
    [`${rbac}/namespaces/${NS}/roles`, { metadata: { name: 'reader', labels: { app: 'x' }, finalizers: ['example.com/keep'] }, rules }],
    [`${rbac}/namespaces/${NS}/rolebindings`, { metadata: { name: 'reader' }, roleRef: { apiGroup: `rbac.authorization.${domain}`, kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }] }],
    [`${rbac}/clusterroles`, { metadata: { name: 'fuzz-reader' }, rules }],
    [`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'robot', annotations: { note: 'seed' } } }],
    [`/apis/coordination.${domain}/v1/namespaces/${NS}/leases`, { metadata: { name: 'lock' }, spec: { holderIdentity: 'x', leaseDurationSeconds: 15 } }],
    [`/api/v1/namespaces/${NS}/limitranges`, { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', max: { cpu: '2', memory: '1Gi' } }] } }],
  ];
  for (const [path, body] of objects) {
    const response = await server.request(path, { method: 'POST', token, body });
    assert.equal(response.status, 201, `${path}: ${response.body}`);
  }
}

function allowed(response: Response): boolean {
  if (response.status < 500) return true;
  // The documented 5xx: a resourceVersion the store has not reached within its wait, and the
  // subresources this server lists but does not serve (services/proxy), each a 501 Status saying so.
  if (response.status === 504 && /Too large resource version/.test(response.body)) return true;
  return response.status === 501 && /"kind":"Status".*is not supported by this server/.test(response.body);
}

function runFuzz(backend: string, start: () => Promise<{ server: ApiserverProcess; token: string; domain: string }>, stop: () => Promise<void>): void {
  describe(`fuzz: ${backend}`, () => {
    let server: ApiserverProcess;
    let token: string;
    let domain: string;
    before(async () => {
      ({ server, token, domain } = await start());
    });
    after(stop);

    it(`${REQUESTS} malformed requests: no 5xx, the process alive, nothing stored changed (seed ${SEED})`, async (t) => {
      t.diagnostic(`FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS} repeats this run`);
      await seed(server, token, domain);
      const resources = await discover(server, token);
      const targets = await targetsOf(server, token, resources);
      const before = await snapshot(server, token, resources);
      const random = new Random(SEED);
      const requests: FuzzRequest[] = Array.from({ length: REQUESTS }, () => generateRequest(random, resources, targets, NS));
      const failures: string[] = [];
      /** Writes that succeeded: the suspects when something stored changed. */
      const accepted: string[] = [];
      const counts = new Map<number, number>();
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < requests.length) {
          const request = requests[next++]!;
          const response = await server
            .request(request.path, { method: request.method, token, headers: request.headers, ...(request.body !== undefined && { rawBody: request.body }) })
            .catch((error: Error) => ({ status: 0, body: `no response: ${error.message}`, headers: {}, bytes: Buffer.alloc(0) }));
          counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
          if (request.method !== 'GET' && response.status < 300) accepted.push(`${request.method} ${request.path.slice(0, 200)} [${request.note}] -> ${response.status}`);
          if (response.status === 0 || !allowed(response)) {
            failures.push(`${request.method} ${request.path.slice(0, 300)} [${request.note}] ${JSON.stringify(request.headers)}\n  body: ${(request.body ?? '').slice(0, 300)}\n  -> ${response.status} ${response.body.slice(0, 500)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      t.diagnostic(`status codes: ${JSON.stringify(Object.fromEntries([...counts].sort(([a], [b]) => a - b)))}`);
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} requests failed (seed ${SEED})`);

      process.kill(server.pid, 0);
      assert.equal((await server.request('/readyz', { token })).status, 200, 'the replica is still ready');
      const afterState = await snapshot(server, token, resources);
      const changed = [...new Set([...before.keys(), ...afterState.keys()])].filter((key) => before.get(key) !== afterState.get(key));
      assert.deepEqual(
        changed.map((key) => `${key}: ${before.get(key) ?? '(absent)'} -> ${afterState.get(key) ?? '(absent)'}`),
        [],
        `stored objects changed (seed ${SEED}); the writes that succeeded:\n${accepted.join('\n')}`,
      );
    });
  });
}

let tokens: Awaited<ReturnType<typeof adminTokenFile>> | undefined;
let memory: ApiserverProcess | undefined;
runFuzz(
  'memory backend, plat.io',
  async () => {
    tokens ??= await adminTokenFile();
    memory = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`]);
    return { server: memory, token: tokens.token, domain: 'plat.io' };
  },
  async () => {
    await memory?.stop();
  },
);

let etcd: TestEtcd | undefined;
let onEtcd: ApiserverProcess | undefined;
runFuzz(
  'etcd backend, k8s.io',
  async () => {
    tokens ??= await adminTokenFile();
    etcd = await sharedEtcd();
    onEtcd = await startApiserver([...etcd.flags, `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io']);
    return { server: onEtcd, token: tokens.token, domain: 'k8s.io' };
  },
  async () => {
    await onEtcd?.stop();
    await etcd?.stop();
    await tokens?.cleanup();
  },
);
