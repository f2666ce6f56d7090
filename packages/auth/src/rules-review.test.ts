import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RbacIndex } from './rbac-index.js';
import { rulesReview } from './rules-review.js';
import { user } from './testing.js';

const rbac = 'rbac.authorization.plat.io';
const alice = user('alice');

function index(): RbacIndex {
  const index = new RbacIndex();
  index.upsert('ClusterRole', {
    metadata: { name: 'discovery' },
    rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
  });
  index.upsert('ClusterRoleBinding', { metadata: { name: 'discovery' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'discovery' }, subjects: [{ kind: 'Group', name: 'system:authenticated' }] });
  index.upsert('Role', {
    metadata: { name: 'r', namespace: 'dev' },
    rules: [
      { verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
      { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: [] },
    ],
  });
  index.upsert('RoleBinding', { metadata: { name: 'rb', namespace: 'dev' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'alice' }] });
  return index;
}

test('rulesReview: cluster and namespace rules, each as a resource or non-resource rule', () => {
  assert.deepEqual(rulesReview(index(), alice, 'dev'), {
    resourceRules: [
      { verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
      { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
    incomplete: false,
  });
});

test('rulesReview: another namespace shows only cluster rules', () => {
  assert.deepEqual(rulesReview(index(), alice, 'prod'), {
    resourceRules: [],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
    incomplete: false,
  });
});

test('rulesReview: an unresolvable roleRef is the evaluation error; the rules found are still listed and complete', () => {
  const i = index();
  i.upsert('RoleBinding', { metadata: { name: 'broken', namespace: 'dev' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'gone' }, subjects: [{ kind: 'User', name: 'alice' }] });
  const status = rulesReview(i, alice, 'dev');
  assert.equal(status.resourceRules.length, 2);
  assert.equal(status.incomplete, false);
  assert.equal(status.evaluationError, 'clusterrole.rbac.authorization.plat.io "gone" not found');
});

test('rulesReview: a User subject with a namespace grants nothing and is the evaluation error', () => {
  const i = index();
  i.upsert('ClusterRole', { metadata: { name: 'view' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
  i.upsert('ClusterRoleBinding', {
    metadata: { name: 'carol' },
    roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', apiGroup: rbac, name: 'alice', namespace: 'x' }],
  });
  const status = rulesReview(i, alice, 'dev');
  assert.equal(status.resourceRules.some((r) => r.resources?.includes('pods')), false);
  assert.equal(status.evaluationError, 'ClusterRoleBinding "carol": User subject "alice" cannot have a namespace: "x"');
});

test('rulesReview: a rule naming both resources and URLs appears in both lists', () => {
  const i = new RbacIndex();
  i.upsert('ClusterRole', { metadata: { name: 'odd' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/x'] }] });
  i.upsert('ClusterRoleBinding', { metadata: { name: 'odd' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'odd' }, subjects: [{ kind: 'User', name: 'alice' }] });
  assert.deepEqual(rulesReview(i, alice, ''), {
    resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }],
    incomplete: false,
  });
});
