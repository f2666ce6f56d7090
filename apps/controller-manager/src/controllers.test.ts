// The controllers against an in-process API server: each behaviour in a namespace of its own.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventRecorder, InformerFactory, RateLimitingQueue, silentLogger, type KubeObject } from '@plat/client';
import type { ControllerContext } from './controllers/context.js';
import { GarbageCollector, GraphNode } from './controllers/garbage-collector.js';
import { ResourceMap } from './resources.js';
import type { ClusterRole } from './controllers/cluster-role-aggregation.js';
import type { Namespace } from './controllers/namespace.js';
import type { Node } from './controllers/node-lifecycle.js';
import { eventually, isGone, ownerRef, rbacGroup, refs, startTestCluster, type TestCluster } from './test-support.js';

describe('controllers', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.close());

  const api = () => cluster.client;
  const createNamespace = (name: string) => api().resource(refs.namespaces).create({ metadata: { name } });
  const accounts = (ns: string) => api().resource(refs.serviceAccounts).namespace(ns);

  describe('service accounts', () => {
    it('every namespace gets a default ServiceAccount, the system ones included', async () => {
      await createNamespace('sa-new');
      await eventually('default in sa-new', async () => !!(await accounts('sa-new').get('default')));
      await eventually('default in plat-system', async () => !!(await accounts('plat-system').get('default')));
    });

    it('a deleted default ServiceAccount comes back', async () => {
      await createNamespace('sa-again');
      await eventually('default', async () => !!(await accounts('sa-again').get('default')));
      const first = await accounts('sa-again').get('default');
      await accounts('sa-again').delete('default');
      await eventually('a new default', async () => (await accounts('sa-again').get('default')).metadata.uid !== first.metadata.uid);
    });
  });

  describe('node lifecycle', () => {
    const nodes = () => api().resource<Node>(refs.nodes);
    const leases = () => api().resource(refs.leases).namespace('plat-node-lease');
    const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const readyOf = async (name: string) => (await nodes().get(name)).status?.conditions?.find((c) => c.type === 'Ready');
    const taintsOf = async (name: string) => ((await nodes().get(name)).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`);
    const renew = async (name: string) => {
      const lease = await leases().get(name);
      await leases().update({ ...lease, spec: { ...(lease as { spec?: object }).spec, renewTime: new Date().toISOString().replace('Z', '000Z') } } as KubeObject);
    };

    it('a node whose lease is renewed stays Ready; silent past the grace period it turns Unknown and unreachable; back when it reports again', async () => {
      await nodes().create({ metadata: { name: 'life-1' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', lastHeartbeatTime: now(), lastTransitionTime: now() }] } });
      await leases().create({ metadata: { name: 'life-1' }, spec: { holderIdentity: 'life-1', leaseDurationSeconds: 1, renewTime: new Date().toISOString().replace('Z', '000Z') } } as KubeObject);
      // Renewals alone (no status posts) keep it Ready for well past the 800 ms grace period.
      for (let i = 0; i < 8; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await renew('life-1');
      }
      assert.equal((await readyOf('life-1'))?.status, 'True');
      assert.deepEqual(await taintsOf('life-1'), []);
      // Silence: Unknown, with upstream's reason, and the unreachable taints.
      await eventually('Ready Unknown', async () => (await readyOf('life-1'))?.status === 'Unknown');
      const unknown = await readyOf('life-1');
      assert.equal(unknown?.reason, 'NodeStatusUnknown');
      assert.equal(unknown?.message, 'Kubelet stopped posting node status.');
      const conditions = (await nodes().get('life-1')).status?.conditions ?? [];
      assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}`).sort(), ['DiskPressure=Unknown', 'MemoryPressure=Unknown', 'PIDPressure=Unknown', 'Ready=Unknown']);
      await eventually('unreachable taints', async () => (await taintsOf('life-1')).length === 2);
      assert.deepEqual(await taintsOf('life-1'), ['node.plat.io/unreachable:NoSchedule', 'node.plat.io/unreachable:NoExecute']);
      const noExecute = (await nodes().get('life-1')).spec?.taints?.find((t) => t.effect === 'NoExecute');
      assert.ok(noExecute?.timeAdded);
      // The agent is back: it renews and posts Ready; the taints go.
      await renew('life-1');
      const node = await nodes().get('life-1');
      const back = (node.status?.conditions ?? []).map((c) => (c.type === 'Ready' ? { ...c, status: 'True', reason: 'AgentReady', lastHeartbeatTime: now(), lastTransitionTime: now() } : c));
      await nodes().update({ ...node, status: { ...node.status, conditions: back } }, { subresource: 'status' });
      await eventually('taints removed', async () => (await taintsOf('life-1')).length === 0);
      await nodes().delete('life-1');
    });

    it('Ready False brings the not-ready taints; other taints are left alone', async () => {
      await nodes().create({
        metadata: { name: 'life-2' },
        spec: { taints: [{ key: 'dedicated', value: 'edge', effect: 'NoSchedule' }] },
        status: { conditions: [{ type: 'Ready', status: 'False', reason: 'AgentNotReady', lastHeartbeatTime: now(), lastTransitionTime: now() }] },
      });
      await eventually('not-ready taints', async () => (await taintsOf('life-2')).length === 3);
      assert.deepEqual(await taintsOf('life-2'), ['dedicated:NoSchedule', 'node.plat.io/not-ready:NoSchedule', 'node.plat.io/not-ready:NoExecute']);
      await nodes().delete('life-2');
    });

    it("events, as upstream's node-controller records them: RegisteredNode, NodeNotReady when it marks a Ready node Unknown, RemovingNode", async () => {
      const created = await nodes().create({ metadata: { name: 'life-4' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', lastHeartbeatTime: now(), lastTransitionTime: now() }] } });
      type NodeEvent = KubeObject & { reason: string; message: string; type: string; source: { component: string }; involvedObject: Record<string, string> };
      const eventsOf = async (): Promise<NodeEvent[]> =>
        ((await api().resource(refs.events).namespace('default').list({ fieldSelector: 'involvedObject.name=life-4' })).items as NodeEvent[]).sort((a, b) =>
          a.metadata.creationTimestamp! < b.metadata.creationTimestamp! ? -1 : 1,
        );
      await eventually('NodeNotReady', async () => (await eventsOf()).some((e) => e.reason === 'NodeNotReady'));
      await nodes().delete('life-4');
      await eventually('RemovingNode', async () => (await eventsOf()).some((e) => e.reason === 'RemovingNode'));
      const recorded = await eventsOf();
      assert.deepEqual(
        recorded.map((e) => [e.reason, e.message, e.type, e.source.component]),
        [
          ['RegisteredNode', 'Node life-4 event: Registered Node life-4 in Controller', 'Normal', 'node-controller'],
          ['NodeNotReady', 'Node life-4 status is now: NodeNotReady', 'Normal', 'node-controller'],
          ['RemovingNode', 'Node life-4 event: Removing Node life-4 from Controller', 'Normal', 'node-controller'],
        ],
      );
      for (const event of recorded) assert.deepEqual(event.involvedObject, { kind: 'Node', name: 'life-4', uid: created.metadata.uid!, apiVersion: 'v1' });
    });

    it('a node that never reported gets NodeStatusNeverUpdated after the startup grace period', async () => {
      await nodes().create({ metadata: { name: 'life-3' } });
      await eventually('Ready Unknown', async () => (await readyOf('life-3'))?.reason === 'NodeStatusNeverUpdated');
      assert.equal((await readyOf('life-3'))?.message, 'Kubelet never posted node status.');
      await nodes().delete('life-3');
    });
  });

  describe('cluster role aggregation', () => {
    const roles = () => api().resource<ClusterRole>(refs.clusterRoles);
    const rule = (resource: string) => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });
    const rulesOf = async (name: string) => (await roles().get(name)).rules ?? [];

    it('unites the rules of matching roles and follows label changes and direct edits', async () => {
      await roles().create({ metadata: { name: 'agg-a', labels: { 'agg-test': 'true' } }, rules: [rule('pods'), rule('services')] });
      await roles().create({ metadata: { name: 'agg-b', labels: { 'agg-test': 'true' } }, rules: [rule('services'), rule('secrets')] });
      await roles().create({ metadata: { name: 'agg-c' }, rules: [rule('nodes')] });
      await roles().create({
        metadata: { name: 'agg-total' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'agg-test': 'true' } }] },
      });
      await eventually('aggregated rules', async () => (await rulesOf('agg-total')).length === 3);
      assert.deepEqual(await rulesOf('agg-total'), [rule('pods'), rule('services'), rule('secrets')]);

      // A role that gains the label joins; one that loses it leaves.
      const c = await roles().get('agg-c');
      await roles().update({ ...c, metadata: { ...c.metadata, labels: { 'agg-test': 'true' } } });
      await eventually('agg-c joined', async () => (await rulesOf('agg-total')).some((r) => r.resources?.[0] === 'nodes'));
      const a = await roles().get('agg-a');
      await roles().update({ ...a, metadata: { ...a.metadata, labels: {} } });
      await eventually('agg-a left', async () => !(await rulesOf('agg-total')).some((r) => r.resources?.[0] === 'pods'));
      assert.deepEqual(await rulesOf('agg-total'), [rule('services'), rule('secrets'), rule('nodes')]);

      // Direct edits are overwritten.
      const total = await roles().get('agg-total');
      await roles().update({ ...total, rules: [rule('everything')] });
      await eventually('edit overwritten', async () => (await rulesOf('agg-total')).length === 3);

      // Deleting a member removes its rules.
      await roles().delete('agg-c');
      await eventually('agg-c gone', async () => (await rulesOf('agg-total')).length === 2);
    });
  });

  describe('namespace deletion', () => {
    it('deletes everything in a terminating namespace, then the namespace', async () => {
      await createNamespace('doomed');
      const kinds = [
        [refs.serviceAccounts, (i: number) => ({ metadata: { name: `sa-${i}` } })],
        [refs.limitRanges, (i: number) => ({ metadata: { name: `lr-${i}` }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } })],
        [refs.leases, (i: number) => ({ metadata: { name: `lease-${i}` }, spec: { holderIdentity: 'x' } })],
        [refs.roles, (i: number) => ({ metadata: { name: `role-${i}` }, rules: [] })],
        [
          refs.roleBindings,
          (i: number) => ({ metadata: { name: `rb-${i}` }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u', apiGroup: rbacGroup }] }),
        ],
      ] as const;
      for (const [ref, make] of kinds) {
        for (let i = 0; i < 8; i++) await api().resource(ref).namespace('doomed').create(make(i) as KubeObject);
      }
      await api().resource(refs.namespaces).delete('doomed');
      const terminating = await api().resource<Namespace>(refs.namespaces).get('doomed');
      assert.equal(terminating.status?.phase, 'Terminating');
      await eventually('the namespace gone', () => isGone(api(), refs.namespaces, '', 'doomed'), 10_000);
      for (const [ref] of kinds) assert.deepEqual((await api().resource(ref).namespace('doomed').list()).items, [], ref.resource);
    });

    it('waits for finalizers on its content and reports them in conditions', async () => {
      await createNamespace('held');
      await accounts('held').create({ metadata: { name: 'kept', finalizers: ['example.com/hold'] } });
      await api().resource(refs.namespaces).delete('held');
      await eventually('conditions', async () => {
        const ns = await api().resource<Namespace>(refs.namespaces).get('held');
        return (ns.status?.conditions ?? []).some((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True');
      });
      const ns = await api().resource<Namespace>(refs.namespaces).get('held');
      const conditions = new Map((ns.status?.conditions ?? []).map((c) => [c.type, c]));
      assert.deepEqual([...conditions.keys()], [
        'NamespaceDeletionDiscoveryFailure',
        'NamespaceDeletionGroupVersionParsingFailure',
        'NamespaceDeletionContentFailure',
        'NamespaceContentRemaining',
        'NamespaceFinalizersRemaining',
      ]);
      assert.equal(conditions.get('NamespaceDeletionDiscoveryFailure')?.status, 'False');
      assert.equal(conditions.get('NamespaceDeletionDiscoveryFailure')?.reason, 'ResourcesDiscovered');
      assert.deepEqual(
        [conditions.get('NamespaceContentRemaining')?.reason, conditions.get('NamespaceContentRemaining')?.message],
        ['SomeResourcesRemain', 'Some resources are remaining: serviceaccounts has 1 resource instances'],
      );
      assert.equal(
        conditions.get('NamespaceFinalizersRemaining')?.message,
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      );
      assert.deepEqual(ns.spec?.finalizers, ['plat']);
      // Once the finalizer is gone the namespace goes (after upstream's estimate: 8 s at most).
      const kept = await accounts('held').get('kept');
      await accounts('held').update({ ...kept, metadata: { ...kept.metadata, finalizers: [] } });
      await eventually('the namespace gone', () => isGone(api(), refs.namespaces, '', 'held'), 12_000);
    });
  });

  describe('garbage collector', () => {
    const owner = (ns: string) => accounts(ns).create({ metadata: { name: 'owner' } });
    const dependents = async (ns: string, of: KubeObject, block: boolean) => {
      const roles = api().resource(refs.roles).namespace(ns);
      for (const name of ['d1', 'd2', 'd3']) {
        await roles.create({ metadata: { name, ownerReferences: [ownerRef(of, 'v1', 'ServiceAccount', block)] }, rules: [] });
      }
    };
    const roleNames = async (ns: string) => (await api().resource(refs.roles).namespace(ns).list()).items.map((r) => r.metadata.name);

    it('Background: the owner goes at once, its dependents after it', async () => {
      await createNamespace('gc-bg');
      const o = await owner('gc-bg');
      await dependents('gc-bg', o, false);
      await accounts('gc-bg').delete('owner', { propagationPolicy: 'Background' });
      assert.ok(await isGone(api(), refs.serviceAccounts, 'gc-bg', 'owner'));
      await eventually('dependents gone', async () => (await roleNames('gc-bg')).length === 0);
    });

    it('Foreground: the owner waits, marked, until its blocking dependents are gone', async () => {
      await createNamespace('gc-fg');
      const o = await owner('gc-fg');
      await dependents('gc-fg', o, true);
      const marked = (await accounts('gc-fg').delete('owner', { propagationPolicy: 'Foreground' })) as KubeObject;
      assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
      assert.ok(marked.metadata.deletionTimestamp);
      await eventually('owner gone', () => isGone(api(), refs.serviceAccounts, 'gc-fg', 'owner'));
      assert.deepEqual(await roleNames('gc-fg'), []);
    });

    it('Orphan: the dependents stay and lose their references; then the owner goes', async () => {
      await createNamespace('gc-orphan');
      const o = await owner('gc-orphan');
      await dependents('gc-orphan', o, true);
      const marked = (await accounts('gc-orphan').delete('owner', { propagationPolicy: 'Orphan' })) as KubeObject;
      assert.deepEqual(marked.metadata.finalizers, ['orphan']);
      await eventually('owner gone', () => isGone(api(), refs.serviceAccounts, 'gc-orphan', 'owner'));
      const left = (await api().resource(refs.roles).namespace('gc-orphan').list()).items;
      assert.deepEqual(left.map((r) => [r.metadata.name, r.metadata.ownerReferences]), [['d1', undefined], ['d2', undefined], ['d3', undefined]]);
    });

    it('an object whose owner never existed, or was replaced under the same name, is collected', async () => {
      await createNamespace('gc-dangling');
      const roles = api().resource(refs.roles).namespace('gc-dangling');
      await roles.create({ metadata: { name: 'orphaned', ownerReferences: [{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'ghost', uid: 'no-such-uid' }] }, rules: [] });
      const o = await owner('gc-dangling');
      await roles.create({ metadata: { name: 'stale', ownerReferences: [{ ...ownerRef(o, 'v1', 'ServiceAccount'), uid: 'an-older-uid' }] }, rules: [] });
      await roles.create({ metadata: { name: 'owned', ownerReferences: [ownerRef(o, 'v1', 'ServiceAccount')] }, rules: [] });
      await eventually('the dangling ones gone', async () => (await roleNames('gc-dangling')).join() === 'owned');
    });

    it('an object with one owner left keeps living and loses the reference to the gone one', async () => {
      await createNamespace('gc-two');
      const first = await accounts('gc-two').create({ metadata: { name: 'first' } });
      const second = await accounts('gc-two').create({ metadata: { name: 'second' } });
      const roles = api().resource(refs.roles).namespace('gc-two');
      await roles.create({
        metadata: { name: 'shared', ownerReferences: [ownerRef(first, 'v1', 'ServiceAccount'), ownerRef(second, 'v1', 'ServiceAccount')] },
        rules: [],
      });
      await accounts('gc-two').delete('first');
      await eventually('the reference removed', async () => (await roles.get('shared')).metadata.ownerReferences?.length === 1);
      assert.equal((await roles.get('shared')).metadata.ownerReferences?.[0]?.name, 'second');
      await accounts('gc-two').delete('second');
      await eventually('collected with its last owner', () => isGone(api(), refs.roles, 'gc-two', 'shared'));
    });

    it('cluster-scoped owners: a ClusterRole owns namespaced dependents', async () => {
      await createNamespace('gc-cluster');
      const role = await api().resource(refs.clusterRoles).create({ metadata: { name: 'gc-cluster-owner' }, rules: [] });
      const roles = api().resource(refs.roles).namespace('gc-cluster');
      const owned = ownerRef(role, `${rbacGroup}/v1`, 'ClusterRole');
      await roles.create({ metadata: { name: 'dep', ownerReferences: [owned] }, rules: [] });
      // A second dependent also names an owner that never existed: the collector, having judged it,
      // removes that reference and keeps the object for its live ClusterRole. That is the evidence
      // that the collector has looked, where a dependent of a live owner alone shows no change.
      const ghost = { apiVersion: 'v1', kind: 'ServiceAccount', name: 'ghost', uid: 'no-such-uid' };
      await roles.create({ metadata: { name: 'judged', ownerReferences: [owned, ghost] }, rules: [] });
      await eventually('the reference to the absent owner removed', async () => (await roles.get('judged')).metadata.ownerReferences?.length === 1);
      assert.deepEqual((await roles.get('judged')).metadata.ownerReferences, [owned], 'kept for its live owner');
      assert.equal(await isGone(api(), refs.roles, 'gc-cluster', 'dep'), false, 'kept while its owner lives');
      await api().resource(refs.clusterRoles).delete('gc-cluster-owner');
      await eventually('dependents collected', async () => (await roleNames('gc-cluster')).length === 0);
    });
  });
});

describe('garbage collector: a dependent its graph did not know when the owner was orphaned', () => {
  // No controllers run here: the collector under test is driven by hand, its graph empty, as when
  // the dependents' informer is behind the owner's.
  let lone: TestCluster;
  before(async () => {
    lone = await startTestCluster([]);
  });
  after(() => lone.close());

  it('Orphan: a dependent the graph learns of only after the owner is gone is orphaned, not collected', async () => {
    const context: ControllerContext = {
      client: lone.client,
      informers: new InformerFactory(lone.client),
      resources: new ResourceMap(lone.client),
      domain: 'plat.io',
      logger: silentLogger,
      workQueue: (name) => new RateLimitingQueue({ name }),
      events: new EventRecorder(lone.client, { component: 'garbage-collector-controller', logger: silentLogger }),
    };
    await context.resources.refresh();
    const gc = new GarbageCollector(context, context.resources, silentLogger);
    const identity = (o: KubeObject, apiVersion: string, kind: string) => ({
      apiVersion,
      kind,
      namespace: o.metadata.namespace!,
      name: o.metadata.name!,
      uid: o.metadata.uid!,
    });
    await lone.client.resource(refs.namespaces).create({ metadata: { name: 'gc-orphan-late' } });
    const accounts = lone.client.resource(refs.serviceAccounts).namespace('gc-orphan-late');
    const o = await accounts.create({ metadata: { name: 'owner' } });
    const roles = lone.client.resource(refs.roles).namespace('gc-orphan-late');
    const early = await roles.create({ metadata: { name: 'early', ownerReferences: [ownerRef(o, 'v1', 'ServiceAccount')] }, rules: [] });
    await accounts.delete('owner', { propagationPolicy: 'Orphan' });
    // The owner's orphaning, with no dependent in the graph: the finalizer goes, and so does the owner.
    await gc.orphanDependents(new GraphNode(identity(o, 'v1', 'ServiceAccount'), false));
    assert.ok(await isGone(lone.client, refs.serviceAccounts, 'gc-orphan-late', 'owner'));
    // Then the dependent's add reaches the collector: its owner is gone, but it was to be orphaned.
    await gc.attemptToDeleteItem(new GraphNode(identity(early, `${rbacGroup}/v1`, 'Role'), false));
    const kept = await roles.get('early');
    assert.equal(kept.metadata.ownerReferences, undefined);
    // One created after the owner was gone, naming it, is collected as upstream collects it.
    const late = await roles.create({ metadata: { name: 'late', ownerReferences: [ownerRef(o, 'v1', 'ServiceAccount')] }, rules: [] });
    await gc.attemptToDeleteItem(new GraphNode(identity(late, `${rbacGroup}/v1`, 'Role'), false));
    assert.ok(await isGone(lone.client, refs.roles, 'gc-orphan-late', 'late'));
  });
});

describe('controllers with --use-service-account-credentials, under RBAC', () => {
  // The controller-manager's own user has only the bootstrap role system:plat-controller-manager;
  // each controller acts as its service account in plat-system, with its system:controller role.
  let rbac: TestCluster;
  before(async () => {
    rbac = await startTestCluster(undefined, { serviceAccountCredentials: true });
  });
  after(() => rbac.close());

  it('each controller gets its service account, and together they still do their work', async () => {
    const admin = rbac.client;
    const names = ['clusterrole-aggregation-controller', 'generic-garbage-collector', 'namespace-controller', 'node-controller', 'service-account-controller'];
    await eventually('the controllers\' service accounts', async () => {
      const accounts = await admin.resource(refs.serviceAccounts).namespace('plat-system').list();
      return names.every((name) => accounts.items.some((a) => a.metadata.name === name));
    });
    // Service accounts (service-account-controller).
    await admin.resource(refs.namespaces).create({ metadata: { name: 'sa-creds' } });
    await eventually('the default ServiceAccount', async () => !!(await admin.resource(refs.serviceAccounts).namespace('sa-creds').get('default').catch(() => undefined)));
    // Garbage collection (generic-garbage-collector).
    const owner = await admin.resource(refs.serviceAccounts).namespace('sa-creds').create({ metadata: { name: 'owner' } });
    const roles = admin.resource(refs.roles).namespace('sa-creds');
    await roles.create({ metadata: { name: 'owned', ownerReferences: [ownerRef(owner, 'v1', 'ServiceAccount')] }, rules: [] });
    await admin.resource(refs.serviceAccounts).namespace('sa-creds').delete('owner');
    await eventually('the dependent collected', () => isGone(admin, refs.roles, 'sa-creds', 'owned'));
    // Aggregation (clusterrole-aggregation-controller, which needs escalate).
    const clusterRoles = admin.resource(refs.clusterRoles);
    await clusterRoles.create({ metadata: { name: 'sa-creds-part', labels: { 'sa-creds': 'yes' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    await clusterRoles.create({ metadata: { name: 'sa-creds-union' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'sa-creds': 'yes' } }] } } as KubeObject);
    await eventually('the rules aggregated', async () => ((await clusterRoles.get('sa-creds-union')) as { rules?: unknown[] }).rules?.length === 1);
    // Node lifecycle (node-controller): a silent node marked Unknown and tainted.
    await admin.resource<Node>(refs.nodes).create({ metadata: { name: 'sa-creds-node' } });
    await eventually('the node tainted unreachable', async () =>
      ((await admin.resource<Node>(refs.nodes).get('sa-creds-node')).spec?.taints ?? []).some((t) => t.key === 'node.plat.io/unreachable'),
    );
    // Namespace deletion (namespace-controller).
    await admin.resource(refs.namespaces).delete('sa-creds');
    await eventually('the namespace removed', () => isGone(admin, refs.namespaces, '', 'sa-creds'), 10_000);
  });
});

describe('events the controllers record', () => {
  // Under RBAC, each controller as its service account, so that a role an administrator narrows
  // makes the namespace controller fail as upstream's does: a 403 on a kind it must empty.
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster(['namespace-controller', 'garbage-collector-controller'], { serviceAccountCredentials: true });
  });
  after(() => cluster.close());
  const events = (namespace: string) => cluster.client.resource(refs.events).namespace(namespace);
  const found = async (namespace: string, reason: string): Promise<KubeObject & Record<string, any>> => {
    let event: (KubeObject & Record<string, any>) | undefined;
    await eventually(`a ${reason} event in ${namespace}`, async () => {
      event = (await events(namespace).list({ fieldSelector: `reason=${reason}` })).items[0];
      return event !== undefined;
    }, 15_000);
    return event!;
  };

  it('namespace deletion that fails: a Warning on the namespace, with its condition\'s reason and message, counted while it fails', async () => {
    const admin = cluster.client;
    const clusterRoles = admin.resource(refs.clusterRoles);
    const role = (await clusterRoles.get('system:controller:namespace-controller')) as KubeObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    // An administrator narrows the role: no deleting ServiceAccounts (every other kind still).
    const { resources } = await cluster.client.discovery.serverPreferredResources();
    const groups = [...new Set(resources.map((r) => r.group))].filter((g) => g !== '');
    const coreButServiceAccounts = resources.filter((r) => r.group === '' && r.namespaced && !r.name.includes('/') && r.name !== 'serviceaccounts').map((r) => r.name);
    role.rules = [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['namespaces/finalize', 'namespaces/status'], verbs: ['update'] },
      { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: coreButServiceAccounts, verbs: ['delete', 'deletecollection'] },
      { apiGroups: groups, resources: ['*'], verbs: ['delete', 'deletecollection'] },
      { apiGroups: ['', `events.plat.io`], resources: ['events'], verbs: ['create', 'update', 'patch'] },
    ];
    await clusterRoles.update(role);
    await admin.resource(refs.namespaces).create({ metadata: { name: 'ev-stuck' } });
    await admin.resource(refs.serviceAccounts).namespace('ev-stuck').create({ metadata: { name: 'keeper' } });
    await admin.resource(refs.namespaces).delete('ev-stuck');
    const event = await found('default', 'ContentDeletionFailed');
    assert.deepEqual([event.type, event.involvedObject.kind, event.involvedObject.name, event.source], ['Warning', 'Namespace', 'ev-stuck', { component: 'namespace-controller' }]);
    assert.match(event.message, /^Failed to delete all resource types, 1 remaining: serviceaccounts: serviceaccounts is forbidden: /);
    // The controller tries again (rate limited); the recorder counts the repeats on the one event.
    await eventually('the event counted again', async () => ((await found('default', 'ContentDeletionFailed')).count ?? 0) >= 2, 15_000);
    assert.equal((await events('default').list({ fieldSelector: 'reason=ContentDeletionFailed' })).items.length, 1);
  });

  it('garbage collection: an owner reference to another namespace is OwnerRefInvalidNamespace, on the dependent', async () => {
    const admin = cluster.client;
    await admin.resource(refs.namespaces).create({ metadata: { name: 'ev-owner' } });
    await admin.resource(refs.namespaces).create({ metadata: { name: 'ev-dependent' } });
    const owner = await admin.resource(refs.serviceAccounts).namespace('ev-owner').create({ metadata: { name: 'owner' } });
    // Let the collector see the owner first: then the dependent names an observed owner in another namespace.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await admin.resource(refs.roles).namespace('ev-dependent').create({ metadata: { name: 'stray', ownerReferences: [ownerRef(owner, 'v1', 'ServiceAccount')] }, rules: [] });
    const event = await found('ev-dependent', 'OwnerRefInvalidNamespace');
    assert.deepEqual([event.type, event.involvedObject.kind, event.involvedObject.name, event.source], ['Warning', 'Role', 'stray', { component: 'garbage-collector-controller' }]);
    assert.equal(event.message, `ownerRef [v1/ServiceAccount, namespace: ev-dependent, name: owner, uid: ${owner.metadata.uid}] does not exist in namespace "ev-dependent"`);
    // And a cluster-scoped object naming a namespaced kind as its owner: reported in default.
    await admin.resource(refs.clusterRoles).create({ metadata: { name: 'ev-stray', ownerReferences: [ownerRef(owner, 'v1', 'ServiceAccount')] }, rules: [] } as KubeObject);
    await eventually('the cluster-scoped one reported', async () =>
      (await events('default').list({ fieldSelector: 'reason=OwnerRefInvalidNamespace,involvedObject.name=ev-stray' })).items.length === 1, 15_000);
  });
});
