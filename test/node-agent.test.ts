// The node agent end to end, under Kubernetes' names so that kubectl reads the nodes: etcd, two
// apiserver replicas, a controller-manager (the node lifecycle controller, short periods) on one
// and an agent on each, with node credentials (group system:nodes). The Nodes register, their
// Leases are renewed every quarter of their duration, kubectl shows them Ready; a frozen agent's
// Node turns Unknown after the grace period and Ready again once it thaws. The secured server
// authenticates through TokenReview and authorizes through SubjectAccessReview, both cached; healthz
// answers without credentials; SIGTERM reports the node shutting down. The agents and the controller
// record upstream's Node events along the way.
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { startAgent, type AgentProcess } from './support/agent-process.js';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { authFiles, type AuthFiles } from './support/auth.js';
import { startControllerManager, type ControllerManagerProcess } from './support/controller-manager-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
/** The agents' lease: renewed every quarter of it, 1 s. */
const LEASE_SECONDS = 4;
const RENEW_MS = (LEASE_SECONDS * 1000) / 4;
const MONITOR_PERIOD_MS = 1000;
const GRACE_MS = 6000;
/** The agents' SubjectAccessReview caches, both ways. */
const AUTHZ_TTL_MS = 3000;
const SHUTDOWN_GRACE_MS = 5000;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Node {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec?: { taints?: { key: string; effect: string }[] };
  status?: { conditions?: Condition[]; capacity?: Record<string, string>; allocatable?: Record<string, string>; nodeInfo?: Record<string, string> };
}
interface Lease {
  metadata: { resourceVersion: string; ownerReferences?: { kind: string; name: string; uid: string }[] };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

interface Event {
  reason: string;
  message: string;
  type: string;
  count?: number;
  source?: { component?: string; host?: string };
  involvedObject: { kind?: string; name?: string; uid?: string; namespace?: string };
}

const readyOf = (node: Node): Condition | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');
const kibibytes = (quantity: string): number => {
  const match = /^(\d+)Ki$/.exec(quantity);
  assert.ok(match, `a quantity in Ki: ${quantity}`);
  return Number(match[1]);
};

describe('plat-agent: two agents against two replicas on etcd', () => {
  let etcd: TestEtcd;
  let auth: AuthFiles;
  const replicas: ApiserverProcess[] = [];
  let manager: ControllerManagerProcess;
  const agents: AgentProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  let kubectlHome: string;
  let adminKubeconfig: string;

  const call = async <T>(method: string, path: string, body?: unknown, replica = 0): Promise<{ status: number; object: T }> => {
    const response = await replicas[replica]!.request(path, { method, token: auth.admin, ...(body !== undefined && { body }) });
    return { status: response.status, object: (response.body ? JSON.parse(response.body) : {}) as T };
  };
  const must = async <T>(method: string, path: string, body?: unknown, replica = 0): Promise<T> => {
    const { status, object } = await call<T>(method, path, body, replica);
    assert.ok(status >= 200 && status < 300, `${method} ${path}: ${status} ${JSON.stringify(object)}`);
    return object;
  };
  /** The Events about a node (in default, as upstream's), by reason; each reason once, its count kept. */
  const nodeEvents = async (name: string): Promise<Record<string, Event>> => {
    const list = await must<{ items: Event[] }>('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D${name}`);
    const byReason: Record<string, Event> = {};
    for (const event of list.items) {
      const key = `${event.source?.component}/${event.reason}`;
      assert.equal(byReason[key], undefined, `one ${key} event for ${name}, repeats counted on it`);
      byReason[key] = event;
    }
    return byReason;
  };
  const node = (name: string, replica = 0): Promise<Node> => must<Node>('GET', `/api/v1/nodes/${name}`, undefined, replica);
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await kubectlIn(adminKubeconfig, kubectlHome, args);
    return stdout;
  };
  /** kubectl get nodes: STATUS by NAME. */
  const kubectlStatuses = async (): Promise<Record<string, string>> =>
    Object.fromEntries(
      (await kubectl('get', 'nodes', '--no-headers'))
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/))
        .map(([name, status]) => [name!, status!]),
    );

  before(async () => {
    etcd = await sharedEtcd();
    auth = await authFiles([
      { token: `node-a-${process.pid}`, name: 'system:node:worker-a', groups: ['system:nodes'] },
      { token: `node-b-${process.pid}`, name: 'system:node:worker-b', groups: ['system:nodes'] },
      { token: `viewer-${process.pid}`, name: 'viewer' },
    ]);
    kubectlHome = await mkdtemp(join(tmpdir(), 'plat-e2e-agent-kubectl-'));
    replicas.push(
      ...(await Promise.all(
        [0, 1].map(() => startApiserver([...etcd.flags, `--token-auth-file=${auth.tokenFile}`, '--api-domain=k8s.io'])),
      )),
    );
    const kubeconfig = async (replica: ApiserverProcess, token: string): Promise<string> => {
      const written = await writeKubeconfig(replica, token);
      cleanups.push(written.cleanup);
      return written.path;
    };
    for (const replica of replicas) await eventually('readyz', async () => (await replica.request('/readyz')).status === 200);
    adminKubeconfig = await kubeconfig(replicas[0]!, auth.admin);
    manager = await startControllerManager([
      `--kubeconfig=${await kubeconfig(replicas[1]!, auth.admin)}`,
      '--api-domain=k8s.io',
      '--leader-elect=false',
      `--node-monitor-period=${MONITOR_PERIOD_MS}ms`,
      `--node-monitor-grace-period=${GRACE_MS}ms`,
    ]);
    const common = [
      `nodeLeaseDurationSeconds: ${LEASE_SECONDS}`,
      'nodeStatusUpdateFrequency: 1s',
      'nodeStatusReportFrequency: 1m',
      'authentication: {anonymous: {enabled: false}, webhook: {enabled: true, cacheTTL: 2s}}',
      `authorization: {mode: Webhook, webhook: {cacheAuthorizedTTL: ${AUTHZ_TTL_MS}ms, cacheUnauthorizedTTL: ${AUTHZ_TTL_MS}ms}}`,
    ];
    agents.push(
      ...(await Promise.all([
        startAgent({
          name: 'worker-a',
          kubeconfig: await kubeconfig(replicas[0]!, auth.tokens['system:node:worker-a']!),
          apiDomain: 'k8s.io',
          config: [...common, 'systemReserved: {memory: 100Mi}', `shutdownGracePeriod: ${SHUTDOWN_GRACE_MS}ms`].join('\n'),
        }),
        startAgent({
          name: 'worker-b',
          kubeconfig: await kubeconfig(replicas[1]!, auth.tokens['system:node:worker-b']!),
          apiDomain: 'k8s.io',
          config: [...common, 'maxPods: 20', 'registerWithTaints: [{key: e2e/dedicated, value: agents, effect: NoSchedule}]', 'contentType: application/json'].join('\n'),
        }),
      ])),
    );
  });
  after(async () => {
    await Promise.all(agents.map((agent) => agent.stop()));
    await manager?.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await etcd?.stop();
    await Promise.all(cleanups.map((cleanup) => cleanup()));
    await auth?.cleanup();
    if (kubectlHome) await rm(kubectlHome, { recursive: true, force: true });
  });

  it('each registers its Node: Ready, named and labelled by its --hostname-override, capacity from this machine less reservations', async () => {
    const [a, b] = [await node('worker-a'), await node('worker-b', 1)];
    for (const registered of [a, b]) {
      assert.equal(readyOf(registered)?.status, 'True', JSON.stringify(registered.status?.conditions));
      assert.equal(readyOf(registered)?.reason, 'KubeletReady');
      assert.match(readyOf(registered)?.message ?? '', /simulated and runs no pods/);
      assert.equal(registered.metadata.labels?.['kubernetes.io/hostname'], registered.metadata.name);
      assert.equal(registered.status?.capacity?.cpu, String(cpus().length));
      assert.equal(registered.status?.nodeInfo?.containerRuntimeVersion, 'simulated://0.1.0');
    }
    for (const agent of agents) await agent.waitForLog('the container runtime is simulated: this agent runs no containers and no pods');
    // 100Mi reserved and the default hard eviction threshold of 100Mi.
    assert.equal(kibibytes(a.status!.capacity!.memory!) - kibibytes(a.status!.allocatable!.memory!), 200 * 1024);
    assert.equal(kibibytes(b.status!.capacity!.memory!) - kibibytes(b.status!.allocatable!.memory!), 100 * 1024);
    assert.deepEqual([a.status?.capacity?.pods, b.status?.capacity?.pods], ['110', '20']);
    // Registered with its own taint; the not-ready one TaintNodesByCondition adds at creation is
    // taken off by the node lifecycle controller once the Node is Ready.
    await eventually('worker-b with its registered taint only', async () => {
      const taints = (await node('worker-b', 1)).spec?.taints;
      return isDeepStrictEqual(taints, [{ key: 'e2e/dedicated', value: 'agents', effect: 'NoSchedule' }]);
    });
  });

  it("each records upstream's Node events (Starting, the conditions' NodeHas..., NodeReady), the node lifecycle controller RegisteredNode; both found as kubectl describe node searches", async () => {
    const fromAgent = ['Starting', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady'];
    for (const agent of agents) {
      const uid = (await node(agent.name)).metadata.uid;
      await eventually(`${agent.name}'s events`, async () => {
        const events = await nodeEvents(agent.name);
        return fromAgent.every((reason) => events[`kubelet/${reason}`]) && events['node-controller/RegisteredNode'] !== undefined;
      });
      const events = await nodeEvents(agent.name);
      assert.deepEqual(
        fromAgent.map((reason) => {
          const { type, message, source, involvedObject } = events[`kubelet/${reason}`]!;
          return [type, message, source, involvedObject];
        }),
        fromAgent.map((reason) => [
          'Normal',
          reason === 'Starting' ? 'Starting kubelet.' : `Node ${agent.name} status is now: ${reason}`,
          { component: 'kubelet', host: agent.name },
          // Upstream's nodeRef: the name as uid.
          { kind: 'Node', name: agent.name, uid: agent.name },
        ]),
      );
      const registered = events['node-controller/RegisteredNode']!;
      assert.equal(registered.message, `Node ${agent.name} event: Registered Node ${agent.name} in Controller`);
      assert.deepEqual(registered.involvedObject, { kind: 'Node', name: agent.name, uid, apiVersion: 'v1' });
    }
    // kubectl describe node's two searches (it cannot run here: it lists the node's Pods, which are
    // not served): by the Node's reference, and by the same with the name as uid.
    const uid = (await node('worker-a')).metadata.uid;
    const search = async (byUid: string): Promise<string[]> => {
      const selector = encodeURIComponent(`involvedObject.kind=Node,involvedObject.name=worker-a,involvedObject.namespace=,involvedObject.uid=${byUid}`);
      const list = await must<{ items: Event[] }>('GET', `/api/v1/events?fieldSelector=${selector}`);
      return list.items.map((e) => e.reason).sort();
    };
    assert.deepEqual(await search(uid), ['RegisteredNode']);
    assert.deepEqual(await search('worker-a'), [...fromAgent].sort());
  });

  it(`each renews its Lease in kube-node-lease every ${RENEW_MS} ms, the resourceVersion advancing at each renewal`, async (t) => {
    for (const agent of agents) {
      const lease = await must<Lease>('GET', `${LEASES}/${agent.name}`);
      const owner = await node(agent.name);
      assert.deepEqual(
        [lease.spec.holderIdentity, lease.spec.leaseDurationSeconds, lease.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}/${o.uid}`)],
        [agent.name, LEASE_SECONDS, [`Node/${agent.name}/${owner.metadata.uid}`]],
      );
    }
    // Both leases watched through replica 0 (worker-b renews through replica 1) for five periods.
    const watches = await Promise.all(
      agents.map((agent) => replicas[0]!.watch(`${LEASES}?watch=1&fieldSelector=metadata.name%3D${agent.name}`, { token: auth.admin })),
    );
    const windowMs = 5 * RENEW_MS;
    const seen = await Promise.all(
      watches.map(async (watch) => {
        const renewals: { rv: number; renewTime: number }[] = [];
        const end = Date.now() + windowMs;
        while (Date.now() < end) {
          const event = await watch.next(end - Date.now()).catch(() => undefined);
          if (!event) break;
          const lease = event.object as unknown as Lease;
          renewals.push({ rv: Number(lease.metadata.resourceVersion), renewTime: Date.parse(lease.spec.renewTime!) });
        }
        watch.close();
        return renewals;
      }),
    );
    for (const [i, renewals] of seen.entries()) {
      const name = agents[i]!.name;
      // The first event is the lease as it was; then one a renewal.
      assert.ok(renewals.length >= 4 && renewals.length <= 8, `${name}: ${renewals.length} events in ${windowMs} ms`);
      for (let j = 1; j < renewals.length; j++) {
        assert.ok(renewals[j]!.rv > renewals[j - 1]!.rv, `${name}: the resourceVersion advances at each renewal`);
        assert.ok(renewals[j]!.renewTime > renewals[j - 1]!.renewTime, `${name}: renewTime advances`);
      }
      const span = renewals.at(-1)!.renewTime - renewals[0]!.renewTime;
      const period = span / (renewals.length - 1);
      assert.ok(period >= 0.8 * RENEW_MS && period <= 1.5 * RENEW_MS, `${name}: renewed every ${Math.round(period)} ms, expected about ${RENEW_MS}`);
      t.diagnostic(`${name}: ${renewals.length - 1} renewals, one every ${Math.round(period)} ms`);
    }
  });

  it('kubectl get nodes shows both Ready', async () => {
    assert.deepEqual(await kubectlStatuses(), { 'worker-a': 'Ready', 'worker-b': 'Ready' });
  });

  it(`SIGSTOP: the frozen agent's Node turns Unknown and unreachable after the ${GRACE_MS} ms grace period; SIGCONT: Ready again`, async (t) => {
    const frozen = agents[1]!;
    const stoppedAt = Date.now();
    frozen.kill('SIGSTOP');
    let unknownAt = 0;
    await eventually(
      'worker-b Unknown',
      async () => {
        const ready = readyOf(await node('worker-b'));
        if (ready?.status !== 'Unknown') return false;
        unknownAt = Date.now();
        assert.deepEqual([ready.reason, ready.message], ['NodeStatusUnknown', 'Kubelet stopped posting node status.']);
        return true;
      },
      GRACE_MS + MONITOR_PERIOD_MS + 10_000,
    );
    const silentFor = unknownAt - stoppedAt;
    t.diagnostic(`Unknown ${silentFor} ms after SIGSTOP`);
    // Its last renewal came at most one renewal period before the stop.
    assert.ok(silentFor >= GRACE_MS - RENEW_MS - 200, `Unknown ${silentFor} ms after the stop: before the grace period`);
    assert.ok(silentFor <= GRACE_MS + MONITOR_PERIOD_MS + 4000, `Unknown only ${silentFor} ms after the stop`);
    await eventually('the unreachable taints', async () => {
      const keys = ((await node('worker-b')).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
      return keys.join() === 'e2e/dedicated:NoSchedule,node.kubernetes.io/unreachable:NoExecute,node.kubernetes.io/unreachable:NoSchedule';
    });
    assert.deepEqual(await kubectlStatuses(), { 'worker-a': 'Ready', 'worker-b': 'NotReady' });
    assert.equal(readyOf(await node('worker-a'))?.status, 'True', 'the other agent, still renewing, stays Ready');

    const continuedAt = Date.now();
    frozen.kill('SIGCONT');
    await eventually('worker-b Ready again, its unreachable taints gone', async () => {
      const thawed = await node('worker-b');
      return readyOf(thawed)?.status === 'True' && (thawed.spec?.taints ?? []).every((taint) => taint.key === 'e2e/dedicated');
    });
    t.diagnostic(`Ready and untainted ${Date.now() - continuedAt} ms after SIGCONT`);
    assert.deepEqual(await kubectlStatuses(), { 'worker-a': 'Ready', 'worker-b': 'Ready' });
    // The controller recorded it not ready; the agent, posting Ready over the Unknown, NodeReady again (counted).
    await eventually('the events of the outage', async () => ((await nodeEvents('worker-b'))['kubelet/NodeReady']?.count ?? 0) >= 2);
    const events = await nodeEvents('worker-b');
    assert.equal(events['node-controller/NodeNotReady']?.message, 'Node worker-b status is now: NodeNotReady');
    assert.equal(events['kubelet/NodeHasSufficientMemory']?.count, 2);
  });

  it('the secured server: 401 without credentials; healthz answers without them on its own port', async () => {
    const agent = agents[0]!;
    assert.deepEqual(await agent.secured('/pods'), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(await agent.secured('/logs/'), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(await agent.secured('/pods', { token: 'not-a-token' }), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(await agent.healthz(), { status: 200, body: 'ok' });
    // A node's own credentials hold no nodes/proxy either.
    assert.equal((await agent.secured('/pods', { token: auth.tokens['system:node:worker-a']! })).status, 403);
  });

  it(`the secured server: 403 without the grant, allowed once it exists and the cached denial (${AUTHZ_TTL_MS} ms) has expired; a revoked grant holds for its cache`, async () => {
    const agent = agents[0]!;
    const viewer = auth.tokens.viewer!;
    const deniedAt = Date.now();
    assert.deepEqual(await agent.secured('/logs/', { token: viewer }), { status: 403, body: 'Forbidden (user=viewer, verb=get, resource=nodes, subresource=log)' });
    assert.deepEqual(await agent.secured('/pods', { token: viewer }), { status: 403, body: 'Forbidden (user=viewer, verb=get, resource=nodes, subresource=proxy)' });

    await must('POST', `${RBAC}/clusterroles`, { metadata: { name: 'e2e-node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes/proxy', 'nodes/log'], verbs: ['get'] }] });
    await must('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'e2e-node-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'e2e-node-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
    });
    // The API allows it now (as the agent will ask it)...
    const review = await must<{ status: { allowed: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { user: 'viewer', resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'log', name: 'worker-a' } },
    });
    assert.equal(review.status.allowed, true);
    // ...but the agent holds its denial until cacheUnauthorizedTTL has passed.
    if (Date.now() - deniedAt < AUTHZ_TTL_MS - 500) assert.equal((await agent.secured('/logs/', { token: viewer })).status, 403, 'the denial is cached');
    let allowedAt = 0;
    await eventually('/logs/ allowed', async () => {
      const answer = await agent.secured('/logs/', { token: viewer });
      if (answer.status !== 200) return false;
      allowedAt = Date.now();
      assert.match(answer.body, /^<pre>/);
      return true;
    });
    assert.ok(allowedAt - deniedAt >= AUTHZ_TTL_MS, `allowed ${allowedAt - deniedAt} ms after the denial, within its cache TTL`);
    // /pods' denial (nodes/proxy) was cached a moment after /logs/', so it may outlive it by as much.
    let pods = await agent.secured('/pods', { token: viewer });
    await eventually('/pods allowed', async () => (pods = await agent.secured('/pods', { token: viewer })).status === 200);
    assert.deepEqual(JSON.parse(pods.body), { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] });

    // Revoked: the grant is cached for cacheAuthorizedTTL too.
    await must('DELETE', `${RBAC}/clusterrolebindings/e2e-node-reader`);
    if (Date.now() - allowedAt < AUTHZ_TTL_MS - 500) assert.equal((await agent.secured('/logs/', { token: viewer })).status, 200, 'the grant is cached');
    let deniedAgainAt = 0;
    await eventually('/logs/ denied again', async () => {
      if ((await agent.secured('/logs/', { token: viewer })).status !== 403) return false;
      deniedAgainAt = Date.now();
      return true;
    });
    assert.ok(deniedAgainAt - allowedAt >= AUTHZ_TTL_MS, `denied again ${deniedAgainAt - allowedAt} ms after the grant was cached`);
  });

  it(`SIGTERM: the agent reports its node shutting down (Ready False) and exits within shutdownGracePeriod (${SHUTDOWN_GRACE_MS} ms)`, async () => {
    const agent = agents[0]!;
    const termAt = Date.now();
    agent.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.logs());
    assert.ok(Date.now() - termAt < SHUTDOWN_GRACE_MS + 2000, `exited ${Date.now() - termAt} ms after SIGTERM`);
    const ready = readyOf(await node('worker-a'));
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'KubeletNotReady', 'node is shutting down']);
    // Written before it exited.
    const events = await nodeEvents('worker-a');
    assert.equal(events['kubelet/Shutdown']?.message, 'Shutdown manager detected shutdown event');
    assert.equal(events['kubelet/NodeNotReady']?.message, 'Node worker-a status is now: NodeNotReady');
    // The node lifecycle controller follows with the not-ready taints.
    await eventually('the not-ready taints', async () =>
      ((await node('worker-a')).spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoExecute'),
    );
  });
});
