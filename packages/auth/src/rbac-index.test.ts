import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authorize } from './authorize.js';
import { RbacIndex } from './rbac-index.js';
import { ruleAllows } from './rule-matching.js';
import { nonResourceAttributes, resourceAttributes, user } from './testing.js';
import type { AccessAttributes, PolicyRule, Subject } from '@plat/apimachinery';

const rbac = 'rbac.authorization.plat.io';
const alice = user('alice');
const getPods = (namespace = 'default'): AccessAttributes => resourceAttributes(alice, 'get', { resource: 'pods', namespace, name: 'p' });
const podReader: PolicyRule[] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
const binding = (name: string, role: string, subjects: Subject[], namespace?: string) => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: rbac, kind: namespace ? 'Role' : 'ClusterRole', name: role },
  subjects,
});

test('RbacIndex: a decision follows the watch (upsert, replace, remove)', () => {
  const index = new RbacIndex();
  assert.equal(authorize(index, getPods()).decision, 'NoOpinion');

  index.upsert('ClusterRole', { metadata: { name: 'cr-read' }, rules: podReader });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr-read', [{ kind: 'User', name: 'alice' }]));
  assert.equal(authorize(index, getPods()).decision, 'Allow');

  // Replacing the subjects files the binding under the new ones only.
  index.upsert('ClusterRoleBinding', binding('crb', 'cr-read', [{ kind: 'User', name: 'bob' }]));
  assert.equal(authorize(index, getPods()).decision, 'NoOpinion');
  assert.equal(authorize(index, { ...getPods(), user: user('bob') }).decision, 'Allow');

  // Changing the role's rules takes effect for existing bindings.
  index.upsert('ClusterRole', { metadata: { name: 'cr-read' }, rules: [] });
  assert.equal(authorize(index, { ...getPods(), user: user('bob') }).decision, 'NoOpinion');

  // Removing the role turns the binding into an evaluation error.
  index.remove('ClusterRole', '', 'cr-read');
  assert.deepEqual(authorize(index, { ...getPods(), user: user('bob') }), {
    decision: 'NoOpinion',
    reason: 'RBAC: clusterrole.rbac.authorization.plat.io "cr-read" not found',
    evaluationError: 'clusterrole.rbac.authorization.plat.io "cr-read" not found',
  });

  index.remove('ClusterRoleBinding', '', 'crb');
  assert.deepEqual(authorize(index, { ...getPods(), user: user('bob') }), { decision: 'NoOpinion', reason: '' });
  // Removing what is not there does nothing.
  index.remove('RoleBinding', 'nowhere', 'nothing');
  index.remove('Role', 'nowhere', 'nothing');
});

test('RbacIndex: RoleBindings and Roles are kept per namespace', () => {
  const index = new RbacIndex();
  for (const namespace of ['a', 'b']) {
    index.upsert('Role', { metadata: { name: 'r', namespace }, rules: podReader });
    index.upsert('RoleBinding', binding('rb', 'r', [{ kind: 'User', name: 'alice' }], namespace));
  }
  index.remove('RoleBinding', 'a', 'rb');
  assert.equal(authorize(index, getPods('a')).decision, 'NoOpinion');
  assert.equal(authorize(index, getPods('b')).decision, 'Allow');
  index.remove('Role', 'b', 'r');
  assert.equal(authorize(index, getPods('b')).evaluationError, 'role.rbac.authorization.plat.io "r" not found');
  assert.deepEqual(
    index.list('RoleBinding').map((b) => b.metadata.namespace),
    ['b'],
  );
  assert.deepEqual(index.list('Role').map((r) => r.metadata.namespace), ['a']);
  index.clear();
  assert.deepEqual(index.list('Role'), []);
  assert.equal(authorize(index, getPods('b')).decision, 'NoOpinion');
});

test('RbacIndex: a binding naming the user twice is visited once', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: [...podReader, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }] });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'system:authenticated' }]));
  assert.equal(index.rulesFor(alice, 'default').rules.length, 2);
});

test('RbacIndex: rulesFor lists cluster rules, then the namespace rules, and the errors', () => {
  const index = new RbacIndex();
  const list: PolicyRule = { verbs: ['list'], apiGroups: [''], resources: ['secrets'] };
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: podReader });
  index.upsert('Role', { metadata: { name: 'r', namespace: 'dev' }, rules: [list] });
  index.upsert('RoleBinding', binding('rb', 'r', [{ kind: 'User', name: 'alice' }], 'dev'));
  index.upsert('RoleBinding', binding('broken', 'missing', [{ kind: 'User', name: 'alice' }], 'dev'));
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'User', name: 'alice' }]));
  assert.deepEqual(index.rulesFor(alice, 'dev'), { rules: [...podReader, list], errors: ['role.rbac.authorization.plat.io "missing" not found'] });
  assert.deepEqual(index.rulesFor(alice, ''), { rules: podReader, errors: [] });
});

test('RbacIndex: visitRulesFor stops when the visitor says so', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: [...podReader, ...podReader] });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'User', name: 'alice' }]));
  let visits = 0;
  index.visitRulesFor(alice, 'default', () => {
    visits++;
    return false;
  });
  assert.equal(visits, 1);
});

test('RbacIndex: roleReferenceRules resolves as upstream GetRoleReferenceRules', () => {
  const index = new RbacIndex({ domain: 'k8s.io' });
  index.upsert('Role', { metadata: { name: 'r', namespace: 'dev' }, rules: podReader });
  assert.deepEqual(index.roleReferenceRules({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, 'dev'), { rules: podReader });
  assert.deepEqual(index.roleReferenceRules({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, 'prod'), {
    error: 'role.rbac.authorization.k8s.io "r" not found',
  });
  assert.deepEqual(index.roleReferenceRules({ apiGroup: '', kind: 'Thing', name: 'r' }, 'dev'), { error: 'unsupported role reference kind: "Thing"' });
});

test('RbacIndex: groups in another order, and a full cache, give the same decisions', () => {
  const index = new RbacIndex({ decisionCacheSize: 2 });
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: podReader });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'Group', name: 'g1' }]));
  for (let i = 0; i < 10; i++) {
    const groups = i % 2 ? ['g1', `x${i}`] : [`x${i}`, 'g1'];
    assert.equal(authorize(index, { ...getPods(), user: user(`u${i}`, groups) }).decision, 'Allow');
    assert.equal(authorize(index, { ...getPods(), user: user(`u${i}`, [`x${i}`]) }).decision, 'NoOpinion');
  }
});

test('RbacIndex: names that look alike do not share cached decisions', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: podReader });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'Group', name: 'b|c' }]));
  assert.equal(authorize(index, { ...getPods(), user: user('a', ['b|c']) }).decision, 'Allow');
  assert.equal(authorize(index, { ...getPods(), user: user('a', ['b', 'c']) }).decision, 'NoOpinion');
  assert.equal(authorize(index, { ...getPods(), user: user('a|b', ['c']) }).decision, 'NoOpinion');
});

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

test('RbacIndex: compiled decisions equal the first allowing rule of a plain visit', () => {
  const next = random(42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const some = <T>(values: readonly T[], max = 3): T[] => Array.from({ length: 1 + Math.floor(next() * max) }, () => pick(values));
  const verbs = ['get', 'list', 'delete', '*'];
  const groups = ['', 'apps', '*'];
  const resources = ['pods', 'pods/log', 'deployments', 'deployments/scale', '*', '*/scale', '*/log'];
  const names = ['a', 'b'];
  const paths = ['/healthz', '/healthz/*', '/api*', '/apis/*', '*', '/version'];
  const namespaces = ['n1', 'n2'];
  const users = [user('u1', ['g1']), user('u2', ['g1', 'g2']), user('system:serviceaccount:n1:sa', ['g2'])];
  const subjects: Subject[] = [
    { kind: 'User', name: 'u1' },
    { kind: 'User', name: 'u2' },
    { kind: 'Group', name: 'g1' },
    { kind: 'Group', name: 'g2' },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'n1' },
    { kind: 'ServiceAccount', name: 'sa' },
  ];
  const randomRule = (): PolicyRule => {
    if (next() < 0.2) return { verbs: some(verbs), nonResourceURLs: some(paths) };
    const r: PolicyRule = { verbs: some(verbs), apiGroups: some(groups, 2), resources: some(resources) };
    if (next() < 0.3) r.resourceNames = some(names, 1);
    return r;
  };

  for (let round = 0; round < 20; round++) {
    const index = new RbacIndex();
    for (let i = 0; i < 6; i++) index.upsert('ClusterRole', { metadata: { name: `cr${i}` }, rules: [randomRule(), randomRule()] });
    for (const namespace of namespaces) {
      for (let i = 0; i < 3; i++) index.upsert('Role', { metadata: { name: `r${i}`, namespace }, rules: [randomRule()] });
    }
    for (let i = 0; i < 6; i++) {
      const roleRef = { apiGroup: rbac, kind: 'ClusterRole', name: `cr${Math.floor(next() * 7)}` };
      if (next() < 0.5) index.upsert('ClusterRoleBinding', { metadata: { name: `crb${i}` }, roleRef, subjects: some(subjects, 2) });
      const namespace = pick(namespaces);
      const kind = next() < 0.5 ? 'Role' : 'ClusterRole';
      index.upsert('RoleBinding', {
        metadata: { name: `rb${i}`, namespace },
        roleRef: { apiGroup: rbac, kind, name: kind === 'Role' ? `r${Math.floor(next() * 4)}` : `cr${Math.floor(next() * 6)}` },
        subjects: some(subjects, 2),
      });
    }
    for (let i = 0; i < 200; i++) {
      const who = pick(users);
      let request: AccessAttributes;
      if (next() < 0.25) {
        request = nonResourceAttributes(who, pick(['get', 'post', '*']), pick(['/healthz', '/healthz/etcd', '/apis', '/apis/apps', '/version', '/api']));
      } else {
        const [resource = '', subresource = ''] = pick(['pods', 'pods/log', 'deployments/scale', 'deployments', 'secrets', '*']).split('/');
        request = resourceAttributes(who, pick(verbs), {
          group: pick(['', 'apps', 'batch']),
          resource,
          subresource,
          name: pick(['', 'a', 'b']),
          namespace: pick(['', ...namespaces]),
        });
      }
      let expected: string | undefined;
      index.visitRulesFor(request.user, request.namespace, (source, rule) => {
        if (rule && source && ruleAllows(request, rule)) {
          expected = `RBAC: allowed by ${source.toString()}`;
          return false;
        }
        return true;
      });
      const result = authorize(index, request);
      assert.equal(result.decision, expected ? 'Allow' : 'NoOpinion', JSON.stringify(request));
      if (expected) assert.equal(result.reason, expected, JSON.stringify(request));
    }
  }
});
