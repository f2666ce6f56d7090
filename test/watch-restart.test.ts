// A client that asked for bookmarks resumes its watch after the replica it watched through restarts,
// without listing again: the shutdown ends its watch with a last bookmark, and the restarted
// replica's watch cache fills its window back from etcd's history, so the bookmark's
// resourceVersion is inside it (not a 410, as it would be in a window that starts at the new list).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdProcess } from '@plat/storage/testing';
import { adminTokenFile, startApiserver, type ApiserverProcess, type WatchEventLine } from './support/apiserver-process.js';

const PROGRESS_INTERVAL_MS = 500;

describe('watches resume across a replica restart', () => {
  let etcd: EtcdProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let writer: ApiserverProcess;
  const replicas: ApiserverProcess[] = [];
  const start = async (): Promise<ApiserverProcess> => {
    const replica = await startApiserver([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokens.file}`, '--etcd-compaction-interval=0']);
    replicas.push(replica);
    return replica;
  };
  const create = async (path: string, name: string): Promise<string> => {
    const created = await writer.request(path, { token: tokens.token, method: 'POST', body: { metadata: { name } } });
    assert.equal(created.status, 201, created.body);
    return (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  };
  const ready = async (replica: ApiserverProcess): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while ((await replica.request('/readyz').catch(() => ({ status: 0 }))).status !== 200) {
      if (Date.now() > deadline) assert.fail('not ready within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  before(async () => {
    // Progress notifications twice a second (kube-up sets 5 s): the watch cache learns it is
    // current, and bookmarks carry that.
    etcd = await startEtcd({ progressNotifyIntervalMs: PROGRESS_INTERVAL_MS });
    tokens = await adminTokenFile();
    writer = await start();
    await ready(writer);
    assert.equal((await writer.request('/api/v1/namespaces', { token: tokens.token, method: 'POST', body: { metadata: { name: 'watched' } } })).status, 201);
  });
  after(async () => {
    for (const replica of replicas) await replica.stop();
    await tokens.cleanup();
    await etcd.stop();
  });

  it('the last bookmark before a restart is a resourceVersion the restarted replica serves the watch from', async () => {
    const first = await create('/api/v1/namespaces/watched/configmaps', 'before');
    const watched = await start();
    await ready(watched);
    const watch = await watched.watch(`/api/v1/namespaces/watched/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${first}`, { token: tokens.token });
    assert.equal(watch.status, 200);
    // Writes elsewhere move etcd's revision past the watch's last event.
    for (let i = 0; i < 5; i++) await create('/api/v1/namespaces/watched/serviceaccounts', `elsewhere-${i}`);
    const lastElsewhere = Number(await create('/api/v1/namespaces/watched/serviceaccounts', 'elsewhere-last'));
    // Let a progress notification reach the cache, so that the bookmark can say it: etcd sends one
    // to a watch that had no event over a whole interval, so within two of them (four, for a loaded
    // machine). Nothing outside the replica shows the cache's revision, so this is a wait.
    await new Promise((resolve) => setTimeout(resolve, 4 * PROGRESS_INTERVAL_MS));
    const stopped = watched.stop();
    const events: WatchEventLine[] = [];
    for (let event = await watch.next(15_000); event; event = await watch.next(15_000)) events.push(event);
    await stopped;
    const bookmark = events.at(-1);
    assert.equal(bookmark?.type, 'BOOKMARK', JSON.stringify(events));
    const resumeFrom = bookmark!.object.metadata.resourceVersion!;
    assert.ok(Number(resumeFrom) >= lastElsewhere, `the bookmark (${resumeFrom}) carries the progress past ${lastElsewhere}`);

    // While it is down, the resource is written through the other replica.
    await create('/api/v1/namespaces/watched/configmaps', 'while-down');
    for (let i = 0; i < 5; i++) await create('/api/v1/namespaces/watched/serviceaccounts', `down-${i}`);
    const restarted = await start();
    await ready(restarted);
    // Written after the restart: the filling of the new cache's window ends with it at the latest.
    await create('/api/v1/namespaces/watched/configmaps', 'after');
    const resumed = await restarted.watch(`/api/v1/namespaces/watched/configmaps?watch=1&resourceVersion=${resumeFrom}`, { token: tokens.token });
    assert.equal(resumed.status, 200);
    const names: string[] = [];
    for (let i = 0; i < 2; i++) {
      const event = await resumed.next(20_000);
      assert.notEqual(event?.type, 'ERROR', JSON.stringify(event));
      names.push(`${event!.type} ${event!.object.metadata.name}`);
    }
    assert.deepEqual(names, ['ADDED while-down', 'ADDED after']);
    resumed.close();
  });

});
