import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedStorage, createStorage, type ListOptions, type ListResult, type StoredObject } from '@plat/storage';
import { customResourceDefinitions } from '@plat/api';
import { startApiServer } from './testing/index.js';

const waitUntil = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

test('every served resource is cached from start-up, and /readyz waits for the caches (cache-ready)', async (t) => {
  const inner = createStorage({ backend: 'memory' });
  // The ServiceAccounts' list hangs until released: their cache cannot be ready before.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const list = inner.list.bind(inner);
  inner.list = (async <T extends StoredObject>(prefix: string, options?: ListOptions): Promise<ListResult<T>> => {
    if (prefix === '/core/serviceaccounts/') await released;
    return list<T>(prefix, options);
  }) as typeof inner.list;
  const storage = new CachedStorage(inner);
  const { server, get, send } = await startApiServer({ storage }, { customResources: customResourceDefinitions });
  t.after(() => server.shutdown());

  // Nothing asked for any resource yet: the caches start on their own.
  await waitUntil(async () => (await storage.stats()).some((stats) => stats.prefix === '/core/namespaces/' && stats.ready));
  const notReady = await get('/readyz?verbose');
  assert.equal(notReady.status, 500);
  assert.match(notReady.body, /\[-\]cache-ready failed: watch caches not ready: serviceaccounts\n/);
  assert.equal((await get('/readyz/cache-ready')).body, 'internal server error: watch caches not ready: serviceaccounts\n');
  // /livez does not wait for caches.
  assert.equal((await get('/livez')).status, 200);

  release();
  await waitUntil(async () => (await get('/readyz')).status === 200);
  assert.match((await get('/readyz?verbose')).body, /\[\+\]cache-ready ok\n/);
  const prefixes = (await storage.stats()).map((stats) => stats.prefix);
  for (const prefix of ['/core/namespaces/', '/core/serviceaccounts/', '/core/configmaps/', '/rbac.authorization.plat.io/roles/']) {
    assert.ok(prefixes.includes(prefix), `${prefix} cached: ${prefixes.join(' ')}`);
  }

  // A custom resource's cache starts once it is served, before any request for it.
  const crd = {
    apiVersion: 'apiextensions.plat.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  assert.equal((await send('POST', '/apis/apiextensions.plat.io/v1/customresourcedefinitions', crd)).status, 201);
  await waitUntil(async () => (await storage.stats()).some((stats) => stats.prefix === '/example.com/widgets/' && stats.ready));
  assert.equal((await get('/readyz')).status, 200);
});

test('with the cache off there is no cache-ready check', async (t) => {
  const { server, get } = await startApiServer({ storage: createStorage({ backend: 'memory' }) });
  t.after(() => server.shutdown());
  await waitUntil(async () => (await get('/readyz')).status === 200);
  assert.doesNotMatch((await get('/readyz?verbose')).body, /cache-ready/);
});
