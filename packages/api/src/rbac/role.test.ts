import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from '@plat/apimachinery';
import { create, messages, summary, update } from '../testing/harness.js';
import { roleDefinition, type Role } from './role.js';

const role = (...rules: PolicyRule[]): Role => ({ metadata: { name: 'reader', namespace: 'default' }, rules });

test('role: valid rules pass', () => {
  const { errors } = create(
    roleDefinition,
    role(
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] },
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: ['a', 'b'] },
    ),
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(create(roleDefinition, { metadata: { name: 'empty', namespace: 'default' } }).errors, []);
});

const invalidCases: { name: string; rule: PolicyRule; want: string[] }[] = [
  {
    name: 'no verbs',
    rule: { verbs: [], apiGroups: [''], resources: ['pods'] },
    want: ['rules[1].verbs: Required value: verbs must contain at least one value'],
  },
  {
    name: 'no api groups',
    rule: { verbs: ['get'], resources: ['pods'] },
    want: ['rules[1].apiGroups: Required value: resource rules must supply at least one api group'],
  },
  {
    name: 'no resources',
    rule: { verbs: ['get'], apiGroups: [''] },
    want: ['rules[1].resources: Required value: resource rules must supply at least one resource'],
  },
  {
    name: 'non-resource URLs in a namespaced role',
    rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    want: ['rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs'],
  },
  {
    name: 'non-resource URLs with resources, namespaced',
    rule: { verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] },
    want: [
      'rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
      'rules[1].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs',
    ],
  },
  {
    name: 'every problem at once',
    rule: { verbs: [] },
    want: [
      'rules[1].verbs: Required value: verbs must contain at least one value',
      'rules[1].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].resources: Required value: resource rules must supply at least one resource',
    ],
  },
];
for (const c of invalidCases) {
  test(`role validate: ${c.name}`, () => {
    const { errors } = create(roleDefinition, role({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, c.rule));
    // The valid first rule adds nothing; the second rule's errors carry its index.
    assert.deepEqual(messages(errors), c.want);
  });
}

test('role update: validated as on create', () => {
  const old = role({ verbs: ['get'], apiGroups: [''], resources: ['pods'] });
  assert.deepEqual(update(roleDefinition, role({ verbs: ['list'], apiGroups: [''], resources: ['pods'] }), old).errors, []);
  assert.deepEqual(summary(update(roleDefinition, role({ verbs: ['list'] }), old).errors), [
    'FieldValueRequired rules[0].apiGroups',
    'FieldValueRequired rules[0].resources',
  ]);
});

const nameCases: { name: string; value: string; valid: boolean }[] = [
  { name: 'a colon-separated name', value: 'system:controller:reader', valid: true },
  { name: 'upper case', value: 'Reader', valid: true },
  { name: 'a slash', value: 'a/b', valid: false },
  { name: 'a percent sign', value: 'a%b', valid: false },
  { name: '..', value: '..', valid: false },
];
for (const c of nameCases) {
  test(`role name: ${c.name}`, () => assert.equal(roleDefinition.validateName(c.value, false).length === 0, c.valid));
}

test('role: registration as upstream', () => {
  assert.equal(roleDefinition.group, 'rbac.authorization.{domain}');
  assert.equal(roleDefinition.allowCreateOnUpdate, true);
  assert.equal(roleDefinition.namespaced, true);
  assert.equal(roleDefinition.verbs.length, 8);
  assert.equal('tableColumns' in roleDefinition, false);
});
