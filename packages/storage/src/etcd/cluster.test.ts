// The etcd backend on a three-member TLS cluster: client certificates, a member frozen under load,
// and TLS mistakes reported as such, quickly.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster, type EtcdCluster } from '../testing/etcd-process.js';
import { clientTls, makeEtcdCertificates } from '../testing/etcd-certs.js';
import type { EtcdCertificates } from '../testing/etcd-process.js';
import { EtcdStorage, type EtcdStorageOptions } from './store.js';
import { isStorageError } from '../errors.js';
import type { StoredObject, WatchEvent } from '../interface.js';

let certificates: EtcdCertificates;
let cluster: EtcdCluster;
const stores: EtcdStorage[] = [];
const newStore = (options: Partial<EtcdStorageOptions>): EtcdStorage => {
  const store = new EtcdStorage({
    hosts: cluster.endpoints,
    prefix: '/cluster-test',
    compactionIntervalMs: 0,
    onBackgroundError: (error) => assert.fail(`background error: ${String(error)}`),
    ...options,
  });
  stores.push(store);
  return store;
};

before(async () => {
  certificates = await makeEtcdCertificates();
  cluster = await startEtcdCluster({ members: 3, tls: certificates });
});
after(async () => {
  await Promise.all(stores.map((store) => store.close().catch(() => {})));
  await cluster?.stop();
});

describe('etcd backend on a 3-member TLS cluster', () => {
  it('serves over TLS with a client certificate', async () => {
    const store = newStore({ tls: await clientTls(certificates) });
    const created = await store.create<StoredObject>('/things/a', { metadata: { name: 'a' } });
    const read = await store.get<StoredObject>('/things/a');
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.match(store.endpoint, /^https:\/\/127\.0\.0\.1:\d+$/);
    await store.checkHealth();
  });

  it('a frozen member in use: writes go on through the others within seconds, none acknowledged is lost, the watch sees each revision once', async () => {
    const store = newStore({ tls: await clientTls(certificates), requestTimeoutMs: 10_000 });
    const start = await store.currentRevision();
    const watch = await store.watch<StoredObject>('/load/', { recursive: true, revision: start });
    const seen: WatchEvent[] = [];
    const watching = (async () => {
      for await (const event of watch) seen.push(event);
    })();
    const frozen = cluster.members.find((member) => member.endpoint === store.endpoint)!;
    const acknowledged: number[] = [];
    /** [sent, acknowledged] times. */
    const completions: Array<[number, number]> = [];
    let stop = false;
    let next = 0;
    let failures = 0;
    const writers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const name = `w${next++}`;
        const sent = Date.now();
        try {
          const created = await store.create<StoredObject>(`/load/${name}`, { metadata: { name } });
          acknowledged.push(Number(created.metadata!.resourceVersion));
          completions.push([sent, Date.now()]);
        } catch (error) {
          assert.ok(isStorageError(error, 'Unavailable'), String(error));
          failures++;
        }
      }
    });
    let healthFailures = 0;
    let frozenAt = Infinity;
    let healthChecksAfterFreeze = 0;
    const health = (async () => {
      while (!stop) {
        const started = Date.now();
        await store.checkHealth().catch((error: Error) => {
          healthFailures++;
          process.stdout.write(`# health failed at +${Date.now() - frozenAt} ms: ${error.message}\n`);
        });
        if (started > frozenAt) healthChecksAfterFreeze++;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(store.endpoint, frozen.endpoint, 'the member frozen is the one in use');
      frozenAt = Date.now();
      frozen.freeze();
      // The window ends once writes go on through another member and health checks begun after
      // the freeze have passed (or at 5 s, where the assertions below fail), plus a second more
      // of writes and checks on the new member.
      const settled = () =>
        store.endpoint !== frozen.endpoint && completions.some(([sent]) => sent > frozenAt) && healthChecksAfterFreeze >= 2;
      while (!settled() && Date.now() - frozenAt < 5000) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      stop = true;
      await Promise.all([...writers, health]);
      // From the freeze to the first acknowledgement of a write sent after it: each writer's
      // write in flight on the frozen member has to be answered before it sends another.
      const after = completions.filter(([sent]) => sent > frozenAt).map(([, acked]) => acked);
      assert.ok(after.length > 0, 'writes resumed');
      const recovery = after[0]! - frozenAt;
      process.stdout.write(`# frozen member: writes resumed ${recovery} ms after the freeze; ${acknowledged.length} acknowledged, ${failures} failed; health failures ${healthFailures}\n`);
      assert.ok(recovery < 5000, `writes resumed after ${recovery} ms`);
      assert.notEqual(store.endpoint, frozen.endpoint, 'the store moved to another member');
      assert.equal(healthFailures, 0, 'the health check passed throughout');
      // Every acknowledged write is there, and the watch saw each revision once, in order.
      const end = await store.currentRevision();
      const deadline = Date.now() + 5000;
      while (seen.length < end - start && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const list = await store.list<StoredObject>('/load/');
      const stored = new Set(list.items.map((item) => Number(item.metadata!.resourceVersion)));
      for (const revision of acknowledged) assert.ok(stored.has(revision), `acknowledged revision ${revision} is stored`);
      const revisions = seen.map((event) => event.revision);
      assert.deepEqual(revisions, [...stored].sort((a, b) => a - b), 'the watch saw every stored revision once, in order');
    } finally {
      stop = true;
      frozen.thaw();
      watch.stop();
      await watching;
    }
  });

  it('TLS mistakes are clear errors, quickly: a CA that did not sign the members, a client certificate of another CA, none at all', async () => {
    const other = await makeEtcdCertificates();
    const ours = await clientTls(certificates);
    const theirs = await clientTls(other);
    const cases = [
      { name: 'wrong CA', tls: { ...ours, ca: theirs.ca }, message: /certificate is not trusted/ },
      { name: 'untrusted client certificate', tls: { ...ours, cert: theirs.cert, key: theirs.key }, message: /refused the TLS handshake|closed/ },
      { name: 'no client certificate', tls: { ca: ours.ca }, message: /refused the TLS handshake|closed/ },
    ];
    for (const { name, tls, message } of cases) {
      const store = newStore({ tls });
      const started = Date.now();
      await assert.rejects(store.checkHealth(), (error: Error) => {
        assert.match(error.message, message, `${name}: ${error.message}`);
        return true;
      });
      await assert.rejects(store.create('/never', { metadata: { name: 'never' } }), (error: Error) => {
        assert.ok(isStorageError(error, 'Unavailable'), `${name}: ${error.message}`);
        assert.match(error.message, message, `${name}: ${error.message}`);
        return true;
      });
      const took = Date.now() - started;
      process.stdout.write(`# ${name}: ${took} ms\n`);
      assert.ok(took < 3000, `${name}: ${took} ms`);
    }
  });
});
