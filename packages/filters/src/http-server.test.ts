import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { CachedStorage, createStorage } from '@plat/storage';
import { startApiServer } from '@plat/apiserver/testing';
import { startServer, testCert } from '@plat/apiserver/testing';

/** The protocol the server agrees to for a client offering `protocols` in ALPN (false: none agreed). */
async function negotiated(port: number, protocols: string[] | undefined): Promise<string | false> {
  const { ca } = await testCert();
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ...(protocols && { ALPNProtocols: protocols }) }, () => {
      resolve(socket.alpnProtocol ?? false);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

async function connect(port: number): Promise<ClientHttp2Session> {
  const { ca } = await testCert();
  const session = http2Connect(`https://127.0.0.1:${port}`, { ca });
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  return session;
}

function h2Get(session: ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    let body = '';
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
  });
}

test('ALPN: HTTP/2 where the client offers h2, HTTP/1.1 where it offers that or nothing', async (t) => {
  const { server, port } = await startServer();
  t.after(() => server.shutdown());
  assert.equal(await negotiated(port, ['h2', 'http/1.1']), 'h2');
  assert.equal(await negotiated(port, ['http/1.1']), 'http/1.1');
  assert.equal(await negotiated(port, undefined), false);
});

test('--http2-max-streams-per-connection is the SETTINGS_MAX_CONCURRENT_STREAMS clients get: 1000 by default, 0 Go\u2019s 250', async (t) => {
  for (const [given, expected] of [[undefined, 1000], [7, 7], [0, 250]] as const) {
    const { server, port } = await startServer(given === undefined ? {} : { http2MaxStreamsPerConnection: given });
    const session = await connect(port);
    assert.equal(session.remoteSettings.maxConcurrentStreams, expected, `given ${given}`);
    session.destroy();
    await server.shutdown();
  }
  t.diagnostic('checked');
});

test('requests and a watch over one HTTP/2 connection behave as over HTTP/1.1', async (t) => {
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, port, send } = await startApiServer({ storage });
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  const session = await connect(port);
  t.after(() => session.destroy());

  const ready = await h2Get(session, '/readyz');
  assert.deepEqual(ready, { status: 200, body: 'ok' });
  const missing = await h2Get(session, '/api/v1/namespaces/ns/configmaps/nope');
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).reason, 'NotFound');

  // A watch stream and writes on other streams of the same connection.
  const events: { type: string; object: { metadata: { name: string } } }[] = [];
  const watch = session.request({ ':path': '/api/v1/namespaces/ns/configmaps?watch=1&timeoutSeconds=5' });
  let buffer = '';
  const threeEvents = new Promise<void>((resolve) => {
    watch.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line) events.push(JSON.parse(line));
      if (events.length >= 3) resolve();
    });
  });
  await new Promise((resolve) => watch.once('response', resolve));
  for (const name of ['a', 'b', 'c']) {
    const created = await new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/ns/configmaps', 'content-type': 'application/json' });
      stream.on('response', (headers) => resolve(Number(headers[':status'])));
      stream.on('error', reject);
      stream.end(JSON.stringify({ metadata: { name } }));
      stream.resume();
    });
    assert.equal(created, 201);
  }
  await threeEvents;
  assert.deepEqual(events.map((event) => [event.type, event.object.metadata.name]), [['ADDED', 'a'], ['ADDED', 'b'], ['ADDED', 'c']]);
  const list = await h2Get(session, '/api/v1/namespaces/ns/configmaps');
  assert.deepEqual(JSON.parse(list.body).items.map((item: { metadata: { name: string } }) => item.metadata.name), ['a', 'b', 'c']);
  watch.close();
});

test('shutdown over HTTP/2: the watch ends with its last bookmark, the connection is told to go (GOAWAY), the request in flight completes', async (t) => {
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, port, send } = await startApiServer({ storage, shutdownTimeoutMs: 10_000 });
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  let release!: () => void;
  server.handle('/slow', async (ctx) => {
    await new Promise<void>((resolve) => (release = resolve));
    ctx.body = 'done';
  });
  const session = await connect(port);
  t.after(() => session.destroy());
  const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
  const watch = session.request({ ':path': '/api/v1/namespaces/ns/configmaps?watch=1&allowWatchBookmarks=true' });
  let text = '';
  const watchEnded = new Promise<void>((resolve) => {
    watch.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    watch.on('end', () => resolve());
  });
  await new Promise((resolve) => watch.once('response', resolve));
  const slow = h2Get(session, '/slow');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const shutdown = server.shutdown();
  await goaway;
  release();
  assert.deepEqual(await slow, { status: 200, body: 'done' });
  await watchEnded;
  assert.equal(JSON.parse(text.trim()).type, 'BOOKMARK');
  await shutdown;
});
