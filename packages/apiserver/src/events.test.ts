// Events over HTTP: core v1 and events.plat.io/v1 serve the same objects (stored once, as core v1
// Events), each in its own shape, with its own field selectors and validation; both print
// upstream's columns; an event expires --event-ttl after its last write, which watchers of either
// group see as a DELETED event.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { decodeObject } from '@plat/protobuf';
import type { KubeObject } from '@plat/registry';
import { startApiServer, type ApiTestServer } from './testing/index.js';
import { testCert } from './testing/index.js';

const CORE = '/api/v1/namespaces/default/events';
const EVENTS = '/apis/events.plat.io/v1/namespaces/default/events';
const TTL_SECONDS = 2;

type Obj = KubeObject & Record<string, unknown>;

const newEvent = (name: string) => ({
  apiVersion: 'events.plat.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-05-01T10:00:00.000001Z',
  reportingController: 'plat.io/test',
  reportingInstance: 'test-0',
  action: 'Check',
  reason: 'Checked',
  regarding: { kind: 'Namespace', name: 'default', apiVersion: 'v1' },
  note: 'all is well',
  type: 'Normal',
});

const legacyEvent = (name: string) => ({
  metadata: { name },
  involvedObject: { kind: 'ServiceAccount', namespace: 'default', name: 'builder' },
  reason: 'Failed',
  message: 'it failed',
  source: { component: 'test' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:01:00Z',
  count: 2,
  type: 'Warning',
});

/** The watch events of `path` until `until` says enough, or `timeoutMs` passes. */
async function watchUntil(server: ApiTestServer, path: string, until: (events: { type: string; object: Obj }[]) => boolean, timeoutMs: number) {
  const { ca } = await testCert();
  return new Promise<{ type: string; object: Obj }[]>((resolve, reject) => {
    const events: { type: string; object: Obj }[] = [];
    const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, ca, agent: false }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, end)) as { type: string; object: Obj });
          buffer = buffer.slice(end + 1);
        }
        if (until(events)) {
          clearTimeout(timer);
          req.destroy();
          resolve(events);
        }
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`watch ${path}: ${JSON.stringify(events.map((e) => e.type))} after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => (events.length ? undefined : reject(error)));
    req.end();
  });
}

describe('Events: core v1 and events.plat.io/v1 over one storage', () => {
  // Events live until deleted here, so that what one case wrote is there for the next however long
  // each takes; the expiry case has a server of its own with --event-ttl of TTL_SECONDS.
  let server: ApiTestServer;
  const startWithDefault = async (eventTTLSeconds: number): Promise<ApiTestServer> => {
    const started = await startApiServer({}, { eventTTLSeconds });
    assert.equal((await started.send('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201);
    return started;
  };
  before(async () => {
    server = await startWithDefault(0);
  });
  after(() => server.server.shutdown());
  const json = async (method: string, path: string, body?: unknown, headers?: Record<string, string>, on = server) => {
    const response = await on.send(method, path, body, headers);
    return { status: response.status, object: JSON.parse(response.body) as Obj };
  };

  it('one written through events.plat.io/v1 is read through core v1, converted', async () => {
    const created = await json('POST', EVENTS, newEvent('written-new'));
    assert.equal(created.status, 201, JSON.stringify(created.object));
    assert.deepEqual([created.object.apiVersion, created.object.note, created.object.deprecatedSource], ['events.plat.io/v1', 'all is well', {}]);
    const core = await json('GET', `${CORE}/written-new`);
    assert.equal(core.status, 200);
    assert.equal(core.object.apiVersion, 'v1');
    assert.equal(core.object.metadata.resourceVersion, created.object.metadata.resourceVersion);
    assert.deepEqual(
      [core.object.message, core.object.reportingComponent, core.object.involvedObject, core.object.source, core.object.note],
      ['all is well', 'plat.io/test', { kind: 'Namespace', name: 'default', apiVersion: 'v1' }, {}, undefined],
    );
  });

  it('one written through core v1 is read through events.plat.io/v1, its old fields deprecated*', async () => {
    assert.equal((await json('POST', CORE, legacyEvent('written-old'))).status, 201);
    const served = (await json('GET', `${EVENTS}/written-old`)).object;
    assert.deepEqual(
      [served.regarding, served.note, served.deprecatedCount, served.deprecatedFirstTimestamp, served.deprecatedSource, served.message],
      [{ kind: 'ServiceAccount', namespace: 'default', name: 'builder' }, 'it failed', 2, '2024-05-01T10:00:00Z', { component: 'test' }, undefined],
    );
    // Lists of either group hold both, each item in its group's shape.
    const names = (list: Obj) => (list.items as Obj[]).map((item) => item.metadata.name).sort();
    assert.deepEqual(names((await json('GET', CORE)).object), ['written-new', 'written-old']);
    const listed = (await json('GET', EVENTS)).object;
    assert.deepEqual(names(listed), ['written-new', 'written-old']);
    assert.ok((listed.items as Obj[]).every((item) => 'regarding' in item && !('involvedObject' in item)));
  });

  it('each group selects by its own field names', async () => {
    const names = async (path: string) => {
      const response = await json('GET', path);
      assert.equal(response.status, 200, JSON.stringify(response.object));
      return (response.object.items as Obj[]).map((item) => item.metadata.name);
    };
    assert.deepEqual(await names(`${CORE}?fieldSelector=involvedObject.kind%3DServiceAccount`), ['written-old']);
    assert.deepEqual(await names(`${EVENTS}?fieldSelector=regarding.kind%3DNamespace`), ['written-new']);
    assert.deepEqual(await names(`${EVENTS}?fieldSelector=reportingController%3Dplat.io%2Ftest`), ['written-new']);
    assert.deepEqual(await names(`${CORE}?fieldSelector=reportingComponent%3Dplat.io%2Ftest`), ['written-new']);
    assert.deepEqual(await names(`${CORE}?fieldSelector=source%3Dplat.io%2Ftest`), ['written-new']);
    const refused = await json('GET', `${EVENTS}?fieldSelector=involvedObject.kind%3DPod`);
    assert.deepEqual([refused.status, refused.object.message], [400, 'field label not supported: involvedObject.kind']);
  });

  it('events.plat.io/v1 is strict: what core v1 takes, it refuses, by the internal field names', async () => {
    const refused = await json('POST', EVENTS, { ...legacyEvent('strict'), apiVersion: 'events.plat.io/v1', kind: 'Event', involvedObject: undefined, message: undefined, source: undefined, firstTimestamp: undefined, lastTimestamp: undefined, count: undefined, note: 'n'.repeat(1025), deprecatedCount: 3 });
    assert.equal(refused.status, 422);
    assert.equal(
      refused.object.message,
      'Event.events.plat.io "strict" is invalid: [eventTime: Required value, count: Invalid value: "": needs to be unset]',
    );
    const updated = await json('PUT', `${EVENTS}/written-new`, { ...newEvent('written-new'), note: 'changed' });
    assert.equal(updated.status, 422);
    assert.match(String(updated.object.message), /message: Invalid value: "changed": field is immutable/);
    // Through core v1 the recorder's updates of count and message go through.
    const patched = await json('PATCH', `${CORE}/written-old`, { count: 3, message: 'failed again' }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.deepEqual([patched.status, patched.object.count, patched.object.message], [200, 3, 'failed again']);
  });

  it('kubectl get events: upstream\'s columns through either group, and Protobuf in each group\'s message', async () => {
    const table = await json('GET', CORE, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.plat.io' });
    assert.equal(table.status, 200);
    const columns = (table.object.columnDefinitions as { name: string }[]).map((c) => c.name);
    assert.deepEqual(columns, ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    const rows = table.object.rows as { cells: unknown[] }[];
    assert.deepEqual(rows.map((row) => row.cells.slice(1, 4)), [['Normal', 'Checked', 'namespace/default'], ['Warning', 'Failed', 'serviceaccount/builder']]);
    const viaEvents = await json('GET', EVENTS, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.plat.io' });
    assert.deepEqual((viaEvents.object.rows as { cells: unknown[] }[]).map((row) => row.cells.slice(1, 4)), rows.map((row) => row.cells.slice(1, 4)));

    const { ca } = await testCert();
    const protobuf = await new Promise<Buffer>((resolve, reject) => {
      httpsRequest({ host: '127.0.0.1', port: server.port, path: `${EVENTS}/written-new`, ca, agent: false, headers: { Accept: 'application/vnd.plat.protobuf' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      })
        .on('error', reject)
        .end();
    });
    const decoded = decodeObject(protobuf) as Obj;
    assert.deepEqual([decoded.apiVersion, decoded.note, decoded.reportingController], ['events.plat.io/v1', 'all is well', 'plat.io/test']);
  });

  it(`an event expires ${TTL_SECONDS}s after its last write: watchers of either group see it DELETED`, async () => {
    const expiring = await startWithDefault(TTL_SECONDS);
    try {
      const list = await json('GET', EVENTS, undefined, undefined, expiring);
      const from = String(list.object.metadata.resourceVersion);
      const started = Date.now();
      const isDeleted = (e: { type: string; object: Obj }) => e.type === 'DELETED' && e.object.metadata.name === 'expiring';
      const watching = Promise.all([
        watchUntil(expiring, `${EVENTS}?watch=1&resourceVersion=${from}`, (events) => events.some(isDeleted), 10_000),
        watchUntil(expiring, `${CORE}?watch=1&resourceVersion=${from}`, (events) => events.some(isDeleted), 10_000),
      ]);
      assert.equal((await json('POST', EVENTS, newEvent('expiring'), undefined, expiring)).status, 201);
      const [viaEvents, viaCore] = await watching;
      assert.ok(Date.now() - started >= TTL_SECONDS * 1000 - 100, 'not before its time');
      const deleted = viaEvents.find(isDeleted)!;
      assert.deepEqual([deleted.object.apiVersion, deleted.object.note], ['events.plat.io/v1', 'all is well']);
      assert.equal(viaCore.find(isDeleted)!.object.message, 'all is well');
      assert.equal((await json('GET', `${CORE}/expiring`, undefined, undefined, expiring)).status, 404);
    } finally {
      await expiring.server.shutdown();
    }
  });
});
