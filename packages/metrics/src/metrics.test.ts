import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CachedStorage, createStorage } from '@plat/storage';
import { startApiServer } from '@plat/apiserver/testing';
import { resourceOfPrefix } from './watch-cache-metrics.js';

const promtool = spawnSync('promtool', ['--version']).status === 0;

const sample = (metrics: string, name: string, labels: string): number | undefined => {
  const line = metrics.split('\n').find((text) => text.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

const namespaceWatchers = 'group="",version="v1",kind="Namespace"';

/** Scrapes `get('/metrics')` until `condition` holds of it (at most 10 s); returns that scrape. */
async function scrapeUntil(get: (path: string) => Promise<{ body: string }>, what: string, condition: (metrics: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const metrics = (await get('/metrics')).body;
    if (condition(metrics)) return metrics;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('metrics: requests, watches, storage calls and stored objects under upstream names and labels', async () => {
  const { server, send, get } = await startApiServer({}, { objectCountIntervalMs: 50 });
  try {
    // Open (for 3 s: the requests below happen while it is) before anything is written.
    const watch = send('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=3');
    await scrapeUntil(get, 'the watch registered', (metrics) => sample(metrics, 'apiserver_registered_watchers', namespaceWatchers) === 1);
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'measured' } })).status, 201);
    assert.equal((await send('GET', '/api/v1/namespaces/measured')).status, 200);
    const during = (await get('/metrics')).body;
    assert.equal(sample(during, 'apiserver_longrunning_requests', '') ?? Number(/^apiserver_longrunning_requests (\d+)/m.exec(during)?.[1]), 1);
    const watched = await watch;
    assert.equal(watched.status, 200);
    // The watch is counted once its response has closed on the server's side too.
    const watchTotal = 'apiserver_request_total{verb="WATCH",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver",code="200"}';
    const metrics = await scrapeUntil(get, 'the watch counted', (text) => text.includes(`${watchTotal} `));
    const request = 'verb="POST",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver"';
    assert.equal(sample(metrics, 'apiserver_request_total', `${request},code="201"`), 1);
    assert.ok(metrics.includes(`apiserver_request_duration_seconds_count{${request}} 1`));
    assert.ok(metrics.includes(`${watchTotal} 1`));
    assert.ok((sample(metrics, 'apiserver_watch_events_total', 'group="",version="v1",kind="Namespace"') ?? 0) >= 1);
    assert.ok((sample(metrics, 'apiserver_watch_events_sizes_count', 'group="",version="v1",kind="Namespace"') ?? 0) >= 1);
    assert.equal(sample(metrics, 'etcd_request_duration_seconds_count', 'operation="create",type="namespaces"'), 1);
    assert.ok((sample(metrics, 'etcd_request_duration_seconds_count', 'operation="get",type="namespaces"') ?? 0) >= 1);
    assert.ok((sample(metrics, 'apiserver_storage_objects', 'resource="namespaces"') ?? 0) >= 1);
    assert.equal(sample(metrics, 'apiserver_current_inflight_requests', 'request_kind="mutating"'), 0);
    assert.match(metrics, /^apiserver_longrunning_requests 0$/m);
  } finally {
    await server.shutdown();
  }
});

test('metrics: etcd_request_duration_seconds counts what reaches the store, not what the watch cache answers', async () => {
  const { server, send, get } = await startApiServer({ watchCache: true });
  const count = async (operation: string): Promise<number> =>
    sample((await get('/metrics')).body, 'etcd_request_duration_seconds_count', `operation="${operation}",type="namespaces"`) ?? 0;
  try {
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'cached' } })).status, 201);
    assert.equal(await count('create'), 1);
    // The first list fills the cache (one list of the store); later ones are the cache's answers.
    assert.equal((await send('GET', '/api/v1/namespaces')).status, 200);
    const lists = await count('list');
    for (let i = 0; i < 5; i++) assert.equal((await send('GET', '/api/v1/namespaces?resourceVersion=0')).status, 200);
    assert.equal(await count('list'), lists, 'lists answered by the cache are not etcd requests');
    assert.equal((await send('GET', '/api/v1/namespaces?limit=1')).status, 200);
    assert.equal(await count('list'), lists + 1, 'a paged list goes to the store');
  } finally {
    await server.shutdown();
  }
});

test('metrics: HELP carries each metric\'s stability class as upstream prints it', async () => {
  const { server, get } = await startApiServer({ storage: new CachedStorage(createStorage({ backend: 'memory' })) });
  try {
    await get('/api/v1/namespaces');
    const metrics = (await get('/metrics')).body;
    const help = (name: string): string | undefined => new RegExp(`^# HELP ${name} (.*)$`, 'm').exec(metrics)?.[1];
    assert.equal(help('apiserver_request_total'), '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    assert.equal(help('apiserver_registered_watchers'), '[ALPHA] Number of currently registered watchers for a given resources');
    assert.equal(help('apiserver_dropped_requests_total'), "[ALPHA] Number of requests dropped with 'Try again later' response");
    assert.equal(help('apiserver_request_terminations_total'), '[ALPHA] Number of requests which apiserver terminated in self-defense.');
    assert.match(help('apiserver_watch_cache_events_received_total') ?? '', /^\[ALPHA\] /);
    assert.match(help('registered_metrics_total') ?? '', /^\[BETA\] /);
    // Every metric of ours carries a class; the process's and node's default metrics, like Go's process collector upstream, do not.
    const unclassed = [...metrics.matchAll(/^# HELP (\S+) (.*)$/gm)].filter(([, name, text]) => !/^(process|nodejs)_/.test(name!) && !/^\[(ALPHA|BETA|STABLE)\] /.test(text!));
    assert.deepEqual(unclassed.map(([, name]) => name), []);
  } finally {
    await server.shutdown();
  }
});

for (const showHidden of [undefined, '1.27']) {
  const title = `metrics: promtool check metrics passes on /metrics${showHidden ? ' with --show-hidden-metrics-for-version' : ''}`;
  test(title, { skip: !promtool && 'promtool is not installed (Debian package prometheus)' }, async () => {
    // With the watch cache, as replicas run by default: its metrics are linted too.
    const { server, send, get } = await startApiServer({ storage: new CachedStorage(createStorage({ backend: 'memory' })), ...(showHidden && { showHiddenMetricsForVersion: showHidden }) });
    try {
      await send('POST', '/api/v1/namespaces', { metadata: { name: 'linted' } });
      await send('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=1');
      const metrics = (await get('/metrics')).body;
      assert.match(metrics, /^apiserver_watch_cache_events_received_total\{resource="namespaces"\} \d+$/m);
      const result = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
      // promtool exits 1 on lint problems and 3 on unparseable input; lint problems are listed one a line.
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    } finally {
      await server.shutdown();
    }
  });
}

test('metrics: the watch cache reports events received and dispatched, initializations, lists and capacity', async () => {
  const { server, send, get } = await startApiServer({ storage: new CachedStorage(createStorage({ backend: 'memory' }), { maxHistoryEvents: 5000 }) });
  try {
    const watch = send('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=3');
    await scrapeUntil(get, 'the watch registered', (metrics) => sample(metrics, 'apiserver_registered_watchers', namespaceWatchers) === 1);
    for (const name of ['cached-a', 'cached-b']) assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
    assert.equal((await send('GET', '/api/v1/namespaces')).status, 200);
    await watch;
    const metrics = (await get('/metrics')).body;
    assert.ok((sample(metrics, 'apiserver_watch_cache_events_received_total', 'resource="namespaces"') ?? 0) >= 2);
    assert.ok((sample(metrics, 'apiserver_watch_cache_events_dispatched_total', 'resource="namespaces"') ?? 0) >= 2);
    assert.equal(sample(metrics, 'apiserver_watch_cache_initializations_total', 'resource="namespaces"'), 1);
    assert.ok((sample(metrics, 'apiserver_cache_list_total', 'resource_prefix="/core/namespaces/",index=""') ?? 0) >= 1);
    assert.equal(sample(metrics, 'watch_cache_capacity', 'resource="namespaces"'), 5000);
    // A second scrape adds only what happened since the first.
    const again = (await get('/metrics')).body;
    assert.equal(
      sample(again, 'apiserver_watch_cache_events_received_total', 'resource="namespaces"'),
      sample(metrics, 'apiserver_watch_cache_events_received_total', 'resource="namespaces"'),
    );
  } finally {
    await server.shutdown();
  }
});

test('metrics: a group resource names its group, the core group none', () => {
  assert.equal(resourceOfPrefix('/core/pods/'), 'pods');
  assert.equal(resourceOfPrefix('/rbac.authorization.plat.io/roles/'), 'roles.rbac.authorization.plat.io');
});

test('metrics: /metrics/slis carries the health checks the probes ran, by endpoint; promtool check metrics passes on it', async () => {
  const { server, get } = await startApiServer({ storage: new CachedStorage(createStorage({ backend: 'memory' })) });
  try {
    assert.equal((await get('/readyz')).status, 200);
    assert.equal((await get('/livez?exclude=ping')).status, 200);
    const slis = (await get('/metrics/slis')).body;
    assert.equal(sample(slis, 'kubernetes_healthcheck', 'name="etcd",type="readyz"'), 1);
    assert.equal(sample(slis, 'kubernetes_healthcheck', 'name="shutdown",type="readyz"'), 1);
    assert.equal(sample(slis, 'kubernetes_healthchecks_total', 'name="ping",type="readyz",status="success"'), 1);
    assert.equal(sample(slis, 'kubernetes_healthcheck', 'name="ping",type="livez"'), undefined, 'excluded: not run');
    assert.ok(!(await get('/metrics')).body.includes('kubernetes_healthcheck{'), 'not on /metrics, as upstream');
    if (promtool) {
      const result = spawnSync('promtool', ['check', 'metrics'], { input: slis, encoding: 'utf8' });
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    }
  } finally {
    await server.shutdown();
  }
});

test('metrics: the watch cache\'s lag behind this replica\'s writes, per resource', async () => {
  const { server, send, get } = await startApiServer({ storage: new CachedStorage(createStorage({ backend: 'memory' })) });
  try {
    assert.equal((await send('GET', '/api/v1/namespaces')).status, 200);
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'lagging' } })).status, 201);
    await scrapeUntil(get, 'the cache has the write', (metrics) => sample(metrics, 'plat_watch_cache_lag_seconds', 'resource="namespaces"') === 0);
  } finally {
    await server.shutdown();
  }
});
