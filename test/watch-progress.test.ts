// Bookmarks from etcd's progress notifications, end to end: a watch of a quiet resource learns of
// writes elsewhere through etcd's periodic notifications, and its bookmark says so.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdProcess } from '@plat/storage/testing';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

describe('watch bookmarks over etcd with periodic progress notifications', () => {
  let etcd: EtcdProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  const servers: ApiserverProcess[] = [];
  before(async () => {
    etcd = await startEtcd({ progressNotifyIntervalMs: 300 });
    tokens = await adminTokenFile();
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await etcd?.stop();
    await tokens?.cleanup();
  });

  const cases = [
    { name: 'served by the watch cache', args: [] as string[] },
    { name: 'served by etcd (--watch-cache=false)', args: ['--watch-cache=false'] },
  ];
  for (const { name, args } of cases) {
    it(`${name}: a quiet resource\u2019s bookmark carries a revision written to another resource since`, async () => {
      const server = await startApiserver([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokens.file}`, '--etcd-compaction-interval=0', ...args]);
      servers.push(server);
      const call = async (path: string, body?: unknown): Promise<{ metadata: { resourceVersion: string } }> => {
        const response = await server.request(path, { token: tokens.token, ...(body !== undefined && { method: 'POST', body }) });
        assert.ok(response.status < 300, `${path}: ${response.status} ${response.body}`);
        return JSON.parse(response.body) as { metadata: { resourceVersion: string } };
      };
      // An unpaged list starts the resource's watch cache (where there is one), which then serves the watch.
      const quiet = await call('/api/v1/namespaces/default/serviceaccounts');
      // The writes elsewhere come first, so that however long they take the watch's one bookmark
      // (2 s before its timeout) comes after them: only a progress notification can carry it past them.
      let elsewhere = 0;
      for (let i = 0; i < 3; i++) {
        const role = { metadata: { name: `elsewhere-${servers.length}-${i}` }, rules: [] };
        elsewhere = Number((await call('/apis/rbac.authorization.plat.io/v1/namespaces/default/roles', role)).metadata.resourceVersion);
      }
      const watch = await server.watch(
        `/api/v1/namespaces/default/serviceaccounts?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${quiet.metadata.resourceVersion}`,
        { token: tokens.token },
      );
      assert.equal(watch.status, 200);
      // The bookmark 2 s before the timeout, after etcd has had time for a notification or three.
      const bookmark = await watch.next(5000);
      watch.close();
      assert.equal(bookmark?.type, 'BOOKMARK');
      assert.ok(
        Number(bookmark?.object.metadata.resourceVersion) >= elsewhere,
        `bookmark at ${bookmark?.object.metadata.resourceVersion}, a write elsewhere at ${elsewhere}`,
      );
    });
  }
});
