import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { CachedStorage, createStorage, type Storage } from '@plat/storage';
import { startApiServer, type ApiTestServer } from '@plat/apiserver/testing';
import { testCert } from '@plat/apiserver/testing';
import { WatchBacklog } from './watch-backlog.js';

describe('WatchBacklog: bytes held above the least held since the first run', () => {
  const cases: { name: string; samples: number[]; over: boolean[] }[] = [
    { name: 'a reader that keeps up', samples: [0, 10, 0, 50, 0], over: [false, false, false, false, false] },
    { name: 'a reader that stops', samples: [0, 40, 90, 101], over: [false, false, false, true] },
    // The first sample holds what is left of the initial state: not counted.
    { name: 'a stalled reader with a large initial state', samples: [500, 550, 600, 601], over: [false, false, false, true] },
    { name: 'a reader working through its initial state', samples: [500, 300, 350, 401, 402], over: [false, false, false, true, true] },
  ];
  for (const { name, samples, over } of cases) {
    it(name, () => {
      const backlog = new WatchBacklog(100);
      assert.deepEqual(
        samples.map((buffered) => backlog.over(buffered)),
        over,
      );
    });
  }
});

const OBJECT_BYTES = 100 * 1024;
const LIMIT = 1024 * 1024;
const accounts = '/api/v1/namespaces/default/serviceaccounts';

/** A watch on a raw TLS connection that reads the response's head and then as it is told. */
async function rawWatch(port: number, path: string): Promise<{ socket: TLSSocket; read: () => Promise<string> }> {
  const { ca } = await testCert();
  const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n`);
  let received = '';
  const onData = (chunk: Buffer): void => {
    received += chunk.toString('latin1');
  };
  socket.on('data', onData);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  while (!received.includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 5));
  socket.pause();
  assert.match(received, /^HTTP\/1\.1 200/);
  return {
    socket,
    /** Reads until the server closes the connection; everything received, head included. */
    read: async () => {
      socket.resume();
      await closed;
      return received;
    },
  };
}

/** Counts the events a reading client receives, resolving when `count` have come. */
function readingWatch(port: number, path: string, count: number): Promise<number> {
  return testCert().then(
    ({ ca }) =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, ca, agent: false }, (res) => {
          let lines = 0;
          res.on('data', (chunk: Buffer) => {
            for (const byte of chunk) if (byte === 10) lines++;
            if (lines >= count) {
              req.destroy();
              resolve(lines);
            }
          });
          res.on('end', () => resolve(lines));
        });
        req.on('error', reject);
        req.end();
      }),
  );
}

/** A server with the namespace the objects go in. */
async function start(storage: Storage): Promise<ApiTestServer> {
  const server = await startApiServer({ storage }, { watchBacklogBytes: LIMIT });
  assert.equal((await server.send('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201);
  return server;
}

const create = async (server: ApiTestServer, name: string): Promise<void> => {
  const created = await server.send('POST', accounts, { metadata: { name, annotations: { filler: 'x'.repeat(OBJECT_BYTES) } } });
  assert.equal(created.status, 201, created.body.slice(0, 200));
};

const terminated = async (server: ApiTestServer): Promise<number> => {
  const metrics = (await server.get('/metrics')).body;
  const line = metrics.split('\n').find((text) => text.startsWith('apiserver_terminated_watchers_total{resource="serviceaccounts"} '));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
};

const storages: [string, () => Storage][] = [
  ['from the watch cache', () => new CachedStorage(createStorage({ backend: 'memory' }))],
  ['from storage (--watch-cache=false)', () => createStorage({ backend: 'memory' })],
];

for (const [served, storage] of storages) {
  describe(`watchers served ${served}, with a backlog bound of 1 MiB`, () => {
    it('a watcher that stops reading is closed once its backlog passes the bound, and counted; one that reads gets every event', { timeout: 30_000 }, async () => {
      const server = await start(storage());
      try {
        const start = JSON.parse((await server.send('GET', accounts)).body) as { metadata: { resourceVersion: string } };
        const path = `${accounts}?watch=1&resourceVersion=${start.metadata.resourceVersion}`;
        const stalled = await rawWatch(server.port, path);
        const writes = 100;
        const reader = readingWatch(server.port, path, writes);
        // 10 MB: more than the kernel's socket buffers take for the stalled watcher, and the bound.
        for (let i = 0; i < writes; i++) await create(server, `big-${i}`);
        assert.equal(await reader, writes);
        assert.equal(await terminated(server), 1);
        const received = await stalled.read();
        // Cut off mid-stream: no last chunk, and far from every event.
        assert.ok(!received.endsWith('0\r\n\r\n'), 'the stalled watch was ended cleanly, not cut off');
        assert.ok(received.length < writes * OBJECT_BYTES, `the stalled watcher received ${received.length} bytes`);
      } finally {
        await server.server.shutdown();
      }
    });

    it('a watch whose initial state is larger than the bound is not closed for it', { timeout: 30_000 }, async () => {
      const server = await start(storage());
      try {
        const initial = 100;
        for (let i = 0; i < initial; i++) await create(server, `listed-${i}`);
        // No resourceVersion: the watch begins with every object, 10 MB in one go. The client
        // reads none of it for a while, as events worth less than the bound come.
        const watch = await rawWatch(server.port, `${accounts}?watch=1&timeoutSeconds=2`);
        for (let i = 0; i < 3; i++) await create(server, `later-${i}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const received = await watch.read();
        assert.equal(await terminated(server), 0);
        assert.ok(received.endsWith('0\r\n\r\n'), 'the watch was cut off');
        assert.equal(received.match(/"type":"ADDED"/g)?.length, initial + 3);
      } finally {
        await server.server.shutdown();
      }
    });
  });
}
