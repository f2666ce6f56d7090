import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from '../common/policy-rule.js';
import { create, messages, summary, update } from '../testing/harness.js';
import { clusterRoleDefinition, type ClusterRole } from './cluster-role.js';

const clusterRole = (extra: Partial<ClusterRole> = {}): ClusterRole => ({ metadata: { name: 'admin' }, ...extra });
const rules = (...list: PolicyRule[]): Partial<ClusterRole> => ({ rules: list });

const validCases: { name: string; object: ClusterRole }[] = [
  { name: 'resource rules', object: clusterRole(rules({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] })) },
  { name: 'non-resource URLs', object: clusterRole(rules({ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] })) },
  {
    name: 'an aggregation rule',
    object: clusterRole({
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { 'rbac.example.com/aggregate-to-admin': 'true' } },
          { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
        ],
      },
    }),
  },
  {
    name: 'an aggregation rule beside rules the controller will overwrite',
    object: clusterRole({
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
      ...rules({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }),
    }),
  },
];
for (const c of validCases) {
  test(`cluster role validate: ${c.name}`, () => assert.deepEqual(create(clusterRoleDefinition, c.object).errors, []));
}

const invalidCases: { name: string; object: ClusterRole; want: string[] }[] = [
  {
    name: 'non-resource URLs mixed with resources',
    object: clusterRole(rules({ verbs: ['get'], nonResourceURLs: ['/healthz'], apiGroups: [''] })),
    want: ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs'],
  },
  {
    name: 'non-resource URLs mixed with resource names',
    object: clusterRole(rules({ verbs: ['get'], nonResourceURLs: ['/healthz'], resourceNames: ['x'] })),
    want: ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs'],
  },
  {
    name: 'no verbs on a non-resource rule',
    object: clusterRole(rules({ verbs: [], nonResourceURLs: ['/healthz'] })),
    want: ['rules[0].verbs: Required value: verbs must contain at least one value'],
  },
  {
    name: 'an aggregation rule without selectors',
    object: clusterRole({ aggregationRule: {} }),
    want: ['aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil'],
  },
  {
    name: 'an aggregation rule with an empty list',
    object: clusterRole({ aggregationRule: { clusterRoleSelectors: [] } }),
    want: ['aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil'],
  },
];
for (const c of invalidCases) {
  test(`cluster role validate: ${c.name}`, () => assert.deepEqual(messages(create(clusterRoleDefinition, c.object).errors), c.want));
}

const selectorCases: { name: string; selector: NonNullable<ClusterRole['aggregationRule']>['clusterRoleSelectors'] }[] = [
  { name: 'an unknown operator', selector: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'a', operator: 'Near', values: ['x'] }] }] },
  { name: 'In without values', selector: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'a', operator: 'In' }] }] },
  { name: 'a bad label key', selector: [{ matchLabels: { a: 'b' } }, { matchLabels: { 'bad key': 'x' } }] },
];
for (const c of selectorCases) {
  test(`cluster role validate: selector with ${c.name}`, () => {
    const { errors } = create(clusterRoleDefinition, clusterRole({ aggregationRule: { clusterRoleSelectors: c.selector } }));
    assert.ok(errors.length > 0, 'expected errors');
    for (const e of errors) assert.ok(e.field.startsWith('aggregationRule.clusterRoleSelectors[1].'), e.toString());
  });
}

test('cluster role update: validated as on create', () => {
  const old = clusterRole(rules({ verbs: ['get'], nonResourceURLs: ['/healthz'] }));
  assert.deepEqual(summary(update(clusterRoleDefinition, clusterRole({ aggregationRule: {} }), old).errors), [
    'FieldValueRequired aggregationRule.clusterRoleSelectors',
  ]);
});

test('cluster role: registration as upstream', () => {
  assert.equal(clusterRoleDefinition.namespaced, false);
  assert.equal(clusterRoleDefinition.allowCreateOnUpdate, true);
  assert.ok(clusterRoleDefinition.validateName('a/b', false).length > 0);
  assert.deepEqual(clusterRoleDefinition.validateName('system:aggregate-to-admin', false), []);
});
