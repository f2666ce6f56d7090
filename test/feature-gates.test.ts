// --feature-gates over HTTP: WatchList (alpha, off by default) and APIListChunking (beta, on by
// default), each as upstream 1.28 honours it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

const accountsPath = '/api/v1/namespaces/default/serviceaccounts';
const streaming = `${accountsPath}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;

const servers: [string, string[], (call: (path: string) => Promise<{ status: number; body: string; json: any }>, server: () => ApiserverProcess, token: () => string) => void][] = [
  [
    'defaults: WatchList off, APIListChunking on',
    [],
    (call) => {
      it('a watch with sendInitialEvents is 422, as upstream\u2019s validateWatchOptions answers without the gate', async () => {
        for (const value of ['true', 'false']) {
          const response = await call(`${accountsPath}?watch=1&sendInitialEvents=${value}&resourceVersionMatch=NotOlderThan`);
          assert.equal(response.status, 422, response.body);
          assert.deepEqual(response.json, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'ListOptions.meta.plat.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
            reason: 'Invalid',
            details: {
              group: 'meta.plat.io',
              kind: 'ListOptions',
              causes: [
                {
                  reason: 'FieldValueForbidden',
                  message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
                  field: 'sendInitialEvents',
                },
              ],
            },
            code: 422,
          });
        }
      });

      it('a list honours limit and continue', async () => {
        const page = await call(`${accountsPath}?limit=1`);
        assert.equal(page.status, 200, page.body);
        assert.equal(page.json.items.length, 1);
        assert.ok(page.json.metadata.continue);
        const rest = await call(`${accountsPath}?limit=5&continue=${encodeURIComponent(page.json.metadata.continue)}`);
        assert.deepEqual(rest.json.items.map((item: any) => item.metadata.name), ['b', 'c']);
      });
    },
  ],
  [
    '--feature-gates=WatchList=true,APIListChunking=false',
    ['--feature-gates=WatchList=true,APIListChunking=false'],
    (call, server, token) => {
      it('a watch with sendInitialEvents streams the list, then the annotated BOOKMARK', async () => {
        const watch = await server().watch(streaming, { token: token() });
        assert.equal(watch.status, 200);
        const types: string[] = [];
        for (;;) {
          const event = await watch.next();
          assert.ok(event, 'the stream stays open');
          types.push(event.type);
          if (event.type === 'BOOKMARK') {
            assert.equal(event.object.metadata.annotations?.['plat.io/initial-events-end'], 'true');
            break;
          }
        }
        watch.close();
        assert.deepEqual(types, ['ADDED', 'ADDED', 'ADDED', 'BOOKMARK']);
      });

      it('a list ignores limit and continue: every item, no continue token', async () => {
        for (const query of ['limit=1', 'limit=1&continue=not-a-token', 'continue=not-a-token']) {
          const list = await call(`${accountsPath}?${query}`);
          assert.equal(list.status, 200, `${query}: ${list.body}`);
          assert.deepEqual(list.json.items.map((item: any) => item.metadata.name), ['a', 'b', 'c'], query);
          assert.equal(list.json.metadata.continue, undefined, query);
          assert.equal(list.json.metadata.remainingItemCount, undefined, query);
        }
      });
    },
  ],
];

for (const [title, args, cases] of servers) {
  describe(`feature gates: ${title}`, () => {
    let server: ApiserverProcess;
    let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
    const call = async (path: string, method = 'GET', body?: unknown) => {
      const response = await server.request(path, { token: tokens.token, method, body });
      return { ...response, json: JSON.parse(response.body) };
    };
    before(async () => {
      tokens = await adminTokenFile();
      server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, ...args]);
      for (const name of ['a', 'b', 'c']) {
        const created = await call(accountsPath, 'POST', { metadata: { name } });
        assert.equal(created.status, 201, created.body);
      }
    });
    after(async () => {
      await server.stop();
      await tokens.cleanup();
    });
    cases((path) => call(path), () => server, () => tokens.token);
  });
}
