import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventCorrelator, type CoreEvent } from './event-correlator.js';
import { EventRecorder, referenceTo } from './event-recorder.js';
import { silentLogger } from '../logger.js';
import { startTestApi, type TestApi } from '../test-support.js';

const at = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const T0 = Date.parse('2024-05-01T10:00:00Z');

/** An event as the recorder makes one: about namespace team-a, from the namespace controller. */
function made(message: string, now: number, fields: Partial<CoreEvent> = {}): CoreEvent {
  return {
    metadata: { name: `team-a.${now}`, namespace: 'default' },
    involvedObject: { kind: 'Namespace', name: 'team-a', uid: 'u-1', apiVersion: 'v1' },
    reason: 'ContentDeletionFailed',
    message,
    source: { component: 'namespace-controller' },
    firstTimestamp: at(now),
    lastTimestamp: at(now),
    count: 1,
    type: 'Warning',
    reportingComponent: 'namespace-controller',
    reportingInstance: '',
    ...fields,
  };
}

describe('event correlator (client-go tools/record)', () => {
  it('the same event again is a PATCH of count, lastTimestamp and message onto the first', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    const first = correlator.correlate(made('boom', now));
    assert.ok(!first.skip && !first.patch);
    correlator.updateState(first.key, { ...first.event, metadata: { ...first.event.metadata, resourceVersion: '7' } });
    now += 5000;
    const again = correlator.correlate(made('boom', now));
    assert.ok(!again.skip);
    assert.deepEqual(again.patch, { count: 2, lastTimestamp: at(now), message: 'boom' });
    assert.deepEqual([again.event.metadata.name, again.event.metadata.resourceVersion, again.event.firstTimestamp], [`team-a.${T0}`, '7', at(T0)]);
    now += 5000;
    const third = correlator.correlate(made('boom', now));
    assert.ok(!third.skip);
    assert.equal(third.patch?.count, 3, 'counted even before the server answered the second');
  });

  it('the 10th distinct message within 10 minutes is combined into one event, then counted', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    const outcomes = Array.from({ length: 12 }, (_, i) => {
      now += 1000;
      return correlator.correlate(made(`failure ${i}`, now));
    });
    assert.ok(outcomes.slice(0, 9).every((o) => !o.skip && !o.patch && !o.event.message!.startsWith('(combined')));
    const combined = outcomes[9]!;
    assert.ok(!combined.skip);
    assert.deepEqual([combined.event.message, combined.event.count, combined.patch], ['(combined from similar events): failure 9', 1, undefined]);
    assert.match(combined.event.metadata.name!, /^team-a\.[0-9a-f]+$/);
    const next = outcomes[10]!;
    assert.ok(!next.skip);
    assert.deepEqual(next.patch, { count: 2, lastTimestamp: at(T0 + 11_000), message: '(combined from similar events): failure 10' });
    assert.equal(next.event.metadata.name, combined.event.metadata.name);
  });

  it('aggregation starts over after 10 quiet minutes', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now, maxSimilar: 3 });
    correlator.correlate(made('a', now));
    correlator.correlate(made('b', now));
    now += 600_001;
    const third = correlator.correlate(made('c', now));
    assert.ok(!third.skip && !third.event.message!.startsWith('(combined'));
  });

  it('the spam filter: 25 events about one object at once, then one per 5 minutes; other objects are apart', () => {
    let now = T0;
    const correlator = new EventCorrelator({ now: () => now });
    const skipped = (message: string, fields: Partial<CoreEvent> = {}): boolean => correlator.correlate(made(message, now, fields)).skip;
    const first = Array.from({ length: 30 }, (_, i) => skipped(`m${i % 5}`, { reason: `R${i}` }));
    assert.deepEqual([first.filter((s) => !s).length, first.slice(25).every(Boolean)], [25, true]);
    assert.equal(skipped('other', { involvedObject: { kind: 'Namespace', name: 'team-b', uid: 'u-2', apiVersion: 'v1' } }), false);
    now += 299_000;
    assert.equal(skipped('later', { reason: 'Later' }), true);
    now += 1_000;
    assert.equal(skipped('later', { reason: 'Later' }), false);
  });
});

describe('event recorder against an API server', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('records an event in the object\'s namespace (default for a cluster-scoped one), then counts repeats by PATCH', async () => {
    const recorder = new EventRecorder(api.client, { component: 'namespace-controller', logger: silentLogger });
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'u-1', resourceVersion: '5' } };
    recorder.event(referenceTo(namespace), 'Warning', 'ContentDeletionFailed', 'could not delete');
    await recorder.flush();
    const events = api.client.resource<CoreEvent>({ group: '', version: 'v1', resource: 'events', namespaced: true }).namespace('default');
    const [first] = (await events.list({ fieldSelector: 'involvedObject.name=team-a' })).items;
    assert.ok(first);
    assert.deepEqual(
      [first.type, first.reason, first.message, first.count, first.source, first.reportingComponent, first.involvedObject],
      ['Warning', 'ContentDeletionFailed', 'could not delete', 1, { component: 'namespace-controller' }, 'namespace-controller', { kind: 'Namespace', name: 'team-a', uid: 'u-1', apiVersion: 'v1', resourceVersion: '5' }],
    );
    assert.match(first.metadata.name!, /^team-a\.[0-9a-f]{16,}$/);
    recorder.event(referenceTo(namespace), 'Warning', 'ContentDeletionFailed', 'could not delete');
    recorder.event(referenceTo(namespace), 'Warning', 'ContentDeletionFailed', 'could not delete');
    await recorder.flush();
    const all = (await events.list({ fieldSelector: 'involvedObject.name=team-a' })).items;
    assert.deepEqual(all.map((e) => [e.metadata.name, e.count]), [[first.metadata.name, 3]]);
  });

  it('an event whose earlier self is gone is created anew; one the server refuses is dropped, not retried', async () => {
    const recorder = new EventRecorder(api.client, { component: 'test', logger: silentLogger, retryDelayMs: 10 });
    const pod = { metadata: { name: 'web', namespace: 'default', uid: 'p' } };
    const events = api.client.resource<CoreEvent>({ group: '', version: 'v1', resource: 'events', namespaced: true }).namespace('default');
    recorder.event(referenceTo(pod, 'v1', 'Pod'), 'Normal', 'Started', 'started');
    await recorder.flush();
    const [written] = (await events.list({ fieldSelector: 'involvedObject.name=web' })).items;
    await events.delete(written!.metadata.name!);
    recorder.event(referenceTo(pod, 'v1', 'Pod'), 'Normal', 'Started', 'started');
    await recorder.flush();
    const again = (await events.list({ fieldSelector: 'involvedObject.name=web' })).items;
    assert.deepEqual(again.map((e) => [e.metadata.name, e.count]), [[written!.metadata.name, 2]]);
    // In a namespace that does not exist: a 404 from the server, dropped at once.
    recorder.event({ kind: 'Pod', namespace: 'missing', name: 'x' }, 'Normal', 'Started', 'started');
    const started = Date.now();
    await recorder.flush();
    assert.ok(Date.now() - started < 1000);
  });
});
