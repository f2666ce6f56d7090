import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type Status } from '@plat/apimachinery';
import { Client } from './client.js';
import { leaseResource } from './leader-election.js';
import type { Lease } from '@plat/apimachinery';
import { decodeObject, encodeObject, findProtobufKind, PROTOBUF_PREFIX } from '@plat/protobuf';
import type { ObjectCodec } from './kubeconfig.js';
import { NetworkError } from './rest.js';
import { namespacesRef, serviceAccountsRef, startTestApi, type TestApi } from './test-support.js';
import type { KubeObject, WatchEvent } from './types.js';

const statusOf = async (promise: Promise<unknown>): Promise<Status> => {
  try {
    await promise;
  } catch (error) {
    if (isStatusError(error)) return error.status;
    throw error;
  }
  assert.fail('expected a StatusError');
};

describe('resource client against an in-process server', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ bookmarkIntervalMs: 200 });
    await api.client.resource(namespacesRef).create({ metadata: { name: 'crud' } });
  });
  after(async () => {
    await api.close();
  });

  it('paths: core and named groups, namespaced and cluster-scoped, subresources', () => {
    const accounts = api.client.resource(serviceAccountsRef);
    assert.equal(accounts.path(), '/api/v1/serviceaccounts');
    assert.equal(accounts.namespace('a').path('b'), '/api/v1/namespaces/a/serviceaccounts/b');
    assert.equal(api.client.resource(namespacesRef).path('x', 'finalize'), '/api/v1/namespaces/x/finalize');
    assert.equal(api.client.resource(leaseResource('plat.io')).namespace('s').path(), '/apis/coordination.plat.io/v1/namespaces/s/leases');
    assert.throws(() => api.client.resource(namespacesRef).namespace('x'), /not namespaced/);
  });

  it('create, get, update with a resourceVersion, conflict on a stale one', async () => {
    const accounts = api.client.resource(serviceAccountsRef).namespace('crud');
    const created = await accounts.create({ metadata: { name: 'builder', labels: { a: '1' } } });
    assert.equal(created.kind, 'ServiceAccount');
    assert.ok(created.metadata.uid);
    const read = await accounts.get('builder');
    assert.equal(read.metadata.resourceVersion, created.metadata.resourceVersion);
    const updated = await accounts.update({ ...read, metadata: { ...read.metadata, labels: { a: '2' } } });
    assert.equal(updated.metadata.labels?.a, '2');
    const stale = await statusOf(accounts.update({ ...read, metadata: { ...read.metadata, labels: { a: '3' } } }));
    assert.equal(stale.code, 409);
    assert.equal(stale.reason, 'Conflict');
    const exists = await statusOf(accounts.create({ metadata: { name: 'builder' } }));
    assert.equal(exists.reason, 'AlreadyExists');
  });

  it('patch: merge and strategic merge patches of an object', async () => {
    const accounts = api.client.resource(serviceAccountsRef).namespace('crud');
    await accounts.create({ metadata: { name: 'patched', labels: { a: '1' } } });
    const merged = await accounts.patch('patched', 'merge', { metadata: { labels: { b: '2' } } });
    assert.deepEqual(merged.metadata.labels, { a: '1', b: '2' });
    const strategic = await accounts.patch('patched', 'strategic', { metadata: { labels: { a: null } } });
    assert.deepEqual(strategic.metadata.labels, { b: '2' });
  });

  it('a codec: bodies and answers in Protobuf where it carries the kind, its Status errors read', async () => {
    const seen = { encoded: 0, decoded: 0 };
    const codec: ObjectCodec = {
      mediaType: 'application/vnd.plat.protobuf',
      carries: (apiVersion, kind) => {
        const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
        return findProtobufKind(group!.replace(/\.?plat\.io$/, ''), version!, kind) !== undefined;
      },
      encode: (object) => (seen.encoded++, encodeObject(object)),
      decode: (bytes) => {
        seen.decoded++;
        assert.deepEqual([...bytes.subarray(0, 4)], [...PROTOBUF_PREFIX]);
        return decodeObject(bytes);
      },
    };
    const client = new Client({ ...api.config, codec, qps: 100, burst: 10 });
    try {
      const leases = client.resource<Lease>(leaseResource('plat.io')).namespace('crud');
      const created = await leases.create({ metadata: { name: 'proto' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 40 } });
      assert.equal(created.spec?.leaseDurationSeconds, 40);
      assert.equal(created.kind, 'Lease');
      assert.deepEqual(seen, { encoded: 1, decoded: 1 });
      // A patch travels as JSON whatever the codec; the answer comes back in Protobuf.
      const patched = await leases.patch('proto', 'merge', { spec: { holderIdentity: 'b' } });
      assert.equal(patched.spec?.holderIdentity, 'b');
      assert.deepEqual(seen, { encoded: 1, decoded: 2 });
      const missing = await statusOf(leases.get('nothing'));
      assert.equal(missing.code, 404);
      assert.equal(missing.reason, 'NotFound');
    } finally {
      client.close();
    }
  });

  it('delete with preconditions: a wrong uid is a conflict, the right one deletes', async () => {
    const accounts = api.client.resource(serviceAccountsRef).namespace('crud');
    const account = await accounts.create({ metadata: { name: 'doomed' } });
    const wrong = await statusOf(accounts.delete('doomed', { preconditions: { uid: 'not-it' } }));
    assert.equal(wrong.code, 409);
    assert.match(wrong.message ?? '', /Precondition failed: UID in precondition: not-it/);
    // ServiceAccount DELETE answers with the object (upstream's choice for this kind).
    const deleted = (await accounts.delete('doomed', { preconditions: { uid: account.metadata.uid! }, propagationPolicy: 'Background' })) as KubeObject;
    assert.equal(deleted.metadata.uid, account.metadata.uid);
    assert.equal((await statusOf(accounts.get('doomed'))).reason, 'NotFound');
  });

  it('delete with Orphan or Foreground leaves the object to the garbage collector behind its finalizer', async () => {
    const accounts = api.client.resource(serviceAccountsRef).namespace('crud');
    await accounts.create({ metadata: { name: 'orphaning' } });
    const marked = (await accounts.delete('orphaning', { propagationPolicy: 'Orphan' })) as KubeObject;
    assert.deepEqual(marked.metadata.finalizers, ['orphan']);
    assert.ok(marked.metadata.deletionTimestamp);
    await accounts.create({ metadata: { name: 'foreground' } });
    const foreground = (await accounts.delete('foreground', { propagationPolicy: 'Foreground' })) as KubeObject;
    assert.deepEqual(foreground.metadata.finalizers, ['foregroundDeletion']);
    const both = await statusOf(
      api.client.rest.request({ method: 'DELETE', path: accounts.path('foreground'), body: { propagationPolicy: 'Orphan', orphanDependents: true } }),
    );
    assert.equal(both.code, 422);
    assert.match(both.message ?? '', /propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set/);
    // Removing the finalizer lets the deletion finish.
    const current = await accounts.get('foreground');
    await accounts.update({ ...current, metadata: { ...current.metadata, finalizers: [] } });
    assert.equal((await statusOf(accounts.get('foreground'))).code, 404);
  });

  it('listAll reads every page at one resourceVersion', async () => {
    await api.client.resource(namespacesRef).create({ metadata: { name: 'paged' } });
    const accounts = api.client.resource(serviceAccountsRef).namespace('paged');
    for (let i = 0; i < 23; i++) await accounts.create({ metadata: { name: `sa-${String(i).padStart(2, '0')}` } });
    const page = await accounts.list({ limit: 10 });
    assert.equal(page.items.length, 10);
    assert.ok(page.metadata.continue);
    const all = await accounts.listAll({ pageSize: 10 });
    assert.equal(all.items.length, 23);
    assert.deepEqual(all.items.map((a) => a.metadata.name), Array.from({ length: 23 }, (_, i) => `sa-${String(i).padStart(2, '0')}`));
    assert.equal(all.metadata.continue, undefined);
    assert.ok(Number(all.metadata.resourceVersion) > 0);
    const selected = await accounts.listAll({ pageSize: 5, fieldSelector: 'metadata.name=sa-07' });
    assert.deepEqual(selected.items.map((a) => a.metadata.name), ['sa-07']);
  });

  it('deleteCollection removes the selected objects', async () => {
    await api.client.resource(namespacesRef).create({ metadata: { name: 'collection' } });
    const accounts = api.client.resource(serviceAccountsRef).namespace('collection');
    for (const name of ['a', 'b', 'c']) await accounts.create({ metadata: { name, labels: { keep: String(name === 'c') } } });
    await accounts.deleteCollection({ labelSelector: 'keep=false', propagationPolicy: 'Background' });
    assert.deepEqual((await accounts.list()).items.map((a) => a.metadata.name), ['c']);
  });

  it('watch streams ADDED, MODIFIED, DELETED and BOOKMARK events from a resourceVersion', async () => {
    await api.client.resource(namespacesRef).create({ metadata: { name: 'watched' } });
    const accounts = api.client.resource(serviceAccountsRef).namespace('watched');
    const list = await accounts.list();
    const watch = await accounts.watch({ resourceVersion: list.metadata.resourceVersion!, allowWatchBookmarks: true });
    const events: WatchEvent[] = [];
    const reading = (async () => {
      for await (const event of watch) {
        events.push(event);
        if (event.type === 'BOOKMARK' && events.some((e) => e.type === 'DELETED')) break;
      }
    })();
    const created = await accounts.create({ metadata: { name: 'w' } });
    await accounts.update({ ...created, automountServiceAccountToken: false });
    await accounts.delete('w');
    await reading;
    watch.stop();
    assert.deepEqual(
      events.filter((e) => e.type !== 'BOOKMARK').map((e) => [e.type, (e.object as KubeObject).metadata.name]),
      [['ADDED', 'w'], ['MODIFIED', 'w'], ['DELETED', 'w']],
    );
    const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
    assert.ok(Number((bookmark.object as KubeObject).metadata.resourceVersion) > 0);
  });

  it('a watch from a compacted resourceVersion reports 410', async () => {
    const accounts = api.client.resource(serviceAccountsRef).namespace('watched');
    const old = (await accounts.list()).metadata.resourceVersion!;
    // Events after `old` start at old + 1: two writes put it behind the compacted revision.
    await accounts.create({ metadata: { name: 'later' } });
    await accounts.create({ metadata: { name: 'later-still' } });
    await api.storage.compact(await api.storage.currentRevision());
    let code: number | undefined;
    try {
      const watch = await accounts.watch({ resourceVersion: old });
      for await (const event of watch) {
        if (event.type === 'ERROR') code = event.object.code;
        break;
      }
      watch.stop();
    } catch (error) {
      if (isStatusError(error)) code = error.code;
      else throw error;
    }
    assert.equal(code, 410);
  });

  it('stop() ends a watch quietly', { timeout: 10_000 }, async () => {
    const namespaces = api.client.resource(namespacesRef);
    const existing = (await namespaces.list()).items.map((n) => n.metadata.name!).sort();
    assert.ok(existing.includes('crud'), existing.join(' '));
    const watch = await namespaces.watch({ resourceVersion: '0' });
    const seen: WatchEvent[] = [];
    let sawAll!: () => void;
    const allSeen = new Promise<void>((resolve) => (sawAll = resolve));
    const reading = (async () => {
      for await (const event of watch) {
        seen.push(event);
        if (seen.length === existing.length) sawAll();
      }
    })();
    // Stopped while its reader waits for the next event, after the synthetic ADDED of each namespace.
    await allSeen;
    watch.stop();
    await reading;
    assert.deepEqual(seen.map((e) => e.type), existing.map(() => 'ADDED'));
    assert.deepEqual(seen.map((e) => (e.object as KubeObject).metadata.name).sort(), existing);
  });

  it('Lease: MicroTimes are stored with microseconds; a PUT creates a missing lease', async () => {
    const leases = api.client.resource<Lease>(leaseResource('plat.io')).namespace('plat-system');
    const created = await leases.create({
      metadata: { name: 'a' },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 15, renewTime: '2024-05-01T10:00:00.5Z' },
    });
    assert.equal(created.spec?.renewTime, '2024-05-01T10:00:00.500000Z');
    const put = await leases.update({ metadata: { name: 'b', namespace: 'plat-system' }, spec: { holderIdentity: 'y' } });
    assert.equal(put.spec?.holderIdentity, 'y');
    const invalid = await statusOf(leases.create({ metadata: { name: 'c' }, spec: { leaseDurationSeconds: 0 } }));
    assert.equal(invalid.code, 422);
    assert.match(invalid.message ?? '', /spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0/);
  });

  it('discovery: every group at its preferred version, without subresources', async () => {
    const { resources, failed } = await api.client.discovery.serverPreferredResources();
    assert.deepEqual(failed, []);
    const find = (group: string, name: string) => resources.find((r) => r.group === group && r.name === name);
    assert.deepEqual(
      { ...find('', 'namespaces'), verbs: undefined },
      { group: '', version: 'v1', resource: 'namespaces', name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: undefined, singularName: 'namespace', shortNames: ['ns'] },
    );
    assert.equal(find('coordination.plat.io', 'leases')?.namespaced, true);
    assert.ok(find('rbac.authorization.plat.io', 'clusterroles')?.verbs.includes('watch'));
    assert.equal(resources.some((r) => r.name.includes('/')), false);
    const groups = await api.client.discovery.serverGroups();
    assert.equal(groups[0]!.name, '');
  });

  it('a bad token is a 401 Status; an unreachable server a NetworkError', async () => {
    const stranger = new Client({ ...api.config, token: 'nobody' });
    assert.equal((await statusOf(stranger.resource(namespacesRef).list())).code, 401);
    stranger.close();
    const nowhere = new Client({ ...api.config, server: 'https://127.0.0.1:1' });
    await assert.rejects(nowhere.resource(namespacesRef).list(), NetworkError);
    nowhere.close();
  });
});
