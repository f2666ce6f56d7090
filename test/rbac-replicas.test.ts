// RBAC across replicas: a grant or a revocation made through one replica takes effect on
// the other within a second, since each keeps its authorizer current through watches on etcd.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { authFiles, authRequest, type AuthFiles } from './support/auth.js';

const RBAC = 'rbac.authorization.plat.io';
const R = `/apis/${RBAC}/v1`;

/** Polls every 10 ms until `probe` holds; returns how long that took. */
async function timeUntil(probe: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = performance.now();
  while (!(await probe())) {
    if (performance.now() - start > limitMs) return Infinity;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - start;
}

describe('RBAC on two replicas sharing etcd', () => {
  let etcd: TestEtcd;
  let files: AuthFiles;
  let a: ApiserverProcess;
  let b: ApiserverProcess;

  before(async () => {
    etcd = await sharedEtcd();
    files = await authFiles([{ name: 'carol', token: 'carol-token' }]);
    [a, b] = (await Promise.all(
      [0, 1].map(() => startApiserver([...etcd.flags, `--token-auth-file=${files.tokenFile}`])),
    )) as [ApiserverProcess, ApiserverProcess];
    for (const replica of [a, b]) await eventually('readyz', async () => (await replica.request('/readyz')).status === 200);
  });
  after(async () => {
    const codes = await Promise.all([a, b].map((replica) => replica?.stop()));
    await etcd?.stop();
    await files?.cleanup();
    assert.deepEqual(codes, [0, 0]);
  });

  it('the bootstrap policy was created once between them', async () => {
    const bindings = JSON.parse((await a.request(`${R}/clusterrolebindings`, { token: files.admin })).body) as { items: { metadata: { name: string } }[] };
    const names = bindings.items.map((item) => item.metadata.name);
    assert.equal(names.filter((name) => name === 'cluster-admin').length, 1);
  });

  it('a grant through one replica is seen by the other within a second, and so is its removal', async () => {
    const carolLists = (replica: ApiserverProcess) => async () =>
      (await authRequest(replica, '/api/v1/namespaces/default/serviceaccounts', { token: 'carol-token' })).status === 200;
    const carolRefused = (replica: ApiserverProcess) => async () =>
      (await authRequest(replica, '/api/v1/namespaces/default/serviceaccounts', { token: 'carol-token' })).status === 403;
    assert.ok(await carolRefused(a)());
    assert.ok(await carolRefused(b)());

    const role = await a.request(`${R}/clusterroles`, {
      token: files.admin,
      method: 'POST',
      body: { metadata: { name: 'sa-lister' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['serviceaccounts'] }] },
    });
    assert.equal(role.status, 201, role.body);
    const grant = await a.request(`${R}/clusterrolebindings`, {
      token: files.admin,
      method: 'POST',
      body: { metadata: { name: 'carol-lists' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'sa-lister' }, subjects: [{ kind: 'User', name: 'carol' }] },
    });
    assert.equal(grant.status, 201, grant.body);
    const granted = await timeUntil(carolLists(b), 1000);
    assert.ok(granted <= 1000, `the grant reached the other replica after ${granted} ms`);

    const revoke = await b.request(`${R}/clusterrolebindings/carol-lists`, { token: files.admin, method: 'DELETE' });
    assert.equal(revoke.status, 200, revoke.body);
    const revoked = await timeUntil(carolRefused(a), 1000);
    assert.ok(revoked <= 1000, `the revocation reached the other replica after ${revoked} ms`);
  });
});
