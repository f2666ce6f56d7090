import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import { PassThrough } from 'node:stream';
import { fakeStorage, startServer, testCert } from './testing/index.js';

const elapsedSince = (start: number): number => Date.now() - start;

test('shutdown: an in-flight request completes, new connections are refused, then storage closes', async () => {
  const events: string[] = [];
  const storage = fakeStorage();
  const close = storage.close;
  storage.close = async () => {
    events.push('storage closed');
    await close();
  };
  const { server, get } = await startServer({ storage });
  let release!: () => void;
  let entered!: () => void;
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  server.handle('/slow', async (ctx) => {
    ctx.res.once('finish', () => events.push('response sent'));
    entered();
    await new Promise<void>((resolve) => (release = resolve));
    ctx.body = 'done';
  });

  const slow = get('/slow');
  await inFlight;
  const shutdown = server.shutdown().then(() => events.push('shutdown done'));
  await assert.rejects(get('/livez', { agent: false }), { code: 'ECONNREFUSED' });
  release();
  const res = await slow;
  assert.equal(res.status, 200);
  assert.equal(res.body, 'done');
  await shutdown;
  assert.deepEqual(events, ['response sent', 'storage closed', 'shutdown done']);
  assert.equal(storage.closed, 1);
  await server.shutdown(); // a second call is the same shutdown
  assert.equal(storage.closed, 1);
});

test('shutdown: during the delay readyz fails on shutdown, livez does not, requests are served', async () => {
  const { server, get } = await startServer({ shutdownDelayMs: 300 });
  const shutdown = server.shutdown();
  const ready = await get('/readyz', { agent: false });
  assert.equal(ready.status, 500);
  assert.equal(ready.body, '[+]ping ok\n[+]etcd ok\n[-]shutdown failed: process is shutting down\nreadyz check failed\n');
  assert.equal((await get('/livez', { agent: false })).status, 200);
  await shutdown;
});

test('shutdown: long-running streams are ended cleanly, not waited for', async () => {
  const { server, port } = await startServer({ shutdownTimeoutMs: 10_000 });
  server.handle('/stream', (ctx) => {
    const body = new PassThrough();
    ctx.set('Content-Type', 'text/plain');
    ctx.body = body;
    body.write('first\n');
    server.registerLongRunning(ctx.res, () => body.end('bye\n'));
  });
  const { ca } = await testCert();
  let firstChunk!: () => void;
  const gotFirst = new Promise<void>((resolve) => (firstChunk = resolve));
  const streamed = new Promise<string>((resolve, reject) => {
    httpsRequest({ host: '127.0.0.1', port, path: '/stream', ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        firstChunk();
      });
      res.on('end', () => resolve(text));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
  await gotFirst;
  const start = Date.now();
  await server.shutdown();
  assert.equal(await streamed, 'first\nbye\n');
  assert.ok(elapsedSince(start) < 3000, `shutdown took ${elapsedSince(start)} ms`);
});

test('shutdown: idle keep-alive connections do not hold it up', async () => {
  const { server, get } = await startServer({ shutdownTimeoutMs: 10_000 });
  const agent = new Agent({ keepAlive: true });
  assert.equal((await get('/livez', { agent })).status, 200);
  const start = Date.now();
  await server.shutdown();
  assert.ok(elapsedSince(start) < 3000, `shutdown took ${elapsedSince(start)} ms`);
  agent.destroy();
});

test('shutdown: requests still running at the timeout are cut off', async () => {
  const storage = fakeStorage();
  const { server, get, lines } = await startServer({ storage, shutdownTimeoutMs: 200 });
  let entered!: () => void;
  const hanging = new Promise<void>((resolve) => (entered = resolve));
  server.handle('/hang', () => {
    entered();
    return new Promise<void>(() => {});
  });
  const request = get('/hang', { agent: false });
  await hanging;
  const start = Date.now();
  await server.shutdown();
  assert.ok(elapsedSince(start) < 3000, `shutdown took ${elapsedSince(start)} ms`);
  await assert.rejects(request, { code: 'ECONNRESET' });
  assert.equal(storage.closed, 1);
  assert.ok(lines.some((l) => l.level === 40 && /still in flight/.test(l.msg)));
});

test('shutdown: a watch that asked for bookmarks gets a last one, at its progress, before its stream ends', async () => {
  const { startApiServer } = await import('./testing/index.js');
  const { CachedStorage, createStorage } = await import('@plat/storage');
  const { server, port, send } = await startApiServer({ storage: new CachedStorage(createStorage({ backend: 'memory' })), shutdownTimeoutMs: 10_000 });
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201);
  const created = JSON.parse((await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } })).body) as { metadata: { resourceVersion: string } };
  const { ca } = await testCert();
  const lines = await new Promise<string[]>((resolve, reject) => {
    const path = `/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${created.metadata.resourceVersion}`;
    httpsRequest({ host: '127.0.0.1', port, path, ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text.trim().split('\n')));
      res.on('error', reject);
      // Headers in: the watch is registered.
      setTimeout(() => void server.shutdown(), 100);
    })
      .on('error', reject)
      .end();
  });
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const bookmark = JSON.parse(lines[0]!) as { type: string; object: { kind: string; metadata: { resourceVersion: string } } };
  assert.equal(bookmark.type, 'BOOKMARK', lines[0]);
  assert.equal(bookmark.object.kind, 'ConfigMap');
  // As far as the watch has got: its start at least (past it where the store reported progress).
  assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(created.metadata.resourceVersion), bookmark.object.metadata.resourceVersion);
});
