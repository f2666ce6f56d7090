import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SelectorParseError } from '@plat/apimachinery';
import { aggregateClusterRole, ruleEquals } from './aggregation.js';
import type { ClusterRole } from './types.js';
import type { PolicyRule } from '@plat/apimachinery';

const label = 'rbac.authorization.plat.io/aggregate-to-view';
const pods: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
const jobs: PolicyRule = { verbs: ['get'], apiGroups: ['batch'], resources: ['jobs'] };
const role = (name: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole => ({ metadata: { name, labels }, rules });
const aggregated = (name: string, selectors: NonNullable<ClusterRole['aggregationRule']>['clusterRoleSelectors'], rules: PolicyRule[] = []): ClusterRole => ({
  metadata: { name },
  aggregationRule: { clusterRoleSelectors: selectors },
  rules,
});

test('aggregateClusterRole: rules of every matching role, roles in name order', () => {
  const view = aggregated('view', [{ matchLabels: { [label]: 'true' } }], [{ verbs: ['stale'], apiGroups: [''], resources: ['x'] }]);
  const all = [view, role('b-jobs', { [label]: 'true' }, [jobs]), role('a-pods', { [label]: 'true' }, [pods]), role('other', {}, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])];
  assert.deepEqual(aggregateClusterRole(view, all), [pods, jobs]);
});

test('aggregateClusterRole: a rule held by several roles is kept once (absent and empty lists equal)', () => {
  const view = aggregated('view', [{ matchLabels: { [label]: 'true' } }]);
  const all = [role('a', { [label]: 'true' }, [pods]), role('b', { [label]: 'true' }, [{ ...pods, resourceNames: [] }, jobs])];
  assert.deepEqual(aggregateClusterRole(view, all), [pods, jobs]);
  assert.equal(ruleEquals({ verbs: ['get', 'list'] }, { verbs: ['list', 'get'] }), false);
});

test('aggregateClusterRole: the role itself is skipped even when its selector matches it', () => {
  const self = { ...aggregated('view', [{ matchLabels: { [label]: 'true' } }], [jobs]), metadata: { name: 'view', labels: { [label]: 'true' } } };
  assert.deepEqual(aggregateClusterRole(self, [self, role('a', { [label]: 'true' }, [pods])]), [pods]);
});

test('aggregateClusterRole: selectors are taken in order; expressions work', () => {
  const target = aggregated('t', [{ matchLabels: { tier: 'b' } }, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }]);
  const all = [role('x', { tier: 'a' }, [pods]), role('y', { tier: 'b' }, [jobs])];
  assert.deepEqual(aggregateClusterRole(target, all), [jobs, pods]);
});

test('aggregateClusterRole: an empty selector matches every other role; no selectors match none', () => {
  const all = [role('x', {}, [pods])];
  assert.deepEqual(aggregateClusterRole(aggregated('t', [{}]), all), [pods]);
  assert.deepEqual(aggregateClusterRole(aggregated('t', []), all), []);
});

test('aggregateClusterRole: a role without aggregationRule keeps its rules', () => {
  assert.deepEqual(aggregateClusterRole(role('plain', {}, [pods]), []), [pods]);
});

test('aggregateClusterRole: an invalid selector throws as upstream errors', () => {
  assert.throws(() => aggregateClusterRole(aggregated('t', [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }]), []), SelectorParseError);
});
