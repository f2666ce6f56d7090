// The admission chain through the server: the default set's TaintNodesByCondition changes what a
// Node create stores (its mutation decoded, defaulted and stored as any object), plugins enabled by
// the flags' resolution run, and a server without them runs none of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enabledPlugins } from '@plat/admission';
import { startApiServer } from '../testing/index.js';

test('the default chain: a Node is created with the not-ready taint, as kube-apiserver creates it', async (t) => {
  const { server, send } = await startApiServer();
  t.after(() => server.shutdown());
  const created = await send('POST', '/api/v1/nodes', { metadata: { name: 'n1' }, spec: { taints: [{ key: 'example.com/own', effect: 'NoExecute' }] } });
  assert.equal(created.status, 201, created.body);
  const node = JSON.parse(created.body) as { spec: { taints: unknown[] } };
  assert.deepEqual(node.spec.taints, [{ key: 'example.com/own', effect: 'NoExecute' }, { key: 'node.plat.io/not-ready', effect: 'NoSchedule' }]);
  const stored = JSON.parse((await send('GET', '/api/v1/nodes/n1')).body) as { spec: { taints: unknown[] } };
  assert.deepEqual(stored.spec.taints, node.spec.taints);
  // An update is not a create: the taint the node lifecycle controller takes off stays off.
  const untainted = await send('PUT', '/api/v1/nodes/n1', { ...stored, spec: { taints: [] } });
  assert.equal(untainted.status, 200, untainted.body);
  assert.deepEqual((JSON.parse(untainted.body) as { spec: { taints?: unknown[] } }).spec.taints ?? [], []);
});

test('--enable-admission-plugins=AlwaysDeny: every write refused in upstream\'s words, reads served; disabled, the taint is not added', async (t) => {
  const plugins = enabledPlugins({ enable: ['AlwaysDeny'], disable: ['TaintNodesByCondition'] });
  const { server, send } = await startApiServer({}, { admissionPlugins: plugins });
  t.after(() => server.shutdown());
  const refused = await send('POST', '/api/v1/nodes', { metadata: { name: 'n1' } });
  assert.equal(refused.status, 403, refused.body);
  assert.equal((JSON.parse(refused.body) as { message: string }).message, 'nodes "n1" is forbidden: admission control is denying all modifications');
  assert.equal((await send('GET', '/api/v1/nodes')).status, 200);
  const without = await startApiServer({}, { admissionPlugins: enabledPlugins({ enable: [], disable: ['TaintNodesByCondition'] }) });
  t.after(() => without.server.shutdown());
  const created = await without.send('POST', '/api/v1/nodes', { metadata: { name: 'n1' } });
  assert.equal(created.status, 201, created.body);
  assert.equal((JSON.parse(created.body) as { spec?: { taints?: unknown[] } }).spec?.taints, undefined);
});
