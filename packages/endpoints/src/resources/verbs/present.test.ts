import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedStorage, createStorage } from '@plat/storage';
import { startApiServer } from '@plat/apiserver/testing';
import { STREAMED_LIST_MIN_ITEMS } from '../list-stream.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.plat.io';
const PARTIAL = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.plat.io';

test('long Tables and metadata-only lists are written in chunks, and say what the whole one says', async (t) => {
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, send } = await startApiServer({ storage });
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  const count = STREAMED_LIST_MIN_ITEMS + 100;
  for (let i = 0; i < count; i++) {
    const metadata = { name: `c${i}`, namespace: 'ns', uid: `uid-${i}`, creationTimestamp: '2024-01-01T00:00:00Z', labels: { n: String(i) } };
    await storage.create(`/core/configmaps/ns/c${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { value: 'é'.repeat(i % 7) } });
  }
  const base = '/api/v1/namespaces/ns/configmaps?resourceVersion=0';
  const cases: [accept: string, query: string, check: (body: Record<string, unknown>) => void][] = [
    [TABLE, '', (body) => assert.equal((body.rows as { object: { kind: string } }[])[0]!.object.kind, 'PartialObjectMetadata')],
    [TABLE, '&includeObject=Object', (body) => {
      const row = (body.rows as { cells: unknown[]; object: { data: unknown } }[]).find((candidate) => candidate.cells[0] === 'c3');
      assert.deepEqual(row?.object.data, { value: 'ééé' });
    }],
    [TABLE, '&includeObject=None', (body) => assert.equal((body.rows as { object?: unknown }[])[0]!.object, undefined)],
    [PARTIAL, '', (body) => assert.equal((body.items as unknown[]).length, count)],
  ];
  for (const [accept, query, check] of cases) {
    const streamed = await send('GET', `${base}${query}`, undefined, { Accept: accept });
    assert.equal(streamed.status, 200, streamed.body);
    assert.equal(streamed.headers['transfer-encoding'], 'chunked', `${accept}${query}: written in chunks`);
    // ?pretty builds the whole object, as every short one is built.
    const whole = await send('GET', `${base}${query}&pretty=true`, undefined, { Accept: accept });
    assert.equal(whole.headers['transfer-encoding'], undefined);
    const body = JSON.parse(streamed.body) as Record<string, unknown>;
    assert.deepEqual(body, JSON.parse(whole.body), `${accept}${query}`);
    assert.equal(streamed.headers['content-type'], whole.headers['content-type']);
    check(body);
  }
  const table = JSON.parse((await send('GET', base, undefined, { Accept: TABLE })).body) as { rows: { cells: unknown[] }[]; columnDefinitions: unknown[] };
  assert.equal(table.rows.length, count);
  assert.ok(table.columnDefinitions.length > 0);
  assert.deepEqual(new Set(table.rows.map((row) => row.cells[0])), new Set(Array.from({ length: count }, (_, i) => `c${i}`)));
});
