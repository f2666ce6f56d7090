// API Priority and Fairness on an in-process server (--api-domain=k8s.io): the config producer's
// bootstrap objects (1.28's names, the autoupdate-spec annotation, its field manager; a deleted
// suggested object recreated, an operator's opt-out kept, a dangling bootstrap object removed,
// the mandatory spec put back), the consumer's Dangling conditions, a FlowSchema taking effect at
// once, the response headers, the 429 of a Reject level for one user while another is served,
// the metrics and the debug dumps.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '@plat/authn';
import { startInProcessApiServer, type InProcessApiServer } from '../testing/index.js';

const V3 = '/apis/flowcontrol.apiserver.k8s.io/v1beta3';
const FS_NAMES = [
  'catch-all',
  'endpoint-controller',
  'exempt',
  'global-default',
  'kube-controller-manager',
  'kube-scheduler',
  'kube-system-service-accounts',
  'probes',
  'service-accounts',
  'system-leader-election',
  'system-node-high',
  'system-nodes',
  'workload-leader-election',
];
const PL_NAMES = ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'];

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('API Priority and Fairness on a server', () => {
  let server: InProcessApiServer;
  const users = new Map<string, UserInfo>([
    ['t-noisy', { name: 'noisy', uid: 'noisy', groups: ['system:authenticated'] }],
    ['t-victim', { name: 'victim', uid: 'victim', groups: ['system:authenticated'] }],
  ]);
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const response = await server.send(method, path, body, { Authorization: `Bearer ${token ?? server.adminToken}` });
    let json: Record<string, any> = {};
    try {
      json = response.body ? (JSON.parse(response.body) as Record<string, any>) : {};
    } catch {
      // a plain-text answer
    }
    return { ...response, json };
  };
  const names = async (resource: string) => ((await call('GET', `${V3}/${resource}`)).json.items as { metadata: { name: string } }[]).map((o) => o.metadata.name).sort();

  before(async () => {
    server = await startInProcessApiServer({
      domain: 'k8s.io',
      users,
      server: { priorityAndFairness: { producerReconcileMs: 200 }, limits: { maxRequestsInflight: 4, maxMutatingRequestsInflight: 2 } },
    });
  });
  after(async () => {
    await server?.stop();
  });

  it("creates upstream 1.28's bootstrap objects, annotated and owned by the config producer", async () => {
    await eventually('the bootstrap FlowSchemas', async () => ((await names('flowschemas')).length === FS_NAMES.length ? true : undefined));
    assert.deepEqual(await names('flowschemas'), FS_NAMES);
    assert.deepEqual(await names('prioritylevelconfigurations'), PL_NAMES);
    const system = (await call('GET', `${V3}/prioritylevelconfigurations/system`)).json;
    assert.equal(system.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'true');
    assert.deepEqual(system.spec.limited, { nominalConcurrencyShares: 30, lendablePercent: 33, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } } });
    assert.equal(system.metadata.managedFields[0].manager, 'api-priority-and-fairness-config-producer-v1');
    const leader = (await call('GET', `${V3}/flowschemas/system-leader-election`)).json;
    assert.deepEqual(leader.spec.rules[0].resourceRules, [{ verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] }]);
    // Nothing is rewritten once in place: a pass that finds them as they should be writes nothing.
    const before = system.metadata.resourceVersion;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await call('GET', `${V3}/prioritylevelconfigurations/system`)).json.metadata.resourceVersion, before);
  });

  it('writes the Dangling condition on every FlowSchema by server-side apply, as the config consumer', async () => {
    const condition = await eventually('the conditions', async () => {
      const fs = (await call('GET', `${V3}/flowschemas/global-default`)).json;
      return fs.status?.conditions?.[0];
    });
    assert.deepEqual(
      { ...condition, lastTransitionTime: undefined },
      { type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists', lastTransitionTime: undefined },
    );
    const fs = (await call('GET', `${V3}/flowschemas/global-default`)).json;
    assert.ok(fs.metadata.managedFields.some((m: { manager: string; subresource?: string }) => m.manager === 'api-priority-and-fairness-config-consumer-v1' && m.subresource === 'status'));
    const created = await call('POST', `${V3}/flowschemas`, { metadata: { name: 'nowhere' }, spec: { priorityLevelConfiguration: { name: 'missing' }, matchingPrecedence: 5000, rules: [] } });
    assert.equal(created.status, 201, created.body);
    const dangling = await eventually('Dangling True', async () => {
      const c = (await call('GET', `${V3}/flowschemas/nowhere`)).json.status?.conditions?.[0];
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(dangling.reason, 'NotFound');
    assert.equal(dangling.message, 'This FlowSchema references the PriorityLevelConfiguration object named "missing" but there is no such object');
  });

  it('recreates a deleted suggested object, keeps one whose annotation says false, removes a dangling bootstrap object and puts back a mandatory spec', async () => {
    assert.equal((await call('DELETE', `${V3}/flowschemas/probes`)).status, 200);
    await eventually('probes recreated', async () => ((await call('GET', `${V3}/flowschemas/probes`)).status === 200 ? true : undefined));

    const workloadLow = (await call('GET', `${V3}/prioritylevelconfigurations/workload-low`)).json;
    workloadLow.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] = 'false';
    workloadLow.spec.limited.nominalConcurrencyShares = 7;
    assert.equal((await call('PUT', `${V3}/prioritylevelconfigurations/workload-low`, workloadLow)).status, 200);

    // A mandatory object's spec is fixed by validation; its annotation is forced back to "true".
    const catchAll = (await call('GET', `${V3}/prioritylevelconfigurations/catch-all`)).json;
    catchAll.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] = 'false';
    assert.equal((await call('PUT', `${V3}/prioritylevelconfigurations/catch-all`, catchAll)).status, 200);

    const stale = await call('POST', `${V3}/prioritylevelconfigurations`, {
      metadata: { name: 'retired', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
    });
    assert.equal(stale.status, 201, stale.body);
    await eventually('catch-all put back and retired removed', async () => {
      const annotation = (await call('GET', `${V3}/prioritylevelconfigurations/catch-all`)).json.metadata.annotations['apf.kubernetes.io/autoupdate-spec'];
      const gone = (await call('GET', `${V3}/prioritylevelconfigurations/retired`)).status === 404;
      return annotation === 'true' && gone ? true : undefined;
    });
    const kept = (await call('GET', `${V3}/prioritylevelconfigurations/workload-low`)).json;
    assert.equal(kept.spec.limited.nominalConcurrencyShares, 7, 'autoupdate-spec "false" is the operator\'s');
  });

  it("classifies each response in the headers; a user's FlowSchema takes effect at once, and its Reject level refuses that user with upstream's 429 while another is served", async () => {
    const version = await call('GET', '/version', undefined, 't-victim');
    const globalDefault = (await call('GET', `${V3}/flowschemas/global-default`)).json;
    assert.equal(version.headers['x-kubernetes-pf-flowschema-uid'], globalDefault.metadata.uid);
    const level = await call('POST', `${V3}/prioritylevelconfigurations`, {
      metadata: { name: 'noisy-level' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
    });
    assert.equal(level.status, 201, level.body);
    const schema = await call('POST', `${V3}/flowschemas`, {
      metadata: { name: 'noisy' },
      spec: {
        priorityLevelConfiguration: { name: 'noisy-level' },
        matchingPrecedence: 500,
        rules: [
          {
            subjects: [{ kind: 'User', user: { name: 'noisy' } }],
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
            nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          },
        ],
      },
    });
    assert.equal(schema.status, 201, schema.body);
    await eventually('the noisy schema in effect', async () => {
      const got = await call('GET', '/api/v1/namespaces/default/configmaps', undefined, 't-noisy');
      return got.headers['x-kubernetes-pf-flowschema-uid'] === schema.json.metadata.uid ? true : undefined;
    }, 2000);
    // Its seats (1 of the server's 6 by its share, and what it may borrow) held by slow requests:
    // the noisy user's next list is refused, the victim's is served.
    const releases: (() => void)[] = [];
    let entered = 0;
    server.server.handle('/slow', async (ctx) => {
      entered++;
      await new Promise<void>((resolve) => releases.push(resolve));
      ctx.body = 'done';
    });
    let settled = 0;
    const slow = Array.from({ length: 8 }, () =>
      call('GET', '/slow', undefined, 't-noisy').then((answer) => {
        settled++;
        return answer;
      }),
    );
    await eventually('each slow request admitted or refused', async () => (entered > 0 && entered + settled === 8 ? true : undefined));
    const r = await call('GET', '/api/v1/namespaces/default/configmaps', undefined, 't-noisy');
    assert.equal(r.status, 429, r.body);
    assert.equal(r.body, 'Too many requests, please try again later.\n');
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.match(String(r.headers['retry-after']), /^[1-9][0-9]*$/);
    assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], schema.json.metadata.uid);
    assert.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], level.json.metadata.uid);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps', undefined, 't-victim')).status, 200, 'another user is served');
    for (const release of releases) release();
    const codes = (await Promise.all(slow)).map((a) => a.status);
    assert.equal(codes.filter((c) => c === 200).length, entered, codes.join(','));
    assert.ok(codes.filter((c) => c === 429).length >= 8 - 2, `at most the level's seats served at once: ${codes.join(',')}`);

    const metrics = (await call('GET', '/metrics')).body;
    assert.match(metrics, /apiserver_flowcontrol_rejected_requests_total\{priority_level="noisy-level",flow_schema="noisy",reason="concurrency-limit"\} [1-9]/);
    assert.match(metrics, /apiserver_flowcontrol_dispatched_requests_total\{priority_level="global-default",flow_schema="global-default"\} [1-9]/);
    assert.match(metrics, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="noisy-level"\} 1/);
    assert.match(metrics, /# HELP apiserver_flowcontrol_current_limit_seats \[ALPHA\] current derived number of execution seats available to each priority level/);
    assert.match(metrics, /apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"\} [1-9]/);
    assert.match(metrics, /apiserver_request_terminations_total\{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"\} [1-9]/);
    assert.match(metrics, /apiserver_dropped_requests_total\{request_kind="readOnly"\} [1-9]/, 'counted as upstream\'s RecordDroppedRequest');
    assert.match(metrics, /apiserver_current_inflight_requests\{request_kind="readOnly"\} 1/, 'what APF executes: the scrape itself');
  });

  it('dumps the priority levels, queues and requests in upstream\'s layout, behind authentication', async () => {
    const levels = await call('GET', '/debug/api_priority_and_fairness/dump_priority_levels');
    assert.equal(levels.status, 200);
    const lines = levels.body.trim().split('\n');
    assert.deepEqual(lines[0]!.split(/,\s+/), ['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests']);
    const listed = lines.slice(1).map((l) => l.split(',')[0]!.trim());
    for (const name of ['catch-all', 'exempt', 'global-default', 'noisy-level', 'workload-low']) assert.ok(listed.includes(name), levels.body);
    const queues = await call('GET', '/debug/api_priority_and_fairness/dump_queues');
    assert.match(queues.body, /^PriorityLevelName,\s+Index,\s+PendingRequests,/);
    assert.match(queues.body, /\nglobal-default,\s+127,/, '128 queues of global-default');
    const requests = await call('GET', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1');
    assert.match(requests.body, /^PriorityLevelName,\s+FlowSchemaName,\s+QueueIndex,\s+RequestIndexInQueue,\s+FlowDistingsher,\s+ArriveTime,\s+InitialSeats,\s+FinalSeats,\s+AdditionalLatency,\s+StartTime,\s+UserName,\s+Verb,/);
    assert.match(requests.body, /\nexempt,\s+exempt,\s+-1,\s+-1,\s+,\s+\S+,\s+1,\s+0,\s+0s,\s+\S+,\s+admin,\s+get,\s+\/debug\/api_priority_and_fairness\/dump_requests,/, 'the dump request itself, executing');
    assert.equal((await server.send('GET', '/debug/api_priority_and_fairness/dump_queues')).status, 401, 'no credentials');
  });
});

describe('API Priority and Fairness: two replicas on one store', () => {
  it('their producers race to the same bootstrap objects and then leave them alone; a FlowSchema reaches both at once', async () => {
    const users = new Map<string, UserInfo>([['t-u1', { name: 'u1', uid: 'u1', groups: ['system:authenticated'] }]]);
    const a = await startInProcessApiServer({ domain: 'k8s.io', users, server: { priorityAndFairness: { producerReconcileMs: 100 } } });
    const b = await startInProcessApiServer({ domain: 'k8s.io', users, storage: a.storage, server: { priorityAndFairness: { producerReconcileMs: 100 } } });
    try {
      const get = async (server: InProcessApiServer, path: string, token?: string) => server.send('GET', path, undefined, { Authorization: `Bearer ${token ?? server.adminToken}` });
      const versions = async () => {
        const fs = JSON.parse((await get(a, `${V3}/flowschemas`)).body) as { items: { metadata: { name: string; resourceVersion: string } }[] };
        const pl = JSON.parse((await get(a, `${V3}/prioritylevelconfigurations`)).body) as { items: { metadata: { name: string; resourceVersion: string } }[] };
        return [...fs.items, ...pl.items].map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
      };
      await eventually('both sets', async () => ((await versions()).length === FS_NAMES.length + PL_NAMES.length ? true : undefined));
      // Let the consumers write their conditions, then no replica writes anything more.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const settled = await versions();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.deepEqual(await versions(), settled, 'ten passes of each producer and consumer, no write');

      const created = await a.send(
        'POST',
        `${V3}/flowschemas`,
        {
          metadata: { name: 'probes-too' },
          spec: { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 3, rules: [{ subjects: [{ kind: 'User', user: { name: 'u1' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] }] },
        },
        { Authorization: `Bearer ${a.adminToken}` },
      );
      assert.equal(created.status, 201, created.body);
      const uid = (JSON.parse(created.body) as { metadata: { uid: string } }).metadata.uid;
      const started = Date.now();
      await eventually('both replicas classify by it', async () => {
        const [onA, onB] = await Promise.all([get(a, '/version', 't-u1'), get(b, '/version', 't-u1')]);
        return onA.headers['x-kubernetes-pf-flowschema-uid'] === uid && onB.headers['x-kubernetes-pf-flowschema-uid'] === uid ? true : undefined;
      });
      assert.ok(Date.now() - started < 1000, `in effect on both within a second (${Date.now() - started} ms)`);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
