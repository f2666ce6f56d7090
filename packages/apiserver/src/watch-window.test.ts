import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedStorage, createStorage, type Storage } from '@plat/storage';
import { startApiServer } from './testing/index.js';

/** A watch request's lines, read until `count` or the stream's end. */
async function watchLines(send: (path: string) => Promise<{ status: number; body: string }>, path: string): Promise<{ status: number; events: { type: string; object: Record<string, unknown> }[] }> {
  const response = await send(path);
  return { status: response.status, events: response.body.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) };
}

for (const cached of [true, false]) {
  test(`a watch from before the ${cached ? 'watch cache\u2019s window' : 'compacted revision'} gets one ERROR event carrying 410 Expired (watch cache ${cached ? 'on' : 'off'})`, async (t) => {
    const inner = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
    // With the cache: a window of 5 events, the store keeping everything (nothing compacted).
    const storage: Storage = cached ? new CachedStorage(inner, { maxHistoryEvents: 5 }) : inner;
    const innerWatch = inner.watch.bind(inner);
    let storeWatches = 0;
    inner.watch = ((key: string, options?: object) => (storeWatches++, innerWatch(key, options))) as typeof inner.watch;
    const { server, send } = await startApiServer({ storage });
    t.after(() => server.shutdown());
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
    const revisions: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await send('POST', '/api/v1/namespaces/ns/configmaps', { metadata: { name: `c${i}` } });
      revisions.push((JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    }
    if (!cached) await inner.compact(Number(revisions[9]));
    const before = storeWatches;
    const watch = await watchLines((path) => send('GET', path), `/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=${revisions[1]}&timeoutSeconds=5`);
    assert.equal(watch.status, 200);
    assert.equal(watch.events.length, 1, JSON.stringify(watch.events));
    const [event] = watch.events;
    assert.equal(event!.type, 'ERROR');
    assert.equal(event!.object.code, 410);
    assert.equal(event!.object.reason, 'Expired');
    // Upstream's words, with the oldest revision the watch could have started from.
    const oldest = cached ? Number(revisions[4]) : Number(revisions[9]) - 1;
    assert.equal(event!.object.message, `too old resource version: ${revisions[1]} (${oldest})`);
    // With the cache, its own answer: no watch of the store for this client.
    if (cached) assert.equal(storeWatches, before);
    // Inside the window (or history): served.
    const recent = await watchLines((path) => send('GET', path), `/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=${revisions[cached ? 6 : 9]}&timeoutSeconds=1`);
    assert.deepEqual(recent.events.map((e) => e.type), cached ? ['ADDED', 'ADDED', 'ADDED'] : []);
  });
}
