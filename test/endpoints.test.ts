// Endpoints and EndpointSlices end to end, under Kubernetes' names (--api-domain=k8s.io), the server
// in this process on memory storage with RBAC: both kinds in discovery (`ep`), written by hand as a
// Service without a selector has them, listed as Tables (the server's and kubectl 1.28's columns),
// carried as Protobuf, refused with upstream's 422 messages, and readable but not writable by `edit`.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { decodeObject } from '@plat/protobuf';
import { startInProcessApiServer, type InProcessApiServer } from '@plat/apiserver/testing';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);
/** kubectl 1.28 where the machine has it (the version we serve), else the kubectl on the PATH. */
const KUBECTL_128 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.28';
const KUBECTL = existsSync(KUBECTL_128) ? KUBECTL_128 : 'kubectl';
const EDITOR_TOKEN = 'e2e-endpoints-editor';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'external-db', namespace: 'default' },
  subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'pg', port: 5432 }, { name: 'metrics', port: 9187 }] }],
};

const slice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'external-db-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'external-db', 'endpointslice.kubernetes.io/managed-by': 'e2e.example.com' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }, { addresses: ['10.0.0.2'] }],
  ports: [{ name: 'pg', port: 5432 }],
};

describe('Endpoints and EndpointSlices (k8s.io)', () => {
  let server: InProcessApiServer;
  let kubeconfig: { path: string; cleanup: () => Promise<void> };
  let home: string;
  const admin = (): Record<string, string> => ({ Authorization: `Bearer ${server.adminToken}` });
  const json = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await server.send(method, path, body, { ...admin(), ...headers });
    return { status: response.status, body: JSON.parse(response.body) as Record<string, any> };
  };
  /** A GET answered in bytes (the test client reads text). */
  const bytes = (path: string, accept: string): Promise<{ status: number; type: string | undefined; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, ca: server.ca, agent: false, headers: { ...admin(), Accept: accept } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const kubectl = async (...args: string[]): Promise<string> =>
    (await run(KUBECTL, [`--kubeconfig=${kubeconfig.path}`, ...args], { env: { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') } })).stdout;

  before(async () => {
    server = await startInProcessApiServer({
      domain: 'k8s.io',
      users: new Map([[EDITOR_TOKEN, { name: 'editor', uid: 'editor-uid', groups: [] }]]),
      server: { authorizationModes: ['RBAC'] },
    });
    kubeconfig = await writeKubeconfig(server, server.adminToken);
    home = await mkdtemp(join(tmpdir(), 'plat-e2e-endpoints-'));
  });
  after(async () => {
    await server?.stop();
    await kubeconfig?.cleanup();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('discovery lists endpoints (short name ep) in v1 and endpointslices in discovery.k8s.io/v1', async () => {
    const core = await json('GET', '/api/v1');
    const ep = core.body.resources.find((r: { name: string }) => r.name === 'endpoints');
    assert.deepEqual([ep?.kind, ep?.namespaced, ep?.shortNames, ep?.singularName], ['Endpoints', true, ['ep'], 'endpoints']);
    const discovery = await json('GET', '/apis/discovery.k8s.io/v1');
    const slices = discovery.body.resources.find((r: { name: string }) => r.name === 'endpointslices');
    assert.deepEqual([slices?.kind, slices?.namespaced, slices?.verbs?.length], ['EndpointSlice', true, 8]);
  });

  it('OpenAPI publishes both: kubectl explain reads their fields', async () => {
    const slices = await kubectl('explain', 'endpointslices.addressType');
    assert.match(slices, /KIND:\s+EndpointSlice/);
    assert.match(slices, /FIELD:\s+addressType <string>/);
    const ep = await kubectl('explain', 'ep.subsets.ports.protocol');
    assert.match(ep, /KIND:\s+Endpoints/);
    assert.match(ep, /FIELD:\s+protocol <string>/);
  });

  it('creates both, defaulted as upstream: TCP ports, a port name "", endpoint conditions, generation 1', async () => {
    const created = await json('POST', '/api/v1/namespaces/default/endpoints', endpoints);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.subsets[0].ports, [{ name: 'pg', port: 5432, protocol: 'TCP' }, { name: 'metrics', port: 9187, protocol: 'TCP' }]);
    const createdSlice = await json('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', slice);
    assert.equal(createdSlice.status, 201, JSON.stringify(createdSlice.body));
    assert.deepEqual(createdSlice.body.ports, [{ name: 'pg', port: 5432, protocol: 'TCP' }]);
    assert.deepEqual(createdSlice.body.endpoints[1], { addresses: ['10.0.0.2'], conditions: {} });
    assert.equal(createdSlice.body.metadata.generation, 1);
  });

  it('lists Endpoints as a Table: NAME ENDPOINTS AGE, with "+ N more..."', async () => {
    const table = await json('GET', '/api/v1/namespaces/default/endpoints', undefined, { Accept: TABLE });
    assert.equal(table.status, 200);
    assert.deepEqual(table.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Endpoints', 'Age']);
    const row = table.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'external-db');
    assert.equal(row.cells[1], '10.0.0.1:5432,10.0.0.2:5432,10.0.0.1:9187 + 1 more...');
    const printed = await kubectl('get', 'ep', '-n', 'default');
    assert.match(printed, /^NAME\s+ENDPOINTS\s+AGE\n/);
    assert.match(printed, /^external-db\s+10\.0\.0\.1:5432,10\.0\.0\.2:5432,10\.0\.0\.1:9187 \+ 1 more\.\.\.\s+\d+s$/m);
  });

  it('lists EndpointSlices as a Table: NAME ADDRESSTYPE PORTS ENDPOINTS AGE', async () => {
    const table = await json('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', undefined, { Accept: TABLE });
    assert.deepEqual(table.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    assert.deepEqual(table.body.rows[0].cells.slice(0, 4), ['external-db-1', 'IPv4', '5432', '10.0.0.1,10.0.0.2']);
    const printed = await kubectl('get', 'endpointslices', '-n', 'default');
    assert.match(printed, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n/);
    assert.match(printed, /^external-db-1\s+IPv4\s+5432\s+10\.0\.0\.1,10\.0\.0\.2\s+\d+s$/m);
  });

  it('serves both as Protobuf, the same objects as in JSON', async () => {
    for (const path of ['/api/v1/namespaces/default/endpoints/external-db', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/external-db-1']) {
      const asJSON = await json('GET', path);
      const asProtobuf = await bytes(path, 'application/vnd.kubernetes.protobuf');
      assert.deepEqual([asProtobuf.status, asProtobuf.type], [200, 'application/vnd.kubernetes.protobuf']);
      assert.deepEqual(decodeObject(asProtobuf.body), asJSON.body);
    }
  });

  it('refuses invalid Endpoints with upstream 1.28 messages, and stores nothing', async () => {
    const cases: [object, string][] = [
      [
        { ...endpoints, metadata: { name: 'loopback' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }] },
        'Endpoints "loopback" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      ],
      [
        { ...endpoints, metadata: { name: 'ports' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { name: 'b', port: 70000, protocol: 'ICMP' }] }] },
        'Endpoints "ports" is invalid: [subsets[0].ports[0].name: Required value, subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive, subsets[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"]',
      ],
      [{ ...endpoints, metadata: { name: 'empty' }, subsets: [{ ports: [{ port: 80 }] }] }, 'Endpoints "empty" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`'],
    ];
    for (const [object, message] of cases) {
      const refused = await json('POST', '/api/v1/namespaces/default/endpoints', object);
      assert.deepEqual([refused.status, refused.body.reason, refused.body.message], [422, 'Invalid', message]);
    }
    assert.equal((await json('GET', '/api/v1/namespaces/default/endpoints/loopback')).status, 404);
  });

  it('refuses invalid EndpointSlices with upstream 1.28 messages, and an addressType change', async () => {
    const group = 'EndpointSlice.discovery.k8s.io';
    const cases: [object, string][] = [
      [{ ...slice, metadata: { name: 'untyped' }, addressType: undefined }, `${group} "untyped" is invalid: addressType: Required value`],
      [
        { ...slice, metadata: { name: 'bad' }, endpoints: [{ addresses: ['2001:db8::1'] }, { addresses: [] }], ports: [{ name: 'a' }, { name: 'a' }] },
        `${group} "bad" is invalid: [endpoints[0].addresses[0]: Invalid value: "2001:db8::1": must be a valid IPv4 address, endpoints[1].addresses: Required value: must contain at least 1 address, ports[1].name: Duplicate value: "a"]`,
      ],
      [
        { ...slice, metadata: { name: 'crowded' }, endpoints: Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] })) },
        `${group} "crowded" is invalid: endpoints: Too many: 1001: must have at most 1000 items`,
      ],
    ];
    for (const [object, message] of cases) {
      const refused = await json('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', object);
      assert.deepEqual([refused.status, refused.body.reason, refused.body.message], [422, 'Invalid', message]);
    }
    const current = await json('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/external-db-1');
    const changed = await json('PUT', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/external-db-1', { ...current.body, addressType: 'FQDN', endpoints: [] });
    assert.deepEqual([changed.status, changed.body.message], [422, `${group} "external-db-1" is invalid: addressType: Invalid value: "FQDN": field is immutable`]);
  });

  it('edit may read both but write neither (upstream 1.28: endpoints left edit with CVE-2021-25740)', async () => {
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'editor', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'editor' }],
    };
    assert.equal((await json('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding)).status, 201);
    const asEditor = { Authorization: `Bearer ${EDITOR_TOKEN}` };
    const deadline = Date.now() + 5000;
    while ((await server.send('GET', '/api/v1/namespaces/default/endpoints', undefined, asEditor)).status !== 200) {
      assert.ok(Date.now() < deadline, 'the binding did not take effect');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await server.send('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', undefined, asEditor)).status, 200);
    const write = await server.send('POST', '/api/v1/namespaces/default/endpoints', { ...endpoints, metadata: { name: 'by-editor' } }, asEditor);
    assert.equal(write.status, 403);
    assert.match(JSON.parse(write.body).message, /^endpoints is forbidden: User "editor" cannot create resource "endpoints" in API group "" in the namespace "default"/);
    const writeSlice = await server.send('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { ...slice, metadata: { name: 'by-editor' } }, asEditor);
    assert.equal(writeSlice.status, 403);
  });
});
