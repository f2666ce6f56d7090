import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { PassThrough } from 'node:stream';
import { newTooManyRequests } from '@plat/apimachinery';
import { createStorage } from '@plat/storage';
import { fakeStorage, startServer, testCert } from './testing/index.js';

const notFoundBody =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}';

test('unserved paths answer a 404 Status', async (t) => {
  const { server, get } = await startServer();
  t.after(() => server.shutdown());
  for (const path of ['/nope', '/api/v1/namespaces', '/apis/rbac.authorization.plat.io/v1/clusterroles/x', '/readyz/nope', '/livez/etcd', '/']) {
    const res = await get(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers['content-type'], 'application/json', path);
    assert.equal(res.body, notFoundBody, path);
  }
});

test('health endpoints: ok, verbose, single checks, exclusions', async (t) => {
  const { server, get } = await startServer();
  t.after(() => server.shutdown());
  for (const path of ['/healthz', '/livez', '/readyz', '/readyz/etcd', '/readyz/shutdown', '/healthz/ping', '/livez/ping']) {
    const res = await get(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.body, 'ok', path);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  }
  assert.equal((await get('/readyz?verbose')).body, '[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n');
  assert.equal((await get('/healthz?verbose=1')).body, '[+]ping ok\n[+]etcd ok\nhealthz check passed\n');
  assert.equal((await get('/livez?verbose')).body, '[+]ping ok\nlivez check passed\n');
  assert.equal(
    (await get('/readyz?verbose&exclude=etcd&exclude=nope')).body,
    '[+]ping ok\n[+]etcd excluded: ok\n[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n',
  );
});

test('readyz fails with the reason while storage is down, and recovers without a restart', async (t) => {
  let down = true;
  const storage = fakeStorage(async () => {
    if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:2379');
  });
  const { server, get, lines } = await startServer({ storage });
  t.after(() => server.shutdown());

  const ready = await get('/readyz');
  assert.equal(ready.status, 500);
  assert.equal(ready.body, '[+]ping ok\n[-]etcd failed: connect ECONNREFUSED 127.0.0.1:2379\n[+]shutdown ok\nreadyz check failed\n');
  assert.equal(ready.headers['content-type'], 'text/plain; charset=utf-8');
  assert.ok(
    lines.some((l) => l.level === 40 && l.check === 'etcd' && l.reason === 'connect ECONNREFUSED 127.0.0.1:2379'),
    'the reason is logged',
  );
  const single = await get('/readyz/etcd');
  assert.equal(single.status, 500);
  assert.equal(single.body, 'internal server error: connect ECONNREFUSED 127.0.0.1:2379\n');
  assert.equal((await get('/healthz')).status, 500);
  assert.equal((await get('/readyz?exclude=etcd')).status, 200);
  const live = await get('/livez?verbose');
  assert.equal(live.status, 200, 'livez does not depend on storage');

  down = false;
  const again = await get('/readyz');
  assert.equal(again.status, 200);
  assert.equal(again.body, 'ok');
});

test('readyz fails when storage does not answer in time', async (t) => {
  const storage = fakeStorage(() => new Promise(() => {}));
  const { server, get } = await startServer({ storage, storageHealthTimeoutMs: 50 });
  t.after(() => server.shutdown());
  const res = await get('/readyz');
  assert.equal(res.status, 500);
  assert.match(res.body, /\[-\]etcd failed: storage did not answer within 0\.05s\n/);
});

test('readyz with the memory storage backend', async (t) => {
  const storage = createStorage({ backend: 'memory' });
  const { server, get } = await startServer({ storage });
  t.after(() => server.shutdown());
  const res = await get('/readyz?verbose');
  assert.equal(res.status, 200);
  assert.equal(res.body, '[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n');
});

test('version has kube-apiserver\'s shape', async (t) => {
  const { server, get } = await startServer({ build: { gitCommit: 'abc123', gitTreeState: 'clean', buildDate: '2024-01-02T03:04:05Z' } });
  t.after(() => server.shutdown());
  const res = await get('/version');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  const info = JSON.parse(res.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(info), ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
  assert.equal(info.major, '1');
  assert.equal(info.minor, '28');
  assert.equal(info.gitVersion, 'v1.28.0-plat');
  assert.equal(info.gitCommit, 'abc123');
  assert.equal(info.gitTreeState, 'clean');
  assert.equal(info.buildDate, '2024-01-02T03:04:05Z');
  assert.equal(info.compiler, 'node');
  assert.match(info.platform as string, /^[a-z0-9]+\/[a-z0-9]+$/);
  for (const value of Object.values(info)) assert.equal(typeof value, 'string');
});

test('metrics: process metrics and request metrics, per server', async (t) => {
  const a = await startServer();
  const b = await startServer();
  t.after(() => Promise.all([a.server.shutdown(), b.server.shutdown()]));
  await a.get('/nope');
  await a.get('/healthz');
  const res = await a.get('/metrics');
  assert.equal(res.status, 200);
  assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
  assert.match(res.body, /^process_cpu_user_seconds_total \d/m);
  assert.match(res.body, /^process_resident_memory_bytes \d/m);
  assert.match(res.body, /^# TYPE apiserver_request_total counter$/m);
  assert.match(
    res.body,
    /^apiserver_request_total\{verb="GET",dry_run="",group="",version="",resource="",subresource="",scope="",component="apiserver",code="404"\} 1$/m,
  );
  assert.match(res.body, /^apiserver_request_total\{.*code="200"\} 1$/m);
  assert.match(res.body, /^apiserver_request_duration_seconds_bucket\{le="0\.005",verb="GET",.*component="apiserver"\} \d+$/m);
  const other = await b.get('/metrics');
  assert.doesNotMatch(other.body, /code="404"/, 'the other server counts its own requests');
});

test('a thrown error that is not a Status is a logged 500', async (t) => {
  const { server, get, lines } = await startServer();
  t.after(() => server.shutdown());
  server.handle('/boom', (ctx) => {
    ctx.set('X-Partial', 'yes');
    throw new Error('boom');
  });
  const res = await get('/boom');
  assert.equal(res.status, 500);
  assert.equal(res.headers['x-partial'], undefined);
  assert.deepEqual(JSON.parse(res.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Internal error occurred: boom',
    reason: 'InternalError',
    details: { causes: [{ message: 'boom' }] },
    code: 500,
  });
  const logged = lines.find((l) => l.level === 50 && l.msg === 'internal error');
  assert.ok(logged, 'logged at error level');
  assert.match((logged.err as { stack: string }).stack, /Error: boom\n\s+at /);
});

test('a thrown StatusError is answered as its Status', async (t) => {
  const { server, get, lines } = await startServer();
  t.after(() => server.shutdown());
  server.handle('/busy', () => {
    throw newTooManyRequests('slow down', 3);
  });
  const res = await get('/busy');
  assert.equal(res.status, 429);
  assert.equal(res.headers['retry-after'], '3');
  assert.equal(JSON.parse(res.body).reason, 'TooManyRequests');
  assert.ok(!lines.some((l) => l.level >= 50), 'not logged as an error');
});

test('one debug log line per request', async (t) => {
  const { server, get, lines } = await startServer();
  t.after(() => server.shutdown());
  await get('/healthz?verbose', { headers: { 'User-Agent': 'test-agent' } });
  await new Promise((resolve) => setImmediate(resolve));
  const logged = lines.filter((l) => l.msg === 'HTTP');
  assert.equal(logged.length, 1);
  assert.equal(logged[0]!.level, 20);
  assert.equal(logged[0]!.uri, '/healthz?verbose');
  assert.equal(logged[0]!.status, 200);
  assert.equal(logged[0]!.user, 'system:anonymous');
  assert.equal(logged[0]!.userAgent, 'test-agent');
});

test('TLS: the certificate is accepted for the in-cluster service name', async (t) => {
  const { server, port } = await startServer();
  t.after(() => server.shutdown());
  const { ca } = await testCert();
  const status = await new Promise<number>((resolve, reject) => {
    httpsRequest({ host: '127.0.0.1', port, path: '/livez', ca, servername: 'kubernetes.default.svc', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
  assert.equal(status, 200);
});

test('a client leaving a stream early is not logged as an error', async (t) => {
  const { server, port, lines } = await startServer();
  t.after(() => server.shutdown());
  let closed!: () => void;
  const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
  server.handle('/stream', (ctx) => {
    const body = new PassThrough();
    ctx.body = body;
    body.write('first\n');
    ctx.res.once('close', () => closed());
    server.registerLongRunning(ctx.res, () => body.end());
  });
  const { ca } = await testCert();
  await new Promise<void>((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/stream', ca, agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end();
  });
  await serverSawClose;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(
    lines.filter((l) => l.level >= 50),
    [],
  );
  const logged = lines.find((l) => l.msg === 'HTTP' && l.uri === '/stream');
  assert.equal(logged?.aborted, true);
});

test('metrics: labels do not take resource names from unserved URLs; dryRun values are bounded', async (t) => {
  const { server, get } = await startServer();
  t.after(() => server.shutdown());
  await get('/api/v1/namespaces/default/made-up-resource-1');
  await get('/api/v1/nodes?dryRun=whatever');
  const body = (await get('/metrics')).body;
  assert.doesNotMatch(body, /made-up-resource/);
  assert.match(body, /^apiserver_request_total\{verb="LIST",dry_run="invalid",group="",version="",resource="",subresource="",scope="cluster",component="apiserver",code="404"\} 1$/m);
  assert.match(body, /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="",resource="",subresource="",scope="namespace",component="apiserver",code="404"\} 1$/m);
});
