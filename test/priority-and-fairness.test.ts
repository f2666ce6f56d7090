// API Priority and Fairness end to end, on the binary with its defaults (--enable-priority-and-
// fairness on, as kube-apiserver) and a tiny server concurrency (--max-requests-inflight=2,
// --max-mutating-requests-inflight=1: 3 seats): the bootstrap objects as `kubectl get flowschemas`
// lists them, the classification headers kubectl receives, a FlowSchema that puts user "noisy" in
// a level of one share with the Reject limit response, so that with its seats held by lists it
// does not read, noisy gets upstream's plain-text 429 with Retry-After while "victim" is served;
// and the debug dump listing the levels. (A deleted bootstrap object is recreated at the producer's
// next pass, a minute later here as upstream: the in-process test, with a short period, checks it.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { kubectlIn, writeKubeconfig } from './support/kubeconfig.js';

const V3 = '/apis/flowcontrol.apiserver.k8s.io/v1beta3';
const UPSTREAM_FLOW_SCHEMAS = [
  'exempt',
  'probes',
  'system-leader-election',
  'endpoint-controller',
  'workload-leader-election',
  'system-node-high',
  'system-nodes',
  'kube-controller-manager',
  'kube-scheduler',
  'kube-system-service-accounts',
  'service-accounts',
  'global-default',
  'catch-all',
];

describe('API Priority and Fairness (the binary, --api-domain=k8s.io)', () => {
  let server: ApiserverProcess;
  let dir: string;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  const admin = 'admin-token';
  const noisy = 'noisy-token';
  const victim = 'victim-token';
  const stalled: { req: ClientRequest; res?: IncomingMessage }[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-apf-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, `${admin},admin,admin-uid,"system:masters"\n${noisy},noisy,noisy-uid\n${victim},victim,victim-uid\n`);
    server = await startApiserver([
      '--storage-backend=memory',
      `--token-auth-file=${tokens}`,
      '--api-domain=k8s.io',
      '--authorization-mode=AlwaysAllow',
      '--max-requests-inflight=2',
      '--max-mutating-requests-inflight=1',
    ]);
    await eventually('readyz', async () => (await server.request('/readyz', { token: admin })).status === 200);
    kubeconfig = await writeKubeconfig(server, admin);
  });
  after(async () => {
    for (const { req } of stalled) req.destroy();
    await server?.stop();
    await kubeconfig?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("kubectl get flowschemas lists upstream 1.28's bootstrap schemas in precedence order", async () => {
    await eventually('the bootstrap FlowSchemas', async () => {
      const list = await server.request(`${V3}/flowschemas`, { token: admin });
      return (JSON.parse(list.body) as { items: unknown[] }).items.length === UPSTREAM_FLOW_SCHEMAS.length;
    });
    const { stdout } = await kubectlIn(kubeconfig.path, dir, ['get', 'flowschemas', '--sort-by=.spec.matchingPrecedence', '-o', 'custom-columns=NAME:.metadata.name,PL:.spec.priorityLevelConfiguration.name', '--no-headers']);
    const rows = stdout.trim().split('\n').map((line) => line.trim().split(/\s+/));
    // Equal precedences (kube-controller-manager, kube-scheduler at 800) sort by name, as matching does.
    assert.deepEqual(rows.map((r) => r[0]), UPSTREAM_FLOW_SCHEMAS, stdout);
    assert.deepEqual(rows.find((r) => r[0] === 'probes'), ['probes', 'exempt']);
    const levels = await kubectlIn(kubeconfig.path, dir, ['get', 'prioritylevelconfigurations', '-o', 'name']);
    assert.equal(levels.stdout.trim().split('\n').length, 8, levels.stdout);
  });

  it('kubectl sees the classification in the response headers (-v=8)', async () => {
    const { stderr } = await kubectlIn(kubeconfig.path, dir, ['get', 'ns', '-v=8']);
    const exempt = JSON.parse((await server.request(`${V3}/flowschemas/exempt`, { token: admin })).body) as { metadata: { uid: string } };
    const exemptLevel = JSON.parse((await server.request(`${V3}/prioritylevelconfigurations/exempt`, { token: admin })).body) as { metadata: { uid: string } };
    assert.match(stderr, new RegExp(`X-Kubernetes-Pf-Flowschema-Uid: ${exempt.metadata.uid}`), 'system:masters: the exempt schema');
    assert.match(stderr, new RegExp(`X-Kubernetes-Pf-Prioritylevel-Uid: ${exemptLevel.metadata.uid}`));
  });

  it("a user whose level has one share and no queue gets upstream's 429 with Retry-After while another user is served", async () => {
    const level = await server.request(`${V3}/prioritylevelconfigurations`, {
      method: 'POST',
      token: admin,
      body: { metadata: { name: 'noisy-level' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } },
    });
    assert.equal(level.status, 201, level.body);
    const schema = await server.request(`${V3}/flowschemas`, {
      method: 'POST',
      token: admin,
      body: {
        metadata: { name: 'noisy' },
        spec: {
          priorityLevelConfiguration: { name: 'noisy-level' },
          matchingPrecedence: 500,
          rules: [{ subjects: [{ kind: 'User', user: { name: 'noisy' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
        },
      },
    });
    assert.equal(schema.status, 201, schema.body);
    const schemaUid = (JSON.parse(schema.body) as { metadata: { uid: string } }).metadata.uid;
    const levelUid = (JSON.parse(level.body) as { metadata: { uid: string } }).metadata.uid;
    await eventually('the schema in effect', async () => (await server.request('/api/v1/namespaces/default/configmaps?limit=1', { token: noisy })).headers['x-kubernetes-pf-flowschema-uid'] === schemaUid, 5000);

    // Lists of several megabytes the noisy client does not read: each holds its seat until its
    // response is written, which a full socket never lets happen.
    const data = 'x'.repeat(900 * 1024);
    for (let i = 0; i < 8; i++) {
      const created = await server.request('/api/v1/namespaces/default/configmaps', { method: 'POST', token: admin, body: { metadata: { name: `big-${i}` }, data: { blob: data } } });
      assert.equal(created.status, 201, created.body);
    }
    const hold = () =>
      new Promise<number>((resolve) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces/default/configmaps', ca: server.ca, agent: false, headers: { Authorization: `Bearer ${noisy}` } }, (res) => {
          entry.res = res;
          // Not read: the response stays paused.
          resolve(res.statusCode ?? 0);
        });
        const entry: { req: ClientRequest; res?: IncomingMessage } = { req };
        stalled.push(entry);
        req.on('error', () => resolve(0));
        req.end();
      });
    const held = await Promise.all([hold(), hold(), hold(), hold()]);
    assert.ok(held.includes(200), held.join(','));

    const refused = await server.request('/api/v1/namespaces/default/configmaps?limit=1', { token: noisy });
    assert.equal(refused.status, 429, refused.body.slice(0, 200));
    assert.equal(refused.body, 'Too many requests, please try again later.\n');
    assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');
    assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/);
    assert.equal(refused.headers['x-kubernetes-pf-flowschema-uid'], schemaUid);
    assert.equal(refused.headers['x-kubernetes-pf-prioritylevel-uid'], levelUid);

    const served = await server.request('/api/v1/namespaces/default/configmaps?limit=1', { token: victim });
    assert.equal(served.status, 200, 'victim is in global-default, untouched by noisy');

    const dump = await server.request('/debug/api_priority_and_fairness/dump_priority_levels', { token: admin });
    assert.equal(dump.status, 200);
    const row = dump.body.split('\n').find((line) => line.startsWith('noisy-level,'));
    assert.ok(row, dump.body);
    const cells = row.split(',').map((c) => c.trim());
    assert.ok(Number(cells[5]) >= 1, `noisy-level executes the held lists: ${row}`);
    assert.ok(Number(cells[7]) >= 1, `and has rejected: ${row}`);
    for (const name of ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']) {
      assert.ok(dump.body.split('\n').some((line) => line.startsWith(`${name},`)), `${name} in the dump`);
    }

    const metrics = (await server.request('/metrics', { token: admin })).body;
    assert.match(metrics, /apiserver_flowcontrol_rejected_requests_total\{priority_level="noisy-level",flow_schema="noisy",reason="concurrency-limit"\} [1-9]/);
    assert.match(metrics, /apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"\} [1-9]/);
    for (const { req } of stalled.splice(0)) req.destroy();
  });
});
