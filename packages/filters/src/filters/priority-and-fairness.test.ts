// The priority-and-fairness filter, mirroring upstream's priority-and-fairness_test.go: each test is
// named after the upstream test whose property it checks. The filter runs on a fake context (the
// state the filters before it leave) over a real FlowController with a small configuration: a
// Reject level (catch-all) and a Queue level ("queued", for user "waiter"), one seat each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { DroppedRequestsTracker, FlowController, mandatoryFlowSchemaCatchAll, mandatoryFlowSchemaExempt, type Clock, type FlowSchema, type PriorityLevelConfiguration, type RequestDigest } from '@plat/flowcontrol';
import type { UserInfo } from '@plat/authn';
import type { RequestContext } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import { FLOW_SCHEMA_UID_HEADER, PRIORITY_LEVEL_UID_HEADER, WatchTracker, priorityAndFairnessFilter, requestWaitUntil, type FlowControlObserver, type PriorityAndFairnessOptions } from './priority-and-fairness.js';

const clock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

const levels: PriorityLevelConfiguration[] = [
  { metadata: { name: 'exempt', uid: 'pl-exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
  { metadata: { name: 'catch-all', uid: 'pl-catch-all' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } } } },
  {
    metadata: { name: 'queued', uid: 'pl-queued' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 10 } } } },
  },
];
const schemas: FlowSchema[] = [
  { ...mandatoryFlowSchemaExempt, metadata: { name: 'exempt', uid: 'fs-exempt' } },
  { ...mandatoryFlowSchemaCatchAll, metadata: { name: 'catch-all', uid: 'fs-catch-all' } },
  {
    metadata: { name: 'waiters', uid: 'fs-waiters' },
    spec: {
      priorityLevelConfiguration: { name: 'queued' },
      matchingPrecedence: 500,
      rules: [{ subjects: [{ kind: 'User', user: { name: 'waiter' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
    },
  },
];

const user = (name: string, ...groups: string[]): UserInfo => ({ name, uid: '', groups: [...groups, 'system:authenticated'] });
const alice = user('alice');
const admin = user('admin', 'system:masters');

const nonResource = (path: string): RequestInfo => ({ isResourceRequest: false, path, verb: 'get', apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] });
const resource = (verb: string, resourceName: string, extra: Partial<RequestInfo> = {}): RequestInfo => ({
  isResourceRequest: true,
  path: `/api/v1/namespaces/ns/${resourceName}`,
  verb,
  apiPrefix: 'api',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: 'ns',
  resource: resourceName,
  subresource: '',
  name: '',
  parts: [resourceName],
  ...extra,
});

interface FakeContext {
  ctx: RequestContext;
  headers: Record<string, string>;
  /** The client goes away (or the response ends): the response's close. */
  close(): void;
}

function fakeContext(requestInfo: RequestInfo, requestUser: UserInfo, extra: Partial<RequestContext['state']> = {}): FakeContext {
  const res = Object.assign(new EventEmitter(), { destroyed: false });
  const headers: Record<string, string> = {};
  const ctx = {
    state: { requestInfo, user: requestUser, ...extra },
    res,
    method: requestInfo.verb === 'get' || requestInfo.verb === 'list' || requestInfo.verb === 'watch' ? 'GET' : 'POST',
    querystring: '',
    status: 404,
    body: undefined as unknown,
    set(name: string, value: string) {
      headers[name] = value;
    },
  };
  return { ctx: ctx as unknown as RequestContext, headers, close: () => res.emit('close') };
}

interface Counts {
  dispatched: number;
  rejected: string[];
  executing: number;
}

function setup(overrides: Partial<PriorityAndFairnessOptions> = {}) {
  const controller = new FlowController(clock, 2);
  controller.configure(levels, schemas);
  const counts: Counts = { dispatched: 0, rejected: [], executing: 0 };
  const observer: FlowControlObserver = {
    dispatched: () => void counts.dispatched++,
    rejected: (_pl, _fs, reason) => void counts.rejected.push(reason),
    inQueue: () => {},
    executing: (_pl, _fs, delta) => void (counts.executing += delta),
  };
  const options: PriorityAndFairnessOptions = {
    controller,
    sources: { objectCount: () => 'not-found', watchCount: () => 0 },
    droppedRequests: new DroppedRequestsTracker(() => Date.now()),
    defaultWaitLimitMs: 15_000,
    now: clock.now,
    watches: new WatchTracker(),
    observer,
    ...overrides,
  };
  return { filter: priorityAndFairnessFilter(options), controller, counts };
}

/** Runs a request whose handler waits until released; resolves `entered` once it runs. */
function holdingRequest(filter: ReturnType<typeof setup>['filter'], fake: FakeContext) {
  let release!: () => void;
  let entered!: () => void;
  const enteredP = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = filter(fake.ctx, async () => {
    entered();
    await released;
    fake.ctx.status = 200;
  });
  return {
    entered: enteredP,
    done,
    finish: async () => {
      release();
      await done;
      fake.close();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('TestApfSkipLongRunningRequest: exec, attach, log, portforward and proxy are served without a seat, even when none is free', async () => {
  const { filter, counts } = setup();
  const holder = holdingRequest(filter, fakeContext(nonResource('/version'), alice));
  await holder.entered;
  for (const info of [resource('create', 'pods', { subresource: 'exec', name: 'p' }), resource('get', 'pods', { subresource: 'log', name: 'p' }), resource('proxy', 'services', { name: 's' })]) {
    let served = false;
    const fake = fakeContext(info, alice);
    await filter(fake.ctx, async () => {
      served = true;
    });
    assert.ok(served, `${info.verb} ${info.resource}/${info.subresource}`);
    assert.equal(fake.headers[FLOW_SCHEMA_UID_HEADER], undefined, 'not classified');
  }
  assert.equal(counts.dispatched, 1, 'only the held request was dispatched');
  await holder.finish();
});

test("TestApfRejectRequest: over the level's limit, upstream's plain-text 429 with Retry-After and the classification's UIDs", async () => {
  const { filter, counts } = setup();
  const holder = holdingRequest(filter, fakeContext(nonResource('/version'), alice));
  await holder.entered;
  const fake = fakeContext(resource('list', 'configmaps'), alice);
  let served = false;
  await filter(fake.ctx, async () => {
    served = true;
  });
  assert.equal(served, false);
  assert.equal(fake.ctx.status, 429);
  assert.equal(fake.ctx.body, 'Too many requests, please try again later.\n');
  assert.deepEqual(fake.headers, {
    [FLOW_SCHEMA_UID_HEADER]: 'fs-catch-all',
    [PRIORITY_LEVEL_UID_HEADER]: 'pl-catch-all',
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Retry-After': '1',
  });
  assert.equal(fake.ctx.state.terminated, true, 'counted in apiserver_request_terminations_total');
  assert.deepEqual(counts.rejected, ['concurrency-limit']);
  await holder.finish();
});

test('TestApfExemptRequest: system:masters is served at once while every seat is taken', async () => {
  const { filter } = setup();
  const holder = holdingRequest(filter, fakeContext(nonResource('/version'), alice));
  await holder.entered;
  const fake = fakeContext(resource('list', 'configmaps'), admin);
  let served = false;
  await filter(fake.ctx, async () => {
    served = true;
  });
  assert.ok(served);
  assert.equal(fake.headers[FLOW_SCHEMA_UID_HEADER], 'fs-exempt');
  assert.equal(fake.headers[PRIORITY_LEVEL_UID_HEADER], 'pl-exempt');
  await holder.finish();
});

test('TestApfExecuteRequest: a request is dispatched, executed with the headers set, and its seat freed when its response closes', async () => {
  const { filter, counts } = setup();
  const fake = fakeContext(nonResource('/version'), alice);
  let served = false;
  await filter(fake.ctx, async () => {
    served = true;
    assert.equal(fake.headers[PRIORITY_LEVEL_UID_HEADER], 'pl-catch-all', 'set before the handler runs');
  });
  assert.ok(served);
  assert.equal(counts.dispatched, 1);
  assert.equal(counts.executing, 1, 'the seat is held while the body may still stream');
  fake.close();
  await tick();
  assert.equal(counts.executing, 0);
  // The seat is free again: the next request is served.
  const next = fakeContext(nonResource('/version'), alice);
  await filter(next.ctx, async () => {});
  assert.equal(next.ctx.status, 404, 'not refused');
  next.close();
});

test('TestApfCancelWaitRequest: a waiting request whose client goes away leaves its queue and is not answered', async () => {
  const { filter, counts, controller } = setup();
  const waiter = user('waiter');
  const holder = holdingRequest(filter, fakeContext(nonResource('/version'), waiter));
  await holder.entered;
  const fake = fakeContext(resource('get', 'configmaps', { name: 'c' }), waiter);
  let served = false;
  const waiting = filter(fake.ctx, async () => {
    served = true;
  });
  await tick();
  const queued = controller.snapshot().find((l) => l.priorityLevel.metadata.name === 'queued')!;
  assert.equal(queued.queues.waiting, 1, 'queued behind the holder');
  fake.close();
  await waiting;
  assert.equal(served, false);
  assert.equal(fake.ctx.status, 404, 'no 429 written to a client that has gone');
  assert.deepEqual(counts.rejected, ['time-out']);
  await holder.finish();
});

test('a waiting request past its wait limit gets the 429', async () => {
  const { filter, counts } = setup({ defaultWaitLimitMs: 20 });
  const waiter = user('waiter');
  const holder = holdingRequest(filter, fakeContext(nonResource('/version'), waiter));
  await holder.entered;
  const fake = fakeContext(nonResource('/version'), waiter);
  await filter(fake.ctx, async () => {});
  assert.equal(fake.ctx.status, 429);
  assert.equal(fake.headers[FLOW_SCHEMA_UID_HEADER], 'fs-waiters');
  assert.deepEqual(counts.rejected, ['time-out']);
  await holder.finish();
});

test("TestApfExecuteWatchRequestsWithInitializationSignal: a watch frees its seat once its initial state is written, while it goes on", async () => {
  const { filter, counts } = setup();
  const fake = fakeContext(resource('watch', 'configmaps'), alice);
  let endWatch!: () => void;
  const watching = filter(fake.ctx, async () => {
    // The watch verb: the initial state written, then events for as long as the watch lasts.
    fake.ctx.state.watchInitialized!();
    await new Promise<void>((resolve) => (endWatch = resolve));
  });
  await tick();
  assert.equal(counts.executing, 0, 'the seat is free while the watch goes on');
  const other = fakeContext(nonResource('/version'), alice);
  let served = false;
  await filter(other.ctx, async () => {
    served = true;
  });
  assert.ok(served, 'the one seat was given to another request');
  other.close();
  endWatch();
  await watching;
  fake.close();
});

test('a watch that never signals holds its seat until it ends; a second watch waits behind it', async () => {
  const { filter, counts } = setup();
  const fake = fakeContext(resource('watch', 'configmaps'), alice);
  let endWatch!: () => void;
  const watching = filter(fake.ctx, () => new Promise<void>((resolve) => (endWatch = resolve)));
  await tick();
  assert.equal(counts.executing, 1);
  const refused = fakeContext(resource('watch', 'configmaps'), alice);
  await filter(refused.ctx, async () => {});
  assert.equal(refused.ctx.status, 429, 'TestApfRejectWatchRequestsWithInitializationSignal');
  endWatch();
  await watching;
  assert.equal(counts.executing, 0);
  fake.close();
});

test('TestApfWithRequestDigest: the controller classifies the request info and the (impersonated) user the filters before left', async () => {
  const { controller } = setup();
  const seen: RequestDigest[] = [];
  const handle = controller.handle.bind(controller);
  controller.handle = (digest, estimate, options) => {
    seen.push(digest);
    return handle(digest, estimate, options);
  };
  const { filter } = setup({ controller });
  const impersonated = user('waiter', 'team');
  const fake = fakeContext(resource('get', 'secrets', { name: 's' }), impersonated, { impersonator: admin });
  await filter(fake.ctx, async () => {});
  assert.deepEqual(seen, [
    {
      user: impersonated,
      requestInfo: { isResourceRequest: true, verb: 'get', path: '/api/v1/namespaces/ns/secrets', apiGroup: '', namespace: 'ns', resource: 'secrets', subresource: '', name: 's' },
    },
  ]);
  assert.equal(fake.headers[FLOW_SCHEMA_UID_HEADER], 'fs-waiters', 'classified as the impersonated user, not as system:masters');
  fake.close();
});

test('TestGetRequestWaitContext: a quarter of the time the deadline allows from receipt, the default without one, never more than a minute', () => {
  const options = { defaultWaitLimitMs: 15_000, now: () => 5_000 };
  const at = (deadline?: { receivedAt: number; at: number }) => requestWaitUntil(fakeContext(nonResource('/'), alice, deadline ? { deadline } : {}).ctx, options);
  assert.equal(at({ receivedAt: 1_000, at: 61_000 }), 16_000, 'deadline/4');
  assert.equal(at({ receivedAt: 1_000, at: 1_000 + 30 * 60_000 }), 61_000, 'capped at one minute');
  assert.equal(at(), 20_000, 'no deadline: now + --request-timeout/4');
});

test('WatchTracker: a write is of interest to watchers of every namespace, of its namespace and of the object', () => {
  const watches = new WatchTracker();
  const forget = [watches.register('', 'pods', '', ''), watches.register('', 'pods', 'a', ''), watches.register('', 'pods', 'a', 'p'), watches.register('', 'pods', 'b', ''), watches.register('apps', 'pods', '', '')];
  assert.equal(watches.interested('', 'pods', 'a', 'p'), 3);
  assert.equal(watches.interested('', 'pods', 'b', 'q'), 2);
  assert.equal(watches.interested('', 'pods', '', 'n'), 1);
  forget[0]!();
  forget[0]!();
  assert.equal(watches.interested('', 'pods', 'a', 'p'), 2, 'forgotten once');
});
