// The secure port in process: health endpoints in upstream's format, the leaderElection and
// informer-sync checks, and /metrics with the leader gauge and the work queue metrics.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { ItemExponentialRateLimiter, RateLimitingQueue, silentLogger } from '@plat/client';
import { generateSelfSignedCert, pingCheck } from '@plat/serving';
import { ControllerManagerMetrics } from './metrics.js';
import { InformerSyncCheck, leaderElectionCheck, startSecureServing, type SecureServing } from './serving.js';

describe('the secure port', () => {
  let serving: SecureServing;
  let ca: string;
  let electionProblem: Error | undefined;
  let synced = false;
  const toleranceSeen: number[] = [];
  const metrics = new ControllerManagerMetrics();
  const informerSync = new InformerSyncCheck();

  before(async () => {
    const tls = await generateSelfSignedCert({ bindAddress: '127.0.0.1', dnsNames: ['localhost'] });
    ca = tls.ca;
    const elector = {
      check: (toleranceMs: number) => {
        toleranceSeen.push(toleranceMs);
        return electionProblem;
      },
    };
    const live = [pingCheck, leaderElectionCheck(elector)];
    serving = await startSecureServing({
      bindAddress: '127.0.0.1',
      port: 0,
      tls,
      checks: { healthz: live, livez: live, readyz: [...live, informerSync] },
      registry: metrics.registry,
      logger: silentLogger,
    });
  });
  after(() => serving.close());

  const get = (path: string, method = 'GET'): Promise<{ status: number; type: string; body: string }> =>
    new Promise((resolve, reject) => {
      // Verified against the CA that signed it: a real TLS server, not plain HTTP.
      const req = request({ host: '127.0.0.1', port: serving.port, path, method, ca, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('/healthz, /livez and /readyz answer ok; ?verbose lists the checks', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const response = await get(path);
      assert.deepEqual([response.status, response.body], [200, 'ok'], path);
      assert.equal(response.type, 'text/plain; charset=utf-8');
    }
    assert.equal((await get('/healthz?verbose')).body, '[+]ping ok\n[+]leaderElection ok\nhealthz check passed\n');
    assert.equal((await get('/readyz/informer-sync')).body, 'ok');
    assert.equal((await get('/healthz', 'HEAD')).status, 200);
  });

  it('leaderElection: a leader that stopped renewing fails /healthz and /livez, named as upstream names it', async () => {
    electionProblem = new Error('failed election to renew leadership on lease plat-controller-manager');
    try {
      const response = await get('/healthz');
      assert.equal(response.status, 500);
      assert.equal(response.body, '[+]ping ok\n[-]leaderElection failed: failed election to renew leadership on lease plat-controller-manager\nhealthz check failed\n');
      assert.equal((await get('/livez')).status, 500);
      assert.equal((await get('/healthz/leaderElection')).status, 500);
      assert.equal((await get('/healthz?exclude=leaderElection')).status, 200);
    } finally {
      electionProblem = undefined;
    }
    assert.ok(toleranceSeen.every((ms) => ms === 2000), 'the retry period and renew deadline plus 2 s');
  });

  it('informer-sync: ready while standing by, not while the controllers\' informers sync, ready once they have', async () => {
    informerSync.set({ hasSynced: () => synced });
    const waiting = await get('/readyz');
    assert.equal(waiting.status, 500);
    assert.match(waiting.body, /\[-\]informer-sync failed: the controllers' informers have not synced yet\n/);
    assert.equal((await get('/healthz')).status, 200, 'syncing is not unhealthy');
    synced = true;
    assert.equal((await get('/readyz')).status, 200);
    informerSync.set(undefined);
    synced = false;
    assert.equal((await get('/readyz')).status, 200, 'stopped controllers (a standby) are ready');
  });

  it('/metrics: leader_election_master_status and the work queues, in Prometheus text', async () => {
    metrics.setLeading('plat-controller-manager', false);
    assert.match((await get('/metrics')).body, /^leader_election_master_status\{name="plat-controller-manager"\} 0$/m);
    metrics.setLeading('plat-controller-manager', true);
    // The retry waits a minute: the default limiter's 5 ms could add the item back before the
    // scrape on a loaded machine (seen in CI: adds 3, not 2).
    const queue = new RateLimitingQueue<string>({ name: 'namespace', metrics: metrics.queueMetrics, rateLimiter: new ItemExponentialRateLimiter(60_000, 60_000) });
    let text = (await get('/metrics')).body;
    assert.match(text, /^workqueue_adds_total\{name="namespace"\} 0$/m, 'a queue is listed from its creation');
    queue.add('a');
    queue.add('b');
    const item = await queue.get();
    queue.addRateLimited(item!);
    queue.done(item!);
    const response = await get('/metrics');
    text = response.body;
    assert.match(response.type, /^text\/plain; version=0\.0\.4/);
    assert.match(text, /^leader_election_master_status\{name="plat-controller-manager"\} 1$/m);
    assert.match(text, /^workqueue_adds_total\{name="namespace"\} 2$/m);
    assert.match(text, /^workqueue_depth\{name="namespace"\} 1$/m);
    assert.match(text, /^workqueue_retries_total\{name="namespace"\} 1$/m);
    assert.match(text, /^workqueue_queue_duration_seconds_count\{name="namespace"\} 1$/m);
    assert.match(text, /^workqueue_work_duration_seconds_count\{name="namespace"\} 1$/m);
    assert.match(text, /^# HELP workqueue_adds_total \[ALPHA\] Total number of adds handled by workqueue$/m, "upstream's class leads the HELP");
    assert.match(text, /^process_cpu_seconds_total /m);
    if (spawnSync('promtool', ['--version']).status === 0) {
      const linted = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      assert.equal(linted.status, 0, `promtool check metrics: ${linted.stdout}${linted.stderr}`);
    }
    queue.shutDown();
  });

  it('anything else is 404', async () => {
    for (const path of ['/', '/healthz/nothing', '/readyz/informer-sync/x', '/debug/pprof']) {
      assert.equal((await get(path)).status, 404, path);
    }
  });
});
