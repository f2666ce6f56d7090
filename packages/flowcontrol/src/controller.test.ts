import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '@plat/apimachinery';
import { FlowController, queuingConfigFor, type Admitted, type Rejected } from './controller.js';
import type { RequestDigest } from './matching.js';
import { FakeClock } from './test-support.js';
import type { FlowSchema, PriorityLevelConfiguration } from './types.js';

const one = () => ({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
const authenticated = (name: string): UserInfo => ({ name, groups: ['system:authenticated'] });
const get = (user: UserInfo, namespace = 'ns'): RequestDigest => ({
  user,
  requestInfo: { isResourceRequest: true, verb: 'get', path: `/api/v1/namespaces/${namespace}/configmaps/x`, apiGroup: '', namespace, resource: 'configmaps', subresource: '', name: 'x' },
});

function limited(name: string, shares: number, queuing: { queues: number; handSize: number; queueLengthLimit: number } | undefined, lendablePercent = 0): PriorityLevelConfiguration {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' } } },
  };
}

function forUser(name: string, user: string, pl: string, precedence: number, distinguisher?: 'ByUser' | 'ByNamespace'): FlowSchema {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: {
      priorityLevelConfiguration: { name: pl },
      matchingPrecedence: precedence,
      distinguisherMethod: distinguisher ? { type: distinguisher } : undefined,
      rules: [{ subjects: [{ kind: 'User', user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
    },
  };
}

const admitted = (r: Admitted | Rejected): Admitted => {
  assert.equal(r.admitted, true, JSON.stringify(r.admitted ? '' : r.reason));
  return r as Admitted;
};

describe('the flow controller', () => {
  test('with no objects at all, the built-in exempt and catch-all are used: system:masters is exempt, the rest catch-all', async () => {
    const c = new FlowController(new FakeClock(), 600);
    const masters = await c.handle(get({ name: 'admin', groups: ['system:masters', 'system:authenticated'] }), one);
    assert.equal(admitted(masters).classification.priorityLevel.metadata.name, 'exempt');
    // Built-in copies carry no UID: the response headers then carry empty values.
    assert.equal(masters.classification.flowSchema.metadata.uid, undefined);
    const other = await c.handle(get(authenticated('alice')), one);
    assert.equal(admitted(other).classification.flowSchema.metadata.name, 'catch-all');
    assert.deepEqual(c.snapshot().map((l) => [l.priorityLevel.metadata.name, l.limits.nominalCL]).sort(), [['catch-all', 600], ['exempt', 0]]);
  });

  test('a user put in a level of one seat and no queue gets 429 (concurrency-limit) while another user is served', async () => {
    // 1 share of 1 + 5 (catch-all): a server of 6 seats gives it ceil(6/6) = 1.
    const small = new FlowController(new FakeClock(), 6);
    small.configure([limited('one-seat', 1, undefined)], [forUser('noxu', 'noxu', 'one-seat', 1000)]);
    assert.equal(small.snapshot().find((l) => l.priorityLevel.metadata.name === 'one-seat')!.currentCL, 1);
    const first = admitted(await small.handle(get(authenticated('noxu')), one));
    assert.equal(first.classification.flowSchema.metadata.uid, 'uid-noxu');
    assert.equal(first.classification.priorityLevel.metadata.uid, 'uid-one-seat');
    const second = await small.handle(get(authenticated('noxu')), one);
    assert.deepEqual([second.admitted, second.admitted ? '' : second.reason], [false, 'concurrency-limit']);
    assert.equal(second.classification.priorityLevel.metadata.name, 'one-seat');
    admitted(await small.handle(get(authenticated('victim')), one));
    first.finish();
    admitted(await small.handle(get(authenticated('noxu')), one));
  });

  test('a queued request runs when a seat frees; one left waiting past waitUntil, or whose signal aborts, is rejected time-out', async () => {
    const clock = new FakeClock();
    // One level of 1 share among 1 + 5 at a server limit of 6: 1 seat, queues of 10.
    const c = new FlowController(clock, 6);
    c.configure([limited('q', 1, { queues: 4, handSize: 2, queueLengthLimit: 10 })], [forUser('fs', 'u', 'q', 1000, 'ByUser')]);
    const first = admitted(await c.handle(get(authenticated('u')), one));
    const notes: boolean[] = [];
    const queued = c.handle(get(authenticated('u')), one, { onQueued: (q) => notes.push(q), waitUntil: clock.now() + 15_000 });
    const timedOut = c.handle(get(authenticated('u')), one, { waitUntil: clock.now() + 500 });
    const abort = new AbortController();
    const aborted = c.handle(get(authenticated('u')), one, { signal: abort.signal, waitUntil: clock.now() + 15_000 });
    clock.setTimer(() => abort.abort(), 200);
    clock.setTimer(() => first.finish(), 1000);
    await clock.run(2000);
    assert.equal(((await aborted) as Rejected).reason, 'time-out');
    assert.equal(((await timedOut) as Rejected).reason, 'time-out');
    const second = admitted(await queued);
    assert.equal(second.waitedMs, 1000);
    assert.deepEqual(notes, [true, false]);
    assert.equal(second.classification.flowDistinguisher, 'u');
    await second.execute(async () => {});
    const level = c.snapshot().find((l) => l.priorityLevel.metadata.name === 'q')!;
    assert.deepEqual({ executing: level.queues.executing, waiting: level.queues.waiting, rejected: level.queues.rejected, cancelled: level.queues.cancelled }, { executing: 0, waiting: 0, rejected: 2, cancelled: 2 });
  });

  test('TestTotalRequestsExecutingWithPanic: a request whose handler throws still gives its seat back', async () => {
    const c = new FlowController(new FakeClock(), 600);
    const r = admitted(await c.handle(get(authenticated('alice')), one));
    const executing = () => c.snapshot().find((l) => l.priorityLevel.metadata.name === 'catch-all')!.queues.executing;
    const thrown = new Error('apiserver panic\'d');
    await assert.rejects(
      r.execute(async () => {
        assert.equal(executing(), 1);
        throw thrown;
      }),
      (e) => e === thrown,
    );
    assert.equal(executing(), 0);
  });

  test('the distinguisher is computed only where the level has more than one queue', () => {
    const c = new FlowController(new FakeClock(), 600);
    c.configure([limited('single', 10, { queues: 1, handSize: 1, queueLengthLimit: 10 }), limited('many', 10, { queues: 8, handSize: 2, queueLengthLimit: 10 })], [forUser('a', 'a', 'single', 100, 'ByUser'), forUser('b', 'b', 'many', 100, 'ByNamespace')]);
    assert.equal(c.classify(get(authenticated('a'))).flowDistinguisher, '');
    assert.equal(c.classify(get(authenticated('b'), 'team')).flowDistinguisher, 'team');
  });

  test('configure: Dangling conditions for every schema, broken levels ignored with upstream\'s reasons, max seats per queuing level', () => {
    const c = new FlowController(new FakeClock(), 600);
    const badExempt: PriorityLevelConfiguration = { metadata: { name: 'exempt' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } };
    const broken: PriorityLevelConfiguration = { metadata: { name: 'broken' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } } };
    const got = c.configure([badExempt, broken, limited('wl', 100, { queues: 128, handSize: 6, queueLengthLimit: 50 })], [forUser('to-broken', 'x', 'broken', 500), forUser('to-wl', 'y', 'wl', 600)]);
    assert.deepEqual(got.warnings, [
      'Ignoring PriorityLevelConfiguration object exempt because its spec is broken: non-alignment between name and type',
      'Ignoring PriorityLevelConfiguration object broken because its spec is broken: broken union structure for limit response',
    ]);
    assert.deepEqual(got.dangling.map((d) => [d.flowSchema, d.condition.status, d.condition.reason]), [
      ['to-broken', 'True', 'NotFound'],
      ['to-wl', 'False', 'Found'],
    ]);
    // A dangling schema is skipped: x falls to catch-all.
    assert.equal(c.classify(get(authenticated('x'))).flowSchema.metadata.name, 'catch-all');
    // wl: 100 of 105 shares of 600 → ceil(571.4) = 572 seats; max seats min(ceil(85.8), 572/6) = 86.
    assert.equal(c.maxSeats('wl'), 86);
    assert.equal(c.maxSeats('catch-all'), 0);
    assert.deepEqual(queuingConfigFor({ metadata: { name: 'e' }, spec: { type: 'Exempt', exempt: {} } }), { error: 'non-alignment between name and type' });
  });

  test('a removed level drains: its schema no longer matches it, it keeps its running request, then it goes and the others grow back', async () => {
    const clock = new FakeClock();
    const c = new FlowController(clock, 600);
    const pls = [limited('doomed', 95, { queues: 8, handSize: 2, queueLengthLimit: 10 })];
    c.configure(pls, [forUser('fs', 'u', 'doomed', 1000)]);
    const running = admitted(await c.handle(get(authenticated('u')), one));
    assert.equal(running.classification.priorityLevel.metadata.name, 'doomed');
    c.configure([], [forUser('fs', 'u', 'doomed', 1000)]);
    const doomed = () => c.snapshot().find((l) => l.priorityLevel.metadata.name === 'doomed');
    assert.equal(doomed()?.quiescing, true);
    // Still counted among the shares while draining: catch-all has 5 of 100.
    assert.equal(c.snapshot().find((l) => l.priorityLevel.metadata.name === 'catch-all')!.limits.nominalCL, 30);
    assert.equal(c.classify(get(authenticated('u'))).priorityLevel.metadata.name, 'catch-all');
    running.finish();
    assert.equal(doomed(), undefined);
    assert.equal(c.snapshot().find((l) => l.priorityLevel.metadata.name === 'catch-all')!.limits.nominalCL, 600);
  });

  test('borrowing: a level whose demand was 20 seats for 10 s borrows what an idle level lends', async () => {
    const clock = new FakeClock();
    // Shares A 50, B 50, catch-all 5 at 20 seats: nominal 10, 10, 1; A and B lend half.
    const c = new FlowController(clock, 20);
    c.configure([limited('a', 50, { queues: 4, handSize: 1, queueLengthLimit: 50 }, 50), limited('b', 50, { queues: 4, handSize: 1, queueLengthLimit: 50 }, 50)], [forUser('fa', 'a', 'a', 100), forUser('fb', 'b', 'b', 100)]);
    const level = (n: string) => c.snapshot().find((l) => l.priorityLevel.metadata.name === n)!;
    assert.deepEqual([level('a').currentCL, level('b').currentCL, level('catch-all').currentCL], [10, 10, 2]);
    const pending = Array.from({ length: 20 }, () => c.handle(get(authenticated('b')), one));
    await clock.run(10_000);
    assert.equal(level('b').queues.executing, 10);
    c.adjustBorrowing();
    // B: demand 20 (high watermark, average) → lower bound 10, target 20; A: lower bound 5 (it lends 5),
    // target 5; catch-all 1; so 21 = 5 + 1 + f·20 → B ≈ 15.
    assert.deepEqual(level('b').seatDemand, { avg: 20, stdDev: 0, highWatermark: 20, smoothed: 20 });
    assert.deepEqual([level('a').currentCL, level('b').currentCL, level('catch-all').currentCL, level('exempt').currentCL], [5, 15, 1, 0]);
    assert.equal(level('b').queues.executing, 15, 'the raised limit dispatches at once');
    for (const p of pending) void p.then((r) => (r.admitted ? r.finish() : undefined));
    await clock.run();
  });
});
