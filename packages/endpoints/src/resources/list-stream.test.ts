import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { TLSSocket } from 'node:tls';
import type { Readable } from 'node:stream';
import { builtinDefinitions } from '@plat/api';
import { decodeObject, encodeObject, registerProtobufKinds } from '@plat/protobuf';
import { CachedStorage, createStorage } from '@plat/storage';
import { startApiServer } from '@plat/apiserver/testing';
import { testCert } from '@plat/apiserver/testing';
import { sharedList } from '@plat/registry';
import { LIST_CHUNK_BYTES, jsonListBuffer, jsonListStream, protobufListStream, type ListObject } from './list-stream.js';

registerProtobufKinds(builtinDefinitions);

const configMapList = (count: number, bytesEach: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMapList',
  metadata: { resourceVersion: '77' },
  items: Array.from({ length: count }, (_, i) => ({ metadata: { name: `c${i}`, namespace: 'ns', resourceVersion: String(i + 1) }, data: { value: 'x'.repeat(bytesEach) } })),
});

async function chunks(stream: Readable): Promise<Buffer[]> {
  const read: Buffer[] = [];
  for await (const chunk of stream) read.push(chunk as Buffer);
  return read;
}

test('a list as JSON chunks: the chunks joined are JSON.stringify of the list, each about LIST_CHUNK_BYTES', async () => {
  // The last list is past what item encodings are kept for (16 MiB): its later items are written as text.
  for (const [count, size] of [[0, 10], [1, 10], [2000, 1000], [30_000, 1000]] as const) {
    const list = configMapList(count, size);
    const read = await chunks(jsonListStream(list));
    assert.equal(Buffer.concat(read).toString(), JSON.stringify(list), `${count} items`);
    for (const chunk of read) assert.ok(chunk.length < LIST_CHUNK_BYTES + 2 * size + 200, `a chunk of ${chunk.length}`);
    if (count >= 2000) assert.ok(read.length >= 7, `${read.length} chunks`);
  }
});

test('a list as Protobuf chunks: the chunks joined are encodeObject of the list, its length told first', async () => {
  // The last list is past what item encodings are kept for (16 MiB): its later items are sized, then encoded in runs.
  for (const [count, size] of [[0, 10], [3, 10], [2000, 1000], [30_000, 1000]] as const) {
    const list = configMapList(count, size);
    const { stream, length } = await protobufListStream(list);
    const body = Buffer.concat(await chunks(stream));
    assert.equal(body.length, length);
    assert.ok(body.equals(Buffer.from(encodeObject(list))), `${count} items`);
    assert.deepEqual((decodeObject(body).items as unknown[]).length, count);
  }
});

test('a large list goes to the socket in several writes as the client reads it: a slow reader holds the server to a few chunks, not the list', async (t) => {
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, send, port } = await startApiServer({ storage });
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  // 1,500 ConfigMaps of 20 kB: a 30 MB list, above what item encodings are kept for (16 MiB).
  const count = 1500;
  const value = 'v'.repeat(20_000);
  // Stored directly (as the registry stores them): 1,500 requests would take most of the test.
  for (let i = 0; i < count; i++) {
    const metadata = { name: `c${i}`, namespace: 'ns', uid: `uid-${i}`, creationTimestamp: '2024-01-01T00:00:00Z' };
    await storage.create(`/core/configmaps/ns/c${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { value } });
  }
  const path = '/api/v1/namespaces/ns/configmaps?resourceVersion=0';
  // Once whole, so that the encodings kept within their budget are in place before measuring.
  const whole = await send('GET', path);
  assert.equal(whole.status, 200);
  const listBytes = Buffer.byteLength(whole.body);
  assert.ok(listBytes > 30_000_000, `${listBytes} bytes`);
  assert.equal((JSON.parse(whole.body) as { items: unknown[] }).items.length, count);

  // What the server writes to this client's socket, write by write.
  const writes: number[] = [];
  let clientPort = 0;
  const write = TLSSocket.prototype.write;
  TLSSocket.prototype.write = function (this: TLSSocket, chunk: unknown, ...rest: unknown[]) {
    if (this.remotePort === clientPort && typeof chunk !== 'string') writes.push((chunk as Uint8Array).length);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  t.after(() => {
    TLSSocket.prototype.write = write;
  });

  const { ca } = await testCert();
  let received = 0;
  /** The most the server had written to the socket ahead of what the client had read. */
  let peakAhead = 0;
  const written = (): number => writes.reduce((sum, size) => sum + size, 0);
  const done = new Promise<void>((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, ca, agent: false }, (res) => {
      assert.equal(res.statusCode, 200);
      // A slow reader: it pauses 20 ms after every 256 kB (about 12 MB/s).
      let sincePause = 0;
      res.on('data', (chunk: Buffer) => {
        peakAhead = Math.max(peakAhead, written() - received);
        received += chunk.length;
        sincePause += chunk.length;
        if (sincePause >= 262_144) {
          sincePause = 0;
          res.pause();
          setTimeout(() => res.resume(), 20);
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('socket', (socket) => socket.on('connect', () => (clientPort = (socket as TLSSocket).localPort ?? 0)));
    req.on('error', reject);
    req.end();
  });
  // The reader is slow: the server writes as the socket drains, a few chunks ahead of it (what the
  // kernel's buffers hold), never the 30 MB at once as a list encoded whole would be written.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.ok(received < listBytes / 2, `read ${received} of ${listBytes} in 1 s`);
  await done;
  assert.ok(peakAhead < 8 * 1024 * 1024, `the server wrote up to ${peakAhead} bytes ahead of the reader of a ${listBytes}-byte list`);
  assert.equal(received, listBytes);
  assert.ok(writes.length > 50, `${writes.length} writes`);
  assert.ok(Math.max(...writes) < 2 * LIST_CHUNK_BYTES, `the largest write: ${Math.max(...writes)} bytes`);
});

test("a shared list is written from its objects, their apiVersion and kind left out, without making its items", async () => {
  const objects = Array.from({ length: 1200 }, (_, i) => ({
    // The store writes apiVersion and kind first; an object that does not is written from its item.
    ...(i % 100 === 7 ? { kind: 'ConfigMap', apiVersion: 'v1' } : { apiVersion: 'v1', kind: 'ConfigMap' }),
    metadata: { name: `c${i}`, namespace: 'ns', resourceVersion: String(i + 1) },
    data: { value: `é${i}` },
  }));
  const expected = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '77' }, items: objects.map(({ apiVersion: _a, kind: _k, ...item }) => item) };
  for (const count of [3, 1200]) {
    const list = sharedList({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '77' } }, objects.slice(0, count) as never[]) as unknown as ListObject;
    Object.defineProperty(list, 'items', { enumerable: true, get: () => assert.fail('the items were made') });
    const want = { ...expected, items: expected.items.slice(0, count) };
    assert.equal(Buffer.concat(await chunks(jsonListStream(list))).toString(), JSON.stringify(want));
    assert.equal(jsonListBuffer(list).toString(), JSON.stringify(want));
    const { stream } = await protobufListStream(list);
    assert.ok(Buffer.concat(await chunks(stream)).equals(Buffer.from(encodeObject(want))));
  }
  // Unstructured lists' items keep their apiVersion and kind.
  const unstructured = sharedList({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '77' } }, objects as never[], true) as unknown as ListObject;
  assert.equal(Buffer.concat(await chunks(jsonListStream(unstructured))).toString(), JSON.stringify({ ...expected, items: objects }));
});
