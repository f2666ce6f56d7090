import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideNames } from './names.js';
import { setCondition } from './conditions.js';
import type { CustomResourceDefinition, CustomResourceDefinitionNames } from './types.js';

function crd(name: string, names: CustomResourceDefinitionNames, accepted?: CustomResourceDefinitionNames, group = 'example.com'): CustomResourceDefinition {
  return {
    metadata: { name },
    spec: { group, names, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] },
    ...(accepted && { status: { acceptedNames: accepted } }),
  };
}

const crontabs: CustomResourceDefinitionNames = { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList' };
const installed = crd('crontabs.example.com', crontabs, crontabs);

const cases: [name: string, requested: CustomResourceDefinitionNames, reason: string, message: string, group?: string][] = [
  ['fresh names are accepted', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, 'NoConflicts', 'no conflicts found'],
  ['a plural in use', { plural: 'crontabs', singular: 'other', kind: 'Other', listKind: 'OtherList' }, 'PluralConflict', '"crontabs" is already in use'],
  ['a plural that is another singular', { plural: 'crontab', singular: 'other', kind: 'Other', listKind: 'OtherList' }, 'PluralConflict', '"crontab" is already in use'],
  ['a singular in use', { plural: 'others', singular: 'ct', kind: 'Other', listKind: 'OtherList' }, 'SingularConflict', '"ct" is already in use'],
  ['a short name in use', { plural: 'others', singular: 'other', shortNames: ['ct', 'o'], kind: 'Other', listKind: 'OtherList' }, 'ShortNamesConflict', '"ct" is already in use'],
  ['two short names in use', { plural: 'others', singular: 'other', shortNames: ['ct', 'crontab'], kind: 'Other', listKind: 'OtherList' }, 'ShortNamesConflict', '["ct" is already in use, "crontab" is already in use]'],
  ['a kind in use', { plural: 'others', singular: 'other', kind: 'CronTab', listKind: 'OtherList' }, 'KindConflict', '"CronTab" is already in use'],
  ['a list kind in use', { plural: 'others', singular: 'other', kind: 'Other', listKind: 'CronTabList' }, 'ListKindConflict', '"CronTabList" is already in use'],
  ['a kind that is another list kind', { plural: 'others', singular: 'other', kind: 'CronTabList', listKind: 'OtherList' }, 'KindConflict', '"CronTabList" is already in use'],
  ['the same names in another group', crontabs, 'NoConflicts', 'no conflicts found', 'other.example.com'],
];

for (const [name, requested, reason, message, group] of cases) {
  test(`names: ${name}`, () => {
    const decision = decideNames(crd(`new.${group ?? 'example.com'}`, requested, undefined, group), [installed]);
    assert.equal(decision.namesAccepted.reason, reason);
    assert.equal(decision.namesAccepted.message, message);
    assert.equal(decision.namesAccepted.status, reason === 'NoConflicts' ? 'True' : 'False');
    assert.deepEqual(decision.established, reason === 'NoConflicts'
      ? { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' }
      : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
  });
}

test('names: a conflicting name keeps what was accepted before; the others change', () => {
  const accepted = { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' };
  const renamed = crd('things.example.com', { plural: 'things', singular: 'crontab', kind: 'Gizmo', listKind: 'GizmoList' }, accepted);
  const decision = decideNames(renamed, [installed, renamed]);
  assert.deepEqual(decision.acceptedNames, { plural: 'things', singular: 'thing', kind: 'Gizmo', listKind: 'GizmoList' });
  assert.equal(decision.namesAccepted.reason, 'SingularConflict');
});

test('names: an Established definition stays Established', () => {
  const established = crd('crontabs.example.com', crontabs, crontabs);
  setCondition(established, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, '2026-01-01T00:00:00Z');
  assert.equal(decideNames(established, []).established.status, 'True');
});

test('conditions: the transition time changes with the status only', () => {
  const object = crd('a.example.com', crontabs);
  setCondition(object, { type: 'NamesAccepted', status: 'False', reason: 'A', message: 'a' }, 't1');
  setCondition(object, { type: 'NamesAccepted', status: 'False', reason: 'B', message: 'b' }, 't2');
  assert.deepEqual(object.status?.conditions, [{ type: 'NamesAccepted', status: 'False', reason: 'B', message: 'b', lastTransitionTime: 't1' }]);
  setCondition(object, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, 't3');
  assert.equal(object.status?.conditions?.[0]?.lastTransitionTime, 't3');
});
