import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import { PassThrough } from 'node:stream';
import { fakeStorage, startServer, testCert } from './test-support.js';

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
