import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, InformerFactory } from './client.js';
import { Informer } from './informer.js';
import { eventually, namespacesRef, serviceAccountsRef, startRelay, startTestApi, type Relay, type TestApi } from './test-support.js';
import type { KubeObject } from './types.js';

type Seen = [string, string];

/** An informer of service accounts in one namespace, recording its notifications as [event, name]. */
function recording(informer: Informer): Seen[] {
  const seen: Seen[] = [];
  informer.addEventHandler({
    onAdd: (o, initial) => seen.push([initial ? 'initial' : 'add', o.metadata.name!]),
    onUpdate: (_old, o) => seen.push(['update', o.metadata.name!]),
    onDelete: (o) => seen.push(['delete', o.metadata.name!]),
  });
  return seen;
}

const fastBackoff = { initialMs: 20, maxMs: 100 };

describe('informer', () => {
  let api: TestApi;
  const informers: Informer[] = [];
  const track = (informer: Informer): Informer => (informers.push(informer), informer);
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await Promise.all(informers.map((i) => i.stop()));
    await api.close();
  });

  const namespace = async (name: string) => {
    await api.client.resource(namespacesRef).create({ metadata: { name } });
    return api.client.resource(serviceAccountsRef).namespace(name);
  };

  it('lists into its cache, then follows adds, updates and deletes', async () => {
    const accounts = await namespace('inf-basic');
    await accounts.create({ metadata: { name: 'before' } });
    const informer = track(new Informer(accounts, { backoff: fastBackoff }));
    const seen = recording(informer);
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    assert.deepEqual(seen, [['initial', 'before']]);
    assert.equal(informer.get('inf-basic/before')?.metadata.name, 'before');

    const created = await accounts.create({ metadata: { name: 'after' } });
    await accounts.update({ ...created, metadata: { ...created.metadata, labels: { x: 'y' } } });
    await accounts.delete('before');
    await eventually('three events', () => seen.length === 4);
    assert.deepEqual(seen.slice(1), [['add', 'after'], ['update', 'after'], ['delete', 'before']]);
    assert.deepEqual(informer.list().map((o) => o.metadata.labels), [{ x: 'y' }]);
    // The version of the last event: the deletion, after the update.
    assert.ok(Number(informer.lastSyncResourceVersion) > Number((await accounts.get('after')).metadata.resourceVersion));
  });

  it('a handler added after the sync is told of the cache as adds', async () => {
    const accounts = await namespace('inf-late');
    await accounts.create({ metadata: { name: 'x' } });
    const informer = track(new Informer(accounts));
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(recording(informer), [['initial', 'x']]);
  });

  it('a broken stream means watching again from the last resourceVersion: what changed meanwhile comes as events, without a list', async () => {
    const accounts = await namespace('inf-broken');
    await accounts.create({ metadata: { name: 'stays' } });
    await accounts.create({ metadata: { name: 'goes' } });
    let relay: Relay | undefined;
    relay = await startRelay(Number(new URL(api.config.server).port));
    const viaRelay = new Client({ ...api.config, server: `https://127.0.0.1:${relay.port}` });
    try {
      const informer = track(new Informer(viaRelay.resource(serviceAccountsRef).namespace('inf-broken'), { backoff: fastBackoff }));
      const seen = recording(informer);
      informer.start();
      await informer.waitForSync();
      relay.cut(true);
      await accounts.delete('goes');
      await accounts.create({ metadata: { name: 'new' } });
      const stays = await accounts.get('stays');
      await accounts.update({ ...stays, metadata: { ...stays.metadata, labels: { changed: 'yes' } } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      relay.up();
      await eventually('the events of the outage', () => seen.length === 5, 5000);
      // In the order they happened: a watch resumed, not a list reconciled.
      assert.deepEqual(seen.slice(2), [['delete', 'goes'], ['add', 'new'], ['update', 'stays']]);
      assert.deepEqual(informer.list().map((o) => o.metadata.name).sort(), ['new', 'stays']);
      assert.equal(informer.lists, 1);
    } finally {
      viaRelay.close();
      await relay.close();
    }
  });

  it('a 410 on watching again means listing again', async () => {
    const accounts = await namespace('inf-gone');
    await accounts.create({ metadata: { name: 'a' } });
    // The server ends each watch after 1 to 2 s; no bookmarks (the default interval is 60 s).
    const informer = track(new Informer(accounts, { minWatchTimeoutSeconds: 1, backoff: fastBackoff }));
    informer.start();
    await informer.waitForSync();
    const listedAt = Number(informer.lastSyncResourceVersion);
    // Writes elsewhere move the revision on; compaction then leaves the informer's version behind.
    const others = await namespace('inf-gone-elsewhere');
    await others.create({ metadata: { name: 'b' } });
    await others.create({ metadata: { name: 'c' } });
    const compacted = await api.storage.currentRevision();
    await api.storage.compact(compacted);
    await eventually('a new list', () => Number(informer.lastSyncResourceVersion) >= compacted, 5000);
    assert.ok(Number(informer.lastSyncResourceVersion) > listedAt);
    assert.ok(informer.lists >= 2, `lists: ${informer.lists}`);
    assert.deepEqual(informer.list().map((o) => o.metadata.name), ['a']);
  });

  it('survives the server going away and coming back', async () => {
    const accounts = await namespace('inf-outage');
    const relay = await startRelay(Number(new URL(api.config.server).port));
    const viaRelay = new Client({ ...api.config, server: `https://127.0.0.1:${relay.port}` });
    try {
      const informer = track(new Informer(viaRelay.resource(serviceAccountsRef).namespace('inf-outage'), { backoff: fastBackoff }));
      informer.start();
      await informer.waitForSync();
      relay.cut(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await accounts.create({ metadata: { name: 'during' } });
      relay.up();
      await eventually('the object created during the outage', () => informer.get('inf-outage/during') !== undefined, 5000);
    } finally {
      viaRelay.close();
      await relay.close();
    }
  });

  it('a factory shares one informer per resource and namespace', async () => {
    const factory = new InformerFactory(api.client, { backoff: fastBackoff });
    const a = factory.informerFor(namespacesRef);
    assert.equal(factory.informerFor(namespacesRef), a);
    assert.notEqual(factory.informerFor(serviceAccountsRef, 'default'), factory.informerFor(serviceAccountsRef));
    assert.equal(factory.existing(namespacesRef), a);
    assert.equal(factory.hasSynced(), false);
    factory.start();
    assert.equal(await factory.waitForSync(), true);
    assert.equal(factory.hasSynced(), true);
    assert.ok(a.list().some((n: KubeObject) => n.metadata.name === 'default'));
    // An informer asked for after start starts at once; until it syncs, the factory has not.
    const late = factory.informerFor(serviceAccountsRef, 'kube-nothing');
    assert.equal(factory.hasSynced(), false);
    assert.equal(await late.waitForSync(), true);
    assert.equal(factory.hasSynced(), true);
    await factory.stop();
  });

  it('waitForSync gives up when its signal aborts', async () => {
    const nowhere = new Client({ ...api.config, server: 'https://127.0.0.1:1' });
    const informer = track(new Informer(nowhere.resource(namespacesRef), { backoff: fastBackoff }));
    informer.start();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    assert.equal(await informer.waitForSync(controller.signal), false);
    await informer.stop();
    nowhere.close();
  });
});
