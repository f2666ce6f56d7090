// Several replicas on one etcd: they share readiness on it, recover with it, and share compaction.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdChannel, decodeRangeResponse, encodeRangeRequest } from '@plat/storage/etcd';
import { startEtcd, type EtcdProcess } from '@plat/storage/testing';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

describe('two apiserver replicas on one etcd', () => {
  let etcd: EtcdProcess;
  const replicas: ApiserverProcess[] = [];
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;

  before(async () => {
    etcd = await startEtcd();
    tokens = await adminTokenFile();
    // Both replicas start at once: the system namespaces are created exactly once between them.
    replicas.push(
      ...(await Promise.all(
        [0, 1].map(() =>
          startApiserver([`--etcd-servers=${etcd.endpoint}`, '--etcd-compaction-interval=1s', `--token-auth-file=${tokens.file}`]),
        ),
      )),
    );
  });
  after(async () => {
    const codes = await Promise.all(replicas.map((replica) => replica.stop()));
    await etcd.stop();
    await tokens.cleanup();
    assert.deepEqual(codes, [0, 0], 'replicas exit 0 on SIGTERM');
  });

  it('both are ready', async () => {
    for (const replica of replicas) {
      await eventually('readyz', async () => (await replica.request('/readyz')).status === 200);
    }
  });

  it('see the same data: a write through one is read, listed and watched through the other', async () => {
    const [a, b] = replicas as [ApiserverProcess, ApiserverProcess];
    const token = tokens.token;
    const list = await b.request('/api/v1/namespaces', { token });
    const watch = await b.watch(`/api/v1/namespaces?watch=1&resourceVersion=${JSON.parse(list.body).metadata.resourceVersion}`, { token });
    const created = await a.request('/api/v1/namespaces', { token, method: 'POST', body: { metadata: { name: 'shared' } } });
    assert.equal(created.status, 201, created.body);
    const read = await b.request('/api/v1/namespaces/shared', { token });
    assert.equal(read.status, 200, read.body);
    assert.equal(JSON.parse(read.body).metadata.uid, JSON.parse(created.body).metadata.uid);
    const event = await watch.next();
    assert.equal(event?.type, 'ADDED');
    assert.equal(event?.object.metadata.name, 'shared');
    watch.close();
    const names = JSON.parse((await a.request('/api/v1/namespaces', { token })).body).items.map(
      (item: { metadata: { name: string } }) => item.metadata.name,
    );
    assert.deepEqual(names, ['default', 'plat-node-lease', 'plat-public', 'plat-system', 'shared']);
  });

  it('compact history at most once per interval between them', async () => {
    const client = new EtcdChannel({ endpoints: [etcd.endpoint], timeoutMs: 5000 });
    try {
      const version = async () =>
        decodeRangeResponse(await client.call('/etcdserverpb.KV/Range', encodeRangeRequest({ key: Buffer.from('compact_rev_key') }))).kvs[0]?.version ?? 0;
      const first = await version();
      const start = Date.now();
      // Six claims, however long a loaded machine takes to make them; then at most one claim per
      // 1 s interval between the two replicas, give or take the first (each replica ticks every
      // interval: two claims per interval would be there in half the time).
      await eventually('six claims of the compaction key', async () => (await version()) - first >= 6, 30_000);
      const claimed = (await version()) - first;
      const intervals = (Date.now() - start) / 1000;
      assert.ok(claimed <= intervals + 1.5, `the compaction key was claimed ${claimed} times in ${intervals} intervals`);
    } finally {
      client.close();
    }
  });

  it('both report etcd down on /readyz but stay live, and recover when it returns', async () => {
    await etcd.kill();
    try {
      for (const replica of replicas) {
        await eventually('readyz to fail', async () => {
          const response = await replica.request('/readyz?verbose');
          return response.status === 500 && response.body.includes('[-]etcd failed');
        });
        assert.equal((await replica.request('/livez')).status, 200);
      }
    } finally {
      await etcd.restart();
    }
    for (const replica of replicas) {
      await eventually('readyz to recover', async () => (await replica.request('/readyz')).status === 200);
    }
  });
});
