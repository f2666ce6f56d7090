import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { CachedStorage, createStorage } from '@plat/storage';
import { DEFAULT_BYTES_PER_ITEM, ListMemoryBudget, listCost } from './list-budget.js';
import { startApiServer } from '@plat/apiserver/testing';
import { testCert } from '@plat/apiserver/testing';

const MiB = 1024 * 1024;

test('a list costs its chunks when written in chunks from the cache, its objects several times over otherwise', () => {
  const base = { items: 100_000, bytesPerItem: 900 };
  const chunked = listCost({ ...base, streamed: true, fromStore: false });
  const whole = listCost({ ...base, streamed: false, fromStore: false });
  const fromStore = listCost({ ...base, streamed: true, fromStore: true });
  assert.ok(chunked < 10 * MiB, `${chunked}`);
  assert.ok(whole > 300 * MiB, `${whole}`);
  assert.ok(fromStore > 300 * MiB, `${fromStore}`);
  assert.ok(listCost({ ...base, streamed: false, fromStore: true }) > whole + 300 * MiB);
});

test('the budget admits what fits in the heap\u2019s share beside what is reserved, always one list alone, and learns item sizes', () => {
  let used = 100 * MiB;
  const budget = new ListMemoryBudget(0.5, () => ({ limit: 1000 * MiB, used }));
  // Room: 500 MiB - 100 MiB used.
  const first = budget.reserve(900 * MiB);
  assert.ok(first, 'alone, whatever its size');
  assert.equal(budget.reserve(1), undefined, 'nothing fits beside it');
  first();
  first();
  assert.equal(budget.reserved, 0);
  const a = budget.reserve(200 * MiB)!;
  const b = budget.reserve(150 * MiB);
  assert.ok(b);
  assert.equal(budget.reserve(100 * MiB), undefined);
  used = 10 * MiB;
  assert.ok(budget.reserve(100 * MiB), 'the heap emptied: room again');
  a();
  assert.equal(budget.averageItemBytes('/core/pods/'), DEFAULT_BYTES_PER_ITEM);
  budget.learn('/core/pods/', 9000, 10);
  assert.equal(budget.averageItemBytes('/core/pods/'), 900);
});

test('what watchers hold counts against lists, and a list is alone only when nothing is held', () => {
  const budget = new ListMemoryBudget(0.5, () => ({ limit: 1000 * MiB, used: 100 * MiB }));
  const watcher = budget.holder();
  const other = budget.holder();
  watcher.set(300 * MiB);
  other.set(50 * MiB);
  other.set(20 * MiB);
  assert.equal(budget.held, 320 * MiB);
  // 500 MiB - 100 used - 320 held.
  assert.equal(budget.reserve(81 * MiB), undefined, 'a list does not fit beside what the watchers hold');
  const list = budget.reserve(80 * MiB);
  assert.ok(list);
  list();
  watcher.release();
  watcher.release();
  other.set(0);
  assert.equal(budget.held, 0);
  assert.ok(budget.reserve(900 * MiB), 'alone again');
});

test('before any list was written, a resource weighs what a sample of its objects weighs', () => {
  const budget = new ListMemoryBudget(0.85, () => ({ limit: 1000 * MiB, used: 0 }));
  const objects = [{ data: 'x'.repeat(989) }, { data: 'x'.repeat(2989) }];
  const cases: [sample: (() => readonly object[] | undefined) | undefined, bytes: number][] = [
    [undefined, DEFAULT_BYTES_PER_ITEM],
    [() => undefined, DEFAULT_BYTES_PER_ITEM],
    [() => [], DEFAULT_BYTES_PER_ITEM],
    [() => objects, 2000],
  ];
  for (const [sample, bytes] of cases) assert.equal(new ListMemoryBudget().averageItemBytes('/core/configmaps/', sample), bytes);
  let sampled = 0;
  const counting = () => (sampled++, objects);
  assert.equal(budget.averageItemBytes('/core/configmaps/', counting), 2000);
  assert.equal(budget.averageItemBytes('/core/configmaps/', counting), 2000);
  assert.equal(sampled, 1, 'weighed once, then known');
  budget.learn('/core/configmaps/', 5000, 10);
  assert.equal(budget.averageItemBytes('/core/configmaps/', counting), 500, 'a list written says better than the sample');
});

test('ten large Table lists at once, asked indented (built whole): those that fit the budget are served, the excess refused with 429 and Retry-After', async (t) => {
  // A heap of 100 MiB with 10 used, lists taking it to 85: 75 MiB for lists. Each list's
  // reservation is held until the test lets go, so that all ten are in flight together however
  // fast the loopback takes their bodies.
  class HeldBudget extends ListMemoryBudget {
    readonly kept: (() => void)[] = [];
    override reserve(bytes: number): (() => void) | undefined {
      const release = super.reserve(bytes);
      return release && (() => void this.kept.push(release));
    }
  }
  const budget = new HeldBudget(0.85, () => ({ limit: 100 * MiB, used: 10 * MiB }));
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, send, port } = await startApiServer({ storage }, { listMemoryBudget: budget });
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  for (let i = 0; i < 2000; i++) {
    const metadata = { name: `c${i}`, namespace: 'ns', uid: `uid-${i}`, creationTimestamp: '2024-01-01T00:00:00Z' };
    await storage.create(`/core/configmaps/ns/c${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { value: 'v'.repeat(1000) } });
  }
  const { ca } = await testCert();
  const accept = 'application/json;as=Table;v=v1;g=meta.plat.io';
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      new Promise<{ status: number; retryAfter: string | undefined; read: () => Promise<string> }>((resolve, reject) => {
        httpsRequest({ host: '127.0.0.1', port, path: '/api/v1/namespaces/ns/configmaps?resourceVersion=0&pretty=true', ca, agent: false, headers: { accept } }, (res) => {
          res.pause();
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            read: () =>
              new Promise((done) => {
                let body = '';
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => (body += chunk));
                res.on('end', () => done(body));
                res.resume();
              }),
          });
        })
          .on('error', reject)
          .end();
      }),
    ),
  );
  // 2,000 objects weighing what a sample of them weighs (about 1.1 kB), as a Table built whole:
  // about 8.7 MiB each, so eight fit in 75 MiB.
  const bytesPerItem = budget.averageItemBytes('/core/configmaps/');
  assert.ok(bytesPerItem > 1000 && bytesPerItem < 1300, `${bytesPerItem} bytes per item`);
  const each = listCost({ items: 2000, bytesPerItem, streamed: false, fromStore: false });
  const fits = Math.floor((75 * MiB) / each);
  assert.ok(fits > 0 && fits < 10);
  const ok = responses.filter((r) => r.status === 200);
  const refused = responses.filter((r) => r.status === 429);
  assert.equal(ok.length, fits, responses.map((r) => r.status).join(' '));
  assert.equal(refused.length, 10 - fits);
  for (const response of refused) {
    assert.equal(response.retryAfter, '1');
    assert.match(await response.read(), /"reason":"TooManyRequests"/);
  }
  for (const response of ok) assert.match(await response.read(), /"kind": "Table"/);
  const metrics = (await send('GET', '/metrics')).body;
  assert.match(metrics, new RegExp(`^plat_list_memory_rejected_requests_total\\{resource="configmaps"\\} ${refused.length}$`, 'm'));
  assert.match(metrics, new RegExp(`apiserver_request_terminations_total\\{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"\\} ${refused.length}`));
  // Every admitted response closed, its reservation handed back.
  assert.equal(budget.kept.length, fits);
  for (const release of budget.kept.splice(0)) release();
  assert.equal(budget.reserved, 0);
  const again = await send('GET', '/api/v1/namespaces/ns/configmaps?resourceVersion=0', undefined, { accept });
  assert.equal(again.status, 200);
  // Not indented, a Table is written row by row: ten at once hold a few chunks each, and all fit.
  const streamed = await Promise.all(Array.from({ length: 10 }, () => send('GET', '/api/v1/namespaces/ns/configmaps?resourceVersion=0', undefined, { accept })));
  assert.deepEqual(streamed.map((response) => response.status), Array(10).fill(200));
});
