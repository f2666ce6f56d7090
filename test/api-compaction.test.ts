// Expired history over HTTP (410), on both backends: continue tokens, exact lists and watches
// from a compacted revision.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdProcess } from '@plat/storage/testing';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

const backends: Array<[string, () => Promise<{ args: string[]; stop: () => Promise<void> }>]> = [
  ['memory', async () => ({ args: ['--storage-backend=memory'], stop: async () => {} })],
  [
    'etcd3',
    async () => {
      const etcd: EtcdProcess = await startEtcd();
      return { args: [`--etcd-servers=${etcd.endpoint}`], stop: () => etcd.stop() };
    },
  ],
];

for (const [backend, setUp] of backends) {
  describe(`compacted history answers 410: ${backend}`, () => {
    let server: ApiserverProcess;
    /** A replica of the same etcd without a watch cache (etcd only: a memory store is one process's). */
    let uncached: ApiserverProcess | undefined;
    let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
    let stopBackend: () => Promise<void>;
    const call = async (path: string, method = 'GET', body?: unknown) => {
      const response = await server.request(path, { token: tokens.token, method, body });
      return { ...response, json: JSON.parse(response.body) };
    };
    let oldRevision = '';
    let firstRevision = '';
    let token = '';

    before(async () => {
      tokens = await adminTokenFile();
      const { args, stop } = await setUp();
      stopBackend = stop;
      server = await startApiserver([...args, `--token-auth-file=${tokens.file}`, '--etcd-compaction-interval=1s']);
      if (backend === 'etcd3') uncached = await startApiserver([...args, `--token-auth-file=${tokens.file}`, '--etcd-compaction-interval=0', '--watch-cache=false']);
      for (const name of ['a', 'b', 'c']) {
        const created = await call('/api/v1/namespaces/default/serviceaccounts', 'POST', { metadata: { name } });
        assert.equal(created.status, 201);
        // Watching from here needs the events after it, so the two writes after it must be retained.
        firstRevision ||= created.json.metadata.resourceVersion;
      }
      const page = await call('/api/v1/namespaces/default/serviceaccounts?limit=1');
      token = page.json.metadata.continue;
      oldRevision = page.json.metadata.resourceVersion;
      // Compaction keeps one interval of history: after two more, the first page's revision is gone.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await call('/api/v1/namespaces/default/serviceaccounts', 'POST', { metadata: { name: 'later' } });
      // Until the first page's revision is no longer served (how it is answered: the cases below).
      const deadline = Date.now() + 30_000;
      while ((await call(`/api/v1/namespaces/default/serviceaccounts?resourceVersion=${oldRevision}&resourceVersionMatch=Exact`)).status === 200) {
        if (Date.now() > deadline) assert.fail(`revision ${oldRevision} still served after 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    after(async () => {
      await server.stop();
      await uncached?.stop();
      await stopBackend();
      await tokens.cleanup();
    });

    it('an expired continue token is 410 Expired', async () => {
      const response = await call(`/api/v1/namespaces/default/serviceaccounts?limit=1&continue=${encodeURIComponent(token)}`);
      assert.equal(response.status, 410, response.body);
      assert.equal(response.json.reason, 'Expired');
      assert.match(response.json.message, /continue parameter is too old/);
    });

    it('an expired continue token\u2019s 410 carries a token that lists the rest at the latest revision (upstream 1.28)', async () => {
      const response = await call(`/api/v1/namespaces/default/serviceaccounts?limit=1&continue=${encodeURIComponent(token)}`);
      assert.equal(response.status, 410, response.body);
      assert.equal(
        response.json.message,
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
      assert.deepEqual(Object.keys(response.json), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
      const resume = response.json.metadata.continue;
      assert.ok(resume, response.body);
      // The rest after the first page's "a", as it is now: "later" was created after that page.
      const rest = await call(`/api/v1/namespaces/default/serviceaccounts?limit=10&continue=${encodeURIComponent(resume)}`);
      assert.equal(rest.status, 200, rest.body);
      assert.deepEqual(rest.json.items.map((item: { metadata: { name: string } }) => item.metadata.name), ['b', 'c', 'later']);
      assert.ok(Number(rest.json.metadata.resourceVersion) > Number(oldRevision), rest.body);
      assert.equal(rest.json.metadata.continue, undefined);
    });

    it('an exact list at a compacted version is 410', async () => {
      const response = await call(`/api/v1/namespaces/default/serviceaccounts?resourceVersion=${oldRevision}&resourceVersionMatch=Exact`);
      assert.equal(response.status, 410, response.body);
      assert.equal(response.json.reason, 'Expired');
    });

    it('a list at a compacted version, Exact or with a limit, is 410 Expired with upstream\u2019s message; a get is answered', async () => {
      for (const query of [`resourceVersion=${oldRevision}&resourceVersionMatch=Exact`, `resourceVersion=${oldRevision}&limit=1`]) {
        const response = await call(`/api/v1/namespaces/default/serviceaccounts?${query}`);
        assert.equal(response.status, 410, response.body);
        assert.deepEqual(response.json, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'The resourceVersion for the provided list is too old.',
          reason: 'Expired',
          code: 410,
        });
      }
      // A get's resourceVersion is a floor: the current state is served.
      const got = await call(`/api/v1/namespaces/default/serviceaccounts/a?resourceVersion=${oldRevision}`);
      assert.equal(got.status, 200, got.body);
    });

    it(
      'a watch from a compacted version gets an ERROR event carrying 410 (--watch-cache=false: etcd\u2019s compaction is the window)',
      { skip: backend === 'memory' && 'a memory store is one process\u2019s; packages/apiserver watch-window.test.ts has this case' },
      async () => {
        const watch = await uncached!.watch(`/api/v1/namespaces/default/serviceaccounts?watch=1&resourceVersion=${firstRevision}`, {
          token: tokens.token,
        });
        assert.equal(watch.status, 200);
        const event = await watch.next();
        assert.equal(event?.type, 'ERROR');
        assert.equal(event?.object.code, 410);
        assert.equal(event?.object.reason, 'Expired');
        assert.match(String(event?.object.message), new RegExp(`^too old resource version: ${firstRevision} \\(\\d+\\)$`));
        assert.equal(await watch.next(), undefined, 'the stream ends after the error');
      },
    );

    it('with the watch cache, a watch from a compacted version inside the cache\u2019s window is served from it (etcd\u2019s compaction does not shorten it, as upstream\u2019s)', async () => {
      const watch = await server.watch(`/api/v1/namespaces/default/serviceaccounts?watch=1&resourceVersion=${firstRevision}`, {
        token: tokens.token,
      });
      assert.equal(watch.status, 200);
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const event = await watch.next();
        assert.equal(event?.type, 'ADDED', JSON.stringify(event));
        names.push(event!.object.metadata.name!);
      }
      assert.deepEqual(names, ['b', 'c', 'later']);
      watch.close();
    });
  });
}
