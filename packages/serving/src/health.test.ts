import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { pingCheck, runHealthCheck, runHealthChecks, type HealthCheck } from './health.js';
import { HealthCheckMetrics } from './health-metrics.js';
import { MetricsStability } from './metrics-stability.js';

const failing = (name: string, reason: string): HealthCheck => ({
  name,
  check: async () => {
    throw new Error(reason);
  },
});

const cases: { name: string; checks: HealthCheck[]; query: string; status: number; body: string; failures?: string[] }[] = [
  { name: 'all pass: ok', checks: [pingCheck], query: '', status: 200, body: 'ok' },
  { name: 'verbose: one line per check', checks: [pingCheck], query: 'verbose', status: 200, body: '[+]ping ok\nhealthz check passed\n' },
  {
    name: 'a failure: 500, always verbose, with the reason',
    checks: [pingCheck, failing('leaderElection', 'failed election to renew leadership on lease plat-controller-manager')],
    query: '',
    status: 500,
    body: '[+]ping ok\n[-]leaderElection failed: failed election to renew leadership on lease plat-controller-manager\nhealthz check failed\n',
    failures: ['leaderElection'],
  },
  {
    name: 'an excluded failure passes; an unknown exclusion is warned about',
    checks: [pingCheck, failing('leaderElection', 'x')],
    query: 'exclude=leaderElection&exclude=nothing&verbose',
    status: 200,
    body: '[+]ping ok\n[+]leaderElection excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nothing"\nhealthz check passed\n',
  },
];

for (const c of cases) {
  test(`runHealthChecks: ${c.name}`, async () => {
    const report = await runHealthChecks('healthz', c.checks, new URLSearchParams(c.query));
    assert.equal(report.status, c.status);
    assert.equal(report.body, c.body);
    assert.deepEqual(report.failures.map((f) => f.check), c.failures ?? []);
  });
}

test('runHealthCheck: one check, its reason in the body', async () => {
  assert.deepEqual(await runHealthCheck(pingCheck), { status: 200, body: 'ok', failures: [], results: [{ check: 'ping', healthy: true }] });
  const failed = await runHealthCheck(failing('informer-sync', 'not synced'));
  assert.equal(failed.status, 500);
  assert.equal(failed.body, 'internal server error: not synced\n');
});

test('health metrics: the last result of each check run, and the count of results, by endpoint type (excluded checks are not run)', async () => {
  const metrics = new HealthCheckMetrics(new MetricsStability(new Registry()));
  let etcdUp = true;
  const etcd: HealthCheck = { name: 'etcd', check: async () => void (etcdUp || (await Promise.reject(new Error('down')))) };
  const run = async (query = '') => metrics.observe('readyz', await runHealthChecks('readyz', [pingCheck, etcd], new URLSearchParams(query)));
  await run();
  etcdUp = false;
  await run();
  await run('exclude=etcd');
  const text = await metrics.registry.metrics();
  const lines = text.split('\n').filter((line) => line && !line.startsWith('#'));
  assert.deepEqual(lines, [
    'kubernetes_healthcheck{name="ping",type="readyz"} 1',
    'kubernetes_healthcheck{name="etcd",type="readyz"} 0',
    'kubernetes_healthchecks_total{name="ping",type="readyz",status="success"} 3',
    'kubernetes_healthchecks_total{name="etcd",type="readyz",status="success"} 1',
    'kubernetes_healthchecks_total{name="etcd",type="readyz",status="error"} 1',
  ]);
  assert.match(text, /^# HELP kubernetes_healthcheck \[BETA\] This metric records the result of a single healthcheck\.$/m);
});
