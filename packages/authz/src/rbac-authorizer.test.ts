import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions } from '@plat/api';
import { bootstrapPolicy } from '@plat/auth';
import { createStorage, type Storage } from '@plat/storage';
import { ResourceCatalog } from '@plat/endpoints';
import { captureLogger } from '@plat/apiserver/testing';
import type { AccessAttributes } from '@plat/apimachinery';
import { RbacAuthorizer } from './rbac-authorizer.js';

const RBAC = 'rbac.authorization.plat.io';

const listPods = (user: string, namespace = 'ns'): AccessAttributes => ({
  user: { name: user, uid: '', groups: ['system:authenticated'] },
  verb: 'list',
  isResourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  namespace,
  resource: 'pods',
  subresource: '',
  name: '',
});

const healthz = (groups: string[]): AccessAttributes => ({
  ...listPods('someone'),
  user: { name: 'system:anonymous', uid: '', groups },
  verb: 'get',
  isResourceRequest: false,
  path: '/healthz',
  resource: '',
  apiVersion: '',
  namespace: '',
});

async function until(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !probe(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(probe(), what);
}

function setUp(storage: Storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 })) {
  const catalog = new ResourceCatalog(builtinDefinitions, { storage, domain: 'plat.io' });
  const policy = bootstrapPolicy('plat.io');
  const { logger } = captureLogger();
  const rbac = new RbacAuthorizer(catalog, 'plat.io', logger, { clusterRoles: policy.clusterRoles, clusterRoleBindings: policy.clusterRoleBindings });
  const store = (resource: string) => catalog.store(RBAC, 'v1', resource);
  return { storage, catalog, rbac, store };
}

test('RbacAuthorizer: the seed decides before the first list; the list then replaces it', async (t) => {
  const { rbac, storage } = setUp();
  t.after(async () => {
    rbac.stop();
    await storage.close();
  });
  // The bootstrap policy lets anyone read /healthz before anything is listed.
  assert.equal(rbac.authorize(healthz(['system:unauthenticated'])).decision, 'Allow');
  assert.equal(rbac.synced, false);
  await assert.rejects(rbac.check(), /not listed yet/);
  rbac.start();
  await until('synced', () => rbac.synced);
  await rbac.check();
  // Nothing is stored: the seed is gone.
  assert.equal(rbac.authorize(healthz(['system:unauthenticated'])).decision, 'NoOpinion');
});

test('RbacAuthorizer: watch events add, change and remove grants; rules are listed for reviews', async (t) => {
  const { rbac, storage, store } = setUp();
  t.after(async () => {
    rbac.stop();
    await storage.close();
  });
  rbac.start();
  await until('synced', () => rbac.synced);
  await store('roles').create('ns', { metadata: { name: 'pods' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] });
  await store('rolebindings').create('ns', {
    metadata: { name: 'alice-pods' },
    roleRef: { apiGroup: RBAC, kind: 'Role', name: 'pods' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  await until('the grant', () => rbac.authorize(listPods('alice')).decision === 'Allow');
  assert.equal(rbac.authorize(listPods('alice')).reason, 'RBAC: allowed by RoleBinding "alice-pods/ns" of Role "pods" to User "alice"');
  assert.equal(rbac.authorize(listPods('alice', 'other')).decision, 'NoOpinion');
  assert.deepEqual(rbac.rulesFor({ name: 'alice', uid: '', groups: [] }, 'ns').resourceRules, [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);

  const role = await store('roles').get('ns', 'pods');
  await store('roles').update('ns', 'pods', { ...role, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
  await until('the change', () => rbac.authorize(listPods('alice')).decision === 'NoOpinion');

  await store('roles').delete('ns', 'pods');
  await until('the role to go', () => rbac.authorize(listPods('alice')).reason === `RBAC: role.${RBAC} "pods" not found`);
  const result = rbac.authorize(listPods('alice'));
  assert.deepEqual(result, { decision: 'NoOpinion', reason: `RBAC: role.${RBAC} "pods" not found`, evaluationError: `role.${RBAC} "pods" not found` });
  await store('rolebindings').delete('ns', 'alice-pods');
  await until('the binding to go', () => rbac.authorize(listPods('alice')).reason === '');
});

test('RbacAuthorizer: a failing list is retried; what was known is kept meanwhile', async (t) => {
  const real = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  let failing = true;
  const flaky = new Proxy(real, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property === 'list' && failing) return async () => Promise.reject(new Error('storage is down'));
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const { rbac } = setUp(flaky);
  t.after(async () => {
    rbac.stop();
    await real.close();
  });
  rbac.start();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(rbac.synced, false);
  assert.equal(rbac.authorize(healthz(['system:unauthenticated'])).decision, 'Allow');
  failing = false;
  await until('synced after the retry', () => rbac.synced);
});
