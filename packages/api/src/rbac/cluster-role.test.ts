import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from '@plat/apimachinery';
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

type Selectors = NonNullable<ClusterRole['aggregationRule']>['clusterRoleSelectors'];

// Upstream validates each selector, then converts it (LabelSelectorAsSelector); a selector that does
// not convert gets one more error on itself, after its own: `Invalid value: "null": invalid label selector.`
const notASelector = (i: number): string => `FieldValueInvalid aggregationRule.clusterRoleSelectors[${i}]`;
const selectorCases: { name: string; selectors: Selectors; want: string[] }[] = [
  {
    name: 'an unknown operator',
    selectors: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'a', operator: 'Near', values: ['x'] }] }],
    want: ['FieldValueInvalid aggregationRule.clusterRoleSelectors[1].matchExpressions[0].operator', notASelector(1)],
  },
  {
    name: 'In without values',
    selectors: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'a', operator: 'In' }] }],
    want: ['FieldValueRequired aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values', notASelector(1)],
  },
  {
    name: 'NotIn with an empty list',
    selectors: [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] }],
    want: ['FieldValueRequired aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values', notASelector(0)],
  },
  {
    name: 'Exists with values',
    selectors: [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }],
    want: ['FieldValueForbidden aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values', notASelector(0)],
  },
  {
    name: 'a bad label key',
    selectors: [{ matchLabels: { a: 'b' } }, { matchLabels: { 'bad key': 'x' } }],
    want: ['FieldValueInvalid aggregationRule.clusterRoleSelectors[1].matchLabels', notASelector(1)],
  },
  {
    name: 'a bad label value',
    selectors: [{ matchLabels: { a: 'bad value' } }],
    want: ['FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchLabels', notASelector(0)],
  },
  {
    name: 'a bad expression key',
    selectors: [{ matchExpressions: [{ key: '-a', operator: 'DoesNotExist' }] }],
    want: ['FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchExpressions[0].key', notASelector(0)],
  },
  {
    name: 'a bad expression value',
    selectors: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', '-bad'] }] }],
    want: ['FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[1]', notASelector(0)],
  },
  {
    name: 'two bad among good ones, each reported after its own errors',
    selectors: [
      { matchLabels: { a: 'bad value' } },
      {},
      { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
    ],
    want: [
      'FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchLabels',
      notASelector(0),
      'FieldValueRequired aggregationRule.clusterRoleSelectors[3].matchExpressions[0].values',
      notASelector(3),
    ],
  },
  { name: 'an empty selector (everything)', selectors: [{}], want: [] },
  { name: 'Exists and DoesNotExist without values', selectors: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'DoesNotExist' }] }], want: [] },
];
for (const c of selectorCases) {
  test(`cluster role validate: selector with ${c.name}`, () => {
    const { errors } = create(clusterRoleDefinition, clusterRole({ aggregationRule: { clusterRoleSelectors: c.selectors } }));
    assert.deepEqual(summary(errors), c.want);
  });
}

test('cluster role validate: a selector that does not convert, as upstream prints it', () => {
  const { errors } = create(clusterRoleDefinition, clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] } }));
  assert.equal(String(errors.at(-1)), 'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.');
});

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
