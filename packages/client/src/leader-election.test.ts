import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from './client.js';
import { ResourceClient } from './resource.js';
import type { RestClient, RestRequest } from './rest.js';
import { LeaderElector, leaseResource, microTime, type LeaderElectionConfig } from './leader-election.js';
import type { Lease } from '@plat/apimachinery';
import { eventually, startRelay, startTestApi, type TestApi } from './test-support.js';

// Short periods keep the tests quick; the ratios are upstream's (15 s, 10 s, 2 s).
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };

interface Candidate {
  elector: LeaderElector;
  controller: AbortController;
  done: Promise<void>;
  started: number[];
  stopped: number[];
  leaders: string[];
}

describe('leader election', () => {
  let api: TestApi;
  let n = 0;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  /** Every candidate a test started: stopped after it, so that a failed test leaves none campaigning. */
  const running: Candidate[] = [];
  afterEach(async () => {
    for (const c of running.splice(0)) {
      c.controller.abort();
      await c.done;
    }
  });

  const leases = (client = api.client) => client.resource<Lease>(leaseResource('plat.io'));
  const readLease = (name: string) => leases().namespace('plat-system').get(name);

  function candidate(identity: string, name: string, extra: Partial<LeaderElectionConfig> = {}, client = api.client): Candidate {
    const started: number[] = [];
    const stopped: number[] = [];
    const leaders: string[] = [];
    const elector = new LeaderElector({
      leases: leases(client),
      namespace: 'plat-system',
      name,
      identity,
      ...timing,
      callbacks: {
        onStartedLeading: () => void started.push(Date.now()),
        onStoppedLeading: () => void stopped.push(Date.now()),
        onNewLeader: (leader) => void leaders.push(leader),
      },
      ...extra,
    });
    const controller = new AbortController();
    const c: Candidate = { elector, controller, done: elector.run(controller.signal), started, stopped, leaders };
    running.push(c);
    return c;
  }

  it('checks its periods as client-go does', () => {
    const base = { leases: leases(), namespace: 'ns', name: 'x', identity: 'me', callbacks: { onStartedLeading() {}, onStoppedLeading() {} } };
    assert.throws(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }), /renewDeadline must be greater than retryPeriod\*JitterFactor/);
    assert.throws(() => new LeaderElector({ ...base, identity: '' }), /identity is empty/);
  });

  it('MicroTime: six fractional digits in UTC', () => {
    assert.equal(microTime(Date.UTC(2024, 4, 1, 10, 0, 0, 123)), '2024-05-01T10:00:00.123000Z');
  });

  it('check (the leaderElection health check): fails only for a leader that has not renewed for retryPeriod + renewDeadline + tolerance', async () => {
    const name = `check-${n++}`;
    let clock = Date.now();
    const base = { leases: leases(), namespace: 'plat-system', name, ...timing, now: () => clock, callbacks: { onStartedLeading() {}, onStoppedLeading() {} } };
    const a = new LeaderElector({ ...base, identity: 'a' });
    const b = new LeaderElector({ ...base, identity: 'b' });
    assert.equal(a.check(1000), undefined, 'not leading yet');
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(await b.tryAcquireOrRenew(), false);
    const limit = timing.retryPeriodMs + timing.renewDeadlineMs + 1000;
    clock += limit;
    assert.equal(a.check(1000), undefined, 'within the limit');
    clock += 1;
    assert.equal(a.check(1000)?.message, `failed election to renew leadership on lease ${name}`);
    assert.equal(b.check(1000), undefined, 'a standby is healthy');
    // A renewal makes it healthy again.
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(a.check(1000), undefined);
  });

  it('a lone candidate creates the lease and renews it', async () => {
    const name = `lone-${n++}`;
    const a = candidate('a', name);
    await eventually('leading', () => a.started.length === 1);
    const first = await readLease(name);
    assert.equal(first.spec?.holderIdentity, 'a');
    assert.equal(first.spec?.leaseDurationSeconds, 2);
    assert.equal(first.spec?.leaseTransitions, 0);
    assert.match(first.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await eventually('a renewal', async () => (await readLease(name)).spec?.renewTime !== first.spec?.renewTime, 3000);
    const renewed = await readLease(name);
    assert.equal(renewed.spec?.acquireTime, first.spec?.acquireTime, 'renewing keeps acquireTime');
    assert.deepEqual(a.leaders, ['a']);
    a.controller.abort();
    await a.done;
    assert.equal(a.stopped.length, 1);
  });

  it('of two candidates one leads; when it stops renewing the other takes over after the lease duration', async () => {
    // Longer periods than the others' here: the takeover's slack (the watch's and the update's
    // round trips, up to a second on a loaded machine) stays well under a retry period (2-4.4 s).
    const slow = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 2000 };
    const name = `pair-${n++}`;
    const a = candidate('a', name, slow);
    await eventually('a leading', () => a.started.length === 1);
    const b = candidate('b', name, slow);
    await eventually('b sees a', () => b.leaders.includes('a'));
    const seen = Date.now();
    // b waits while a renews: a renewal later than the lease duration after b first saw a, when b
    // would have taken the lease had it not seen the renewals.
    await eventually('a renewal past a lease duration', async () => Date.parse((await readLease(name)).spec?.renewTime ?? '') > seen + slow.leaseDurationMs, 15_000);
    assert.equal(b.started.length, 0, 'b waits while a renews');
    assert.deepEqual(b.leaders, ['a']);
    // a stops without releasing, as a crashed process would.
    const lastRenew = Date.now();
    a.controller.abort();
    await a.done;
    await eventually('b leading', () => b.started.length === 1, 15_000);
    const waited = b.started[0]! - lastRenew;
    // Expiry is judged on b's clock from when b saw the last renewal (through its watch, at once):
    // at least the lease duration minus one renew period, and within the lease duration of the last
    // renewal and a second of round trips, not a retry period later.
    assert.ok(waited >= slow.leaseDurationMs - slow.retryPeriodMs, `took over after ${waited} ms`);
    assert.ok(waited <= slow.leaseDurationMs + 1000, `took over after ${waited} ms`);
    const lease = await readLease(name);
    assert.equal(lease.spec?.holderIdentity, 'b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    b.controller.abort();
    await b.done;
  });

  it('with releaseOnCancel the lease is given up and the other takes over at once', async () => {
    // A retry period of 10 to 22 s: "at once" (the watch) is told from "at the next retry" with room
    // to spare however loaded the machine.
    const patient = { leaseDurationMs: 20_000, renewDeadlineMs: 15_000, retryPeriodMs: 10_000 };
    const name = `release-${n++}`;
    const a = candidate('a', name, { ...patient, releaseOnCancel: true });
    await eventually('a leading', () => a.started.length === 1);
    const b = candidate('b', name, patient);
    await eventually('b sees a', () => b.leaders.includes('a'));
    const released = Date.now();
    a.controller.abort();
    await a.done;
    const lease = await readLease(name);
    assert.equal(lease.spec?.holderIdentity, '');
    assert.equal(lease.spec?.leaseDurationSeconds, 1);
    await eventually('b leading', () => b.started.length === 1, 5000);
    // The watch sees the release and wakes b: no retry period passes.
    assert.ok(b.started[0]! - released < 5000, `took over after ${b.started[0]! - released} ms`);
    b.controller.abort();
    await b.done;
  });

  it('a lease freed while an attempt is under way is tried again at once, not a retry period later', async () => {
    const patient = { leaseDurationMs: 20_000, renewDeadlineMs: 15_000, retryPeriodMs: 10_000 };
    const name = `freed-${n++}`;
    const a = candidate('a', name, { ...patient, releaseOnCancel: true });
    await eventually('a leading', () => a.started.length === 1);
    // b's read of the lease, made while a holds it, answers only after b's watch has seen a give
    // the lease up: the release reaches b while its attempt is under way.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const rest = leases().rest;
    const slowRest = new Proxy(rest, {
      get(target, property, receiver) {
        if (property !== 'request') return Reflect.get(target, property, receiver) as unknown;
        return async (request: RestRequest): Promise<unknown> => {
          const result = await target.request(request);
          if ((request.method ?? 'GET') === 'GET' && request.path.endsWith(`/leases/${name}`)) await held;
          return result;
        };
      },
    }) as RestClient;
    const b = candidate('b', name, { ...patient, leases: new ResourceClient<Lease>(slowRest, leaseResource('plat.io')) });
    await eventually('b sees a', () => b.leaders.includes('a'));
    const released = Date.now();
    a.controller.abort();
    await a.done;
    await eventually('b sees the lease freed', () => b.leaders.at(-1) === '');
    answer();
    await eventually('b leading', () => b.started.length === 1, 5000);
    assert.ok(b.started[0]! - released < 5000, `took over after ${b.started[0]! - released} ms`);
  });

  it('a read answered after the watch brought a newer renewal does not put the expiry back', async () => {
    // b's first read of the lease answers only after b's watch has brought a's next renewal, with
    // the record before it; then a stops without releasing. Observing that older record again
    // restarted the expiry's clock, and b took over a retry period late (seen as a flaky takeover
    // test: 9 s where 6 were due).
    const slow = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 3000 };
    const name = `stale-read-${n++}`;
    const a = candidate('a', name, slow);
    await eventually('a leading', () => a.started.length === 1);
    const rest = leases().rest;
    let held = true;
    let renewedAt = 0;
    const slowRest = new Proxy(rest, {
      get(target, property, receiver) {
        if (property !== 'request') return Reflect.get(target, property, receiver) as unknown;
        return async (request: RestRequest): Promise<unknown> => {
          const result = await target.request(request);
          if (held && (request.method ?? 'GET') === 'GET' && request.path.endsWith(`/leases/${name}`)) {
            held = false;
            const before = (result as Lease).spec?.renewTime;
            await eventually('a renews', async () => (await readLease(name)).spec?.renewTime !== before, 10_000);
            renewedAt = Date.now();
            // Time for b's watch to bring the renewal in, then a crashes.
            await new Promise((resolve) => setTimeout(resolve, 300));
            a.controller.abort();
            await a.done;
          }
          return result;
        };
      },
    }) as RestClient;
    const b = candidate('b', name, { ...slow, leases: new ResourceClient<Lease>(slowRest, leaseResource('plat.io')) });
    await eventually('b leading', () => b.started.length === 1, 20_000);
    const waited = b.started[0]! - renewedAt;
    assert.ok(waited <= slow.leaseDurationMs + 2000, `took over ${waited} ms after the last renewal`);
    assert.equal((await readLease(name)).spec?.holderIdentity, 'b');
  });

  it('a leader that cannot renew within the renew deadline stops leading', async () => {
    const name = `cut-${n++}`;
    const relay = await startRelay(Number(new URL(api.config.server).port));
    const viaRelay = new Client({ ...api.config, server: `https://127.0.0.1:${relay.port}` });
    try {
      const a = candidate('a', name, {}, viaRelay);
      await eventually('a leading', () => a.started.length === 1);
      const cutAt = Date.now();
      relay.cut(true);
      await a.done;
      const stoppedAfter = a.stopped[0]! - cutAt;
      assert.ok(stoppedAfter <= timing.renewDeadlineMs + 2 * timing.retryPeriodMs + 500, `stopped after ${stoppedAfter} ms`);
      // It gave up before its lease expired for the others.
      assert.ok(stoppedAfter < timing.leaseDurationMs + timing.retryPeriodMs, `stopped after ${stoppedAfter} ms`);
    } finally {
      viaRelay.close();
      await relay.close();
    }
  });
});
