// The controller-manager end to end: etcd, two apiserver replicas, two controller-managers
// each talking to its own replica through a kubeconfig. One leads; the controllers act through the
// API; killing the leader hands the work to the other. Each serves health and metrics on its own
// secure port.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { startControllerManager, type ControllerManagerProcess } from './support/controller-manager-process.js';
import { writeKubeconfig } from './support/kubeconfig.js';

const RBAC = '/apis/rbac.authorization.plat.io/v1';
const LEASE = '/apis/coordination.plat.io/v1/namespaces/plat-system/leases/plat-controller-manager';
/** Shorter than upstream's 15 s / 10 s / 2 s so that failover is seen in seconds; the defaults are unit-tested. */
const LEASE_DURATION_MS = 6_000;
/** The leader renews every retry period. */
const RENEW_PERIOD_MS = 1_000;
const LEADER_ELECTION = [
  `--leader-elect-lease-duration=${LEASE_DURATION_MS / 1000}s`,
  '--leader-elect-renew-deadline=4s',
  `--leader-elect-retry-period=${RENEW_PERIOD_MS / 1000}s`,
];

interface Meta {
  name?: string;
  uid?: string;
  resourceVersion?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean }[];
}
interface Obj {
  metadata: Meta;
  [field: string]: unknown;
}

describe('controller-manager: two replicas of each on one etcd', () => {
  let etcd: TestEtcd;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  const replicas: ApiserverProcess[] = [];
  const managers: ControllerManagerProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const kubeconfigs: string[] = [];

  before(async () => {
    etcd = await sharedEtcd();
    tokens = await adminTokenFile();
    replicas.push(
      ...(await Promise.all([0, 1].map(() => startApiserver([...etcd.flags, `--token-auth-file=${tokens.file}`])))),
    );
    for (const replica of replicas) {
      await eventually('readyz', async () => (await replica.request('/readyz')).status === 200);
      const kubeconfig = await writeKubeconfig(replica, tokens.token);
      kubeconfigs.push(kubeconfig.path);
      cleanups.push(kubeconfig.cleanup);
    }
    managers.push(...(await Promise.all(kubeconfigs.map((path) => startControllerManager([`--kubeconfig=${path}`, ...LEADER_ELECTION])))));
  });
  after(async () => {
    await Promise.all(managers.map((manager) => manager.stop()));
    await Promise.all(replicas.map((replica) => replica.stop()));
    await etcd.stop();
    await Promise.all(cleanups.map((cleanup) => cleanup()));
    await tokens.cleanup();
  });

  // Requests go to either replica: the controller-managers see them through their own.
  const call = async (method: string, path: string, body?: unknown, replica = 0): Promise<{ status: number; object: Obj }> => {
    const response = await replicas[replica]!.request(path, { method, token: tokens.token, ...(body !== undefined && { body }) });
    return { status: response.status, object: (response.body ? JSON.parse(response.body) : {}) as Obj };
  };
  const get = (path: string, replica = 0) => call('GET', path, undefined, replica);
  const must = async (method: string, path: string, body?: unknown, replica = 0): Promise<Obj> => {
    const { status, object } = await call(method, path, body, replica);
    assert.ok(status >= 200 && status < 300, `${method} ${path}: ${status} ${JSON.stringify(object)}`);
    return object;
  };
  const exists = async (path: string): Promise<boolean> => (await get(path)).status === 200;
  const createNamespace = (name: string) => must('POST', '/api/v1/namespaces', { metadata: { name } });
  const leader = async (): Promise<ControllerManagerProcess | undefined> => {
    const holder = (await get(LEASE)).object.spec as { holderIdentity?: string } | undefined;
    return managers.find((m) => m.identity === holder?.holderIdentity);
  };

  it('one of the two leads, through a Lease in plat-system with upstream durations', async () => {
    await eventually('a leader', async () => (await leader()) !== undefined, 30_000);
    const lead = (await leader())!;
    await lead.waitForLog('started leading');
    const lease = (await get(LEASE)).object.spec as { leaseDurationSeconds: number; renewTime: string; leaseTransitions: number };
    assert.equal(lease.leaseDurationSeconds, LEASE_DURATION_MS / 1000);
    assert.match(lease.renewTime, /\.\d{6}Z$/);
    const follower = managers.find((m) => m !== lead)!;
    // Only the leader runs controllers.
    await follower.waitForLog('new leader observed');
    assert.deepEqual(follower.lines('started leading'), []);
    assert.deepEqual(follower.lines('starting controller'), []);
  });

  it('each serves /healthz, /livez, /readyz and /metrics on its secure port; the leader reports itself master', async () => {
    const lead = (await leader())!;
    const follower = managers.find((m) => m !== lead)!;
    for (const manager of [lead, follower]) {
      assert.ok(manager.securePort > 0);
      for (const path of ['/healthz', '/livez']) assert.deepEqual(await manager.get(path), { status: 200, body: 'ok' }, path);
      // The leader once its informers have synced, the follower while it stands by.
      await eventually('readyz', async () => (await manager.get('/readyz')).status === 200, 10_000);
      assert.match((await manager.get('/healthz?verbose')).body, /^\[\+\]leaderElection ok$/m);
    }
    const master = async (manager: ControllerManagerProcess): Promise<number | undefined> => {
      const match = /^leader_election_master_status\{name="plat-controller-manager"\} (\d+)$/m.exec((await manager.get('/metrics')).body);
      return match ? Number(match[1]) : undefined;
    };
    assert.deepEqual([await master(lead), await master(follower)], [1, 0]);

    // The leader's work queues count what its informers see: a new namespace is an add.
    const adds = async (manager: ControllerManagerProcess, queue: string): Promise<number> => {
      const metrics = (await manager.get('/metrics')).body;
      const match = new RegExp(`^workqueue_adds_total\\{name="${queue}"\\} (\\d+)$`, 'm').exec(metrics);
      return match ? Number(match[1]) : 0;
    };
    const before = await adds(lead, 'serviceaccount');
    await createNamespace('e2e-metrics');
    await eventually('workqueue_adds_total to grow', async () => (await adds(lead, 'serviceaccount')) > before, 10_000);
    assert.equal(await adds(follower, 'serviceaccount'), 0, 'a standby runs no queues');
  });

  it('every namespace gets a default ServiceAccount', async () => {
    await createNamespace('e2e-sa');
    await eventually('the default ServiceAccount', () => exists('/api/v1/namespaces/e2e-sa/serviceaccounts/default'), 10_000);
  });

  it('aggregation follows label changes within a second', async () => {
    const rule = (resource: string) => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });
    const rulesOf = async (): Promise<string[]> =>
      (((await get(`${RBAC}/clusterroles/e2e-aggregate`, 1)).object.rules as { resources: string[] }[] | undefined) ?? []).map((r) => r.resources[0]!);
    await must('POST', `${RBAC}/clusterroles`, { metadata: { name: 'e2e-member-a', labels: { 'e2e/aggregate': 'yes' } }, rules: [rule('pods')] });
    await must('POST', `${RBAC}/clusterroles`, { metadata: { name: 'e2e-member-b' }, rules: [rule('secrets')] });
    await must('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'e2e-aggregate' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'e2e/aggregate': 'yes' } }] },
    });
    await eventually('the first aggregation', async () => (await rulesOf()).join() === 'pods', 10_000);

    const relabel = async (name: string, labels: Record<string, string>, want: string): Promise<number> => {
      const role = (await get(`${RBAC}/clusterroles/${name}`)).object;
      await must('PUT', `${RBAC}/clusterroles/${name}`, { ...role, metadata: { ...role.metadata, labels } });
      const start = Date.now();
      await eventually(`rules ${want}`, async () => (await rulesOf()).join() === want, 5000);
      return Date.now() - start;
    };
    const timings = [
      await relabel('e2e-member-b', { 'e2e/aggregate': 'yes' }, 'pods,secrets'),
      await relabel('e2e-member-a', {}, 'secrets'),
      await relabel('e2e-member-a', { 'e2e/aggregate': 'yes' }, 'pods,secrets'),
    ];
    for (const ms of timings) assert.ok(ms < 1000, `aggregation took ${ms} ms (all: ${timings.join(', ')})`);
    console.log(`# aggregation followed label changes in ${timings.join(', ')} ms`);

    // A direct edit of the aggregated rules is overwritten.
    const aggregate = (await get(`${RBAC}/clusterroles/e2e-aggregate`)).object;
    await must('PUT', `${RBAC}/clusterroles/e2e-aggregate`, { ...aggregate, rules: [rule('everything')] });
    await eventually('the edit overwritten', async () => (await rulesOf()).join() === 'pods,secrets', 1000);
  });

  it('a namespace with 200 objects of several kinds is emptied and removed within 10 s', async () => {
    await createNamespace('e2e-big');
    const ns = '/api/v1/namespaces/e2e-big';
    const kinds: [string, (i: number) => unknown][] = [
      [`${ns}/serviceaccounts`, (i) => ({ metadata: { name: `sa-${i}` } })],
      [`${ns}/limitranges`, (i) => ({ metadata: { name: `lr-${i}` }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } })],
      [`/apis/coordination.plat.io/v1/namespaces/e2e-big/leases`, (i) => ({ metadata: { name: `lease-${i}` }, spec: { holderIdentity: 'x' } })],
      [`${RBAC}/namespaces/e2e-big/roles`, (i) => ({ metadata: { name: `role-${i}` }, rules: [] })],
      [
        `${RBAC}/namespaces/e2e-big/rolebindings`,
        (i) => ({ metadata: { name: `rb-${i}` }, roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'Role', name: 'role-0' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.plat.io' }] }),
      ],
    ];
    const creates = kinds.flatMap(([path, make]) => Array.from({ length: 40 }, (_, i) => () => must('POST', path, make(i), i % 2)));
    for (let i = 0; i < creates.length; i += 20) await Promise.all(creates.slice(i, i + 20).map((create) => create()));
    for (const [path] of kinds) assert.ok(((await get(path)).object.items as unknown[]).length >= 40, path);

    const start = Date.now();
    await must('DELETE', ns);
    assert.equal(((await get(ns)).object.status as { phase: string }).phase, 'Terminating');
    await eventually('the namespace removed', async () => (await get(ns)).status === 404, 10_000);
    const took = Date.now() - start;
    assert.ok(took < 10_000, `took ${took} ms`);
    console.log(`# 200 objects deleted and the namespace removed in ${took} ms`);
    for (const [path] of kinds) assert.deepEqual((await get(path)).object.items, [], path);
  });

  describe('an owner with 3 dependents', () => {
    const setUp = async (ns: string): Promise<{ owner: string; dependents: string[] }> => {
      await createNamespace(ns);
      const owner = await must('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'owner' } });
      const ref = { apiVersion: 'v1', kind: 'ServiceAccount', name: 'owner', uid: owner.metadata.uid!, blockOwnerDeletion: true };
      const dependents: string[] = [];
      for (const name of ['d1', 'd2', 'd3']) {
        await must('POST', `${RBAC}/namespaces/${ns}/roles`, { metadata: { name, ownerReferences: [ref] }, rules: [] });
        dependents.push(`${RBAC}/namespaces/${ns}/roles/${name}`);
      }
      return { owner: `/api/v1/namespaces/${ns}/serviceaccounts/owner`, dependents };
    };
    // DeleteOptions in the query: the test helper sends a DELETE body without a length.
    const deleteWith = (path: string, propagationPolicy: string) => must('DELETE', `${path}?propagationPolicy=${propagationPolicy}`, undefined, 1);

    it('Background: the owner goes at once, the dependents after it', async () => {
      const { owner, dependents } = await setUp('e2e-background');
      await deleteWith(owner, 'Background');
      assert.equal(await exists(owner), false);
      await eventually('dependents collected', async () => !(await Promise.all(dependents.map(exists))).some(Boolean), 10_000);
    });

    it('Foreground: the owner stays, marked, until its dependents are gone', async () => {
      const { owner, dependents } = await setUp('e2e-foreground');
      const marked = await deleteWith(owner, 'Foreground');
      assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
      assert.ok(marked.metadata.deletionTimestamp);
      // Whenever the owner is seen gone, every dependent is already gone.
      await eventually(
        'the owner removed',
        async () => {
          if (await exists(owner)) return false;
          assert.deepEqual(await Promise.all(dependents.map(exists)), [false, false, false], 'dependents outlived the owner');
          return true;
        },
        10_000,
      );
    });

    it('Orphan: the dependents stay, without the reference; then the owner goes', async () => {
      const { owner, dependents } = await setUp('e2e-orphan');
      const marked = await deleteWith(owner, 'Orphan');
      assert.deepEqual(marked.metadata.finalizers, ['orphan']);
      await eventually('the owner removed', async () => !(await exists(owner)), 10_000);
      for (const path of dependents) {
        const { status, object } = await get(path);
        assert.equal(status, 200, path);
        assert.equal(object.metadata.ownerReferences, undefined, path);
      }
    });
  });

  it('leader failover: killing the leader hands the work to the other once the lease expires', async () => {
    const lead = (await leader())!;
    const follower = managers.find((m) => m !== lead)!;
    const killedAt = Date.now();
    lead.kill('SIGKILL');
    await lead.exited;
    await follower.waitForLog('started leading', 40_000);
    const took = Date.now() - killedAt;
    // The follower judges expiry on its own clock from when its watch saw the last renewal (at most
    // one renew period before the kill) and tries the moment it expires: within the lease duration
    // of the kill, the slack being one watch event and one update, not a polling period.
    assert.ok(took >= LEASE_DURATION_MS - RENEW_PERIOD_MS - 500, `took over after ${took} ms: before the lease expired`);
    assert.ok(took <= LEASE_DURATION_MS + 500, `took over after ${took} ms`);
    const lease = (await get(LEASE)).object.spec as { holderIdentity: string; leaseTransitions: number };
    assert.equal(lease.holderIdentity, follower.identity);
    assert.ok(lease.leaseTransitions >= 1);
    // The new leader's controllers act.
    await createNamespace('e2e-after-failover');
    await eventually('the default ServiceAccount', () => exists('/api/v1/namespaces/e2e-after-failover/serviceaccounts/default'), 10_000);
    console.log(`# failover: the follower took over ${took} ms after the leader was killed`);
  });

  it('a leader stopped with SIGTERM gives the lease up: a standby takes over at once', async () => {
    const lead = (await leader())!;
    const standby = await startControllerManager([`--kubeconfig=${kubeconfigs[0]}`, ...LEADER_ELECTION]);
    managers.push(standby);
    await standby.waitForLog('new leader observed');
    const stoppedAt = Date.now();
    assert.equal(await lead.stop(), 0);
    await standby.waitForLog('started leading', 10_000);
    const took = Date.now() - stoppedAt;
    // The standby's watch sees the release and it tries at once, not after a retry period.
    assert.ok(took <= 1000, `took over after ${took} ms`);
    assert.match((await standby.get('/metrics')).body, /^leader_election_master_status\{name="plat-controller-manager"\} 1$/m);
  });
});
