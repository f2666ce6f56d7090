// The rules of an aggregated ClusterRole, as upstream's ClusterRole aggregation controller computes them.
import { labelSelectorFromObject } from '@plat/apimachinery';
import type { ClusterRole } from './types.js';
import type { PolicyRule } from '@plat/apimachinery';

const fields = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** equality.Semantic.DeepEqual of two rules: lists compared in order, an absent list equal to an empty one. */
export function ruleEquals(a: PolicyRule, b: PolicyRule): boolean {
  return fields.every((field) => {
    const x = a[field] ?? [];
    const y = b[field] ?? [];
    return x.length === y.length && x.every((value, i) => value === y[i]);
  });
}

const byName = (a: ClusterRole, b: ClusterRole): number => {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The rules `target` should hold: for each of its clusterRoleSelectors in order, the rules of every
 * other ClusterRole the selector matches (in name order), each rule kept once. Rules are those the
 * roles hold now, so a chain (view into edit into admin) settles as the controller re-runs on each
 * change. A target without an aggregationRule keeps its own rules. Throws SelectorParseError for a
 * selector upstream's validation would have refused.
 */
export function aggregateClusterRole(target: ClusterRole, allClusterRoles: readonly ClusterRole[]): PolicyRule[] {
  if (!target.aggregationRule) return structuredClone(target.rules ?? []);
  const rules: PolicyRule[] = [];
  for (const selectorObject of target.aggregationRule.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(selectorObject);
    const selected = allClusterRoles.filter((role) => selector.matches(role.metadata?.labels)).sort(byName);
    for (const role of selected) {
      if ((role.metadata?.name ?? '') === (target.metadata?.name ?? '')) continue;
      for (const rule of role.rules ?? []) {
        if (!rules.some((existing) => ruleEquals(existing, rule))) rules.push(structuredClone(rule));
      }
    }
  }
  return rules;
}
