// ClusterRole aggregation: a ClusterRole with an aggregationRule gets, as its rules, the union of the
// rules of every other ClusterRole one of its selectors matches, kept current as roles and their
// labels change; direct edits of its rules are overwritten (upstream's clusterrole-aggregation).
import { labelSelectorFromObject, type LabelSelectorObject, type PolicyRule } from '@plat/apimachinery';
import { runWorkers, type Informer, type KubeObject } from '@plat/client';
import { clusterRolesRef } from '../names.js';
import { aborted, isNotFound, waitForSync, type Controller } from './context.js';

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] };
}

/** A rule's identity for comparison: upstream's semantic equality, where an absent list equals an empty one. */
const ruleKey = (rule: PolicyRule): string =>
  JSON.stringify([rule.verbs ?? [], rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.nonResourceURLs ?? []]);

/**
 * The rules an aggregated role should have: for each selector in order, the rules of the matching
 * roles (other than itself) sorted by name, each rule once. Throws for an invalid selector.
 */
export function aggregatedRules(role: ClusterRole, roles: readonly ClusterRole[]): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  const byName = [...roles].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  for (const selectorObject of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(selectorObject);
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !selector.matches(other.metadata.labels)) continue;
      for (const rule of other.rules ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  return rules;
}

export const sameRules = (a: readonly PolicyRule[] | undefined, b: readonly PolicyRule[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((rule, i) => ruleKey(rule) === ruleKey(b![i]!));

export const clusterRoleAggregationController: Controller = async ({ client, informers, domain, logger, workQueue }, signal) => {
  const roles: Informer<ClusterRole> = informers.informerFor<ClusterRole>(clusterRolesRef(domain));
  const queue = workQueue<string>('ClusterRoleAggregator');
  // Any change may matter to any aggregated role: all of them are checked again.
  const enqueueAggregated = (): void => {
    for (const role of roles.list()) if (role.aggregationRule) queue.add(role.metadata.name!);
  };
  roles.addEventHandler({ onAdd: enqueueAggregated, onUpdate: enqueueAggregated, onDelete: enqueueAggregated });

  const sync = async (name: string): Promise<void> => {
    const role = roles.get(name);
    if (!role?.aggregationRule) return;
    const rules = aggregatedRules(role, roles.list());
    if (sameRules(rules, role.rules)) return;
    try {
      await client.resource<ClusterRole>(clusterRolesRef(domain)).update({ ...role, rules });
      logger.info({ controller: 'clusterrole-aggregation', name, rules: rules.length }, 'updated aggregated cluster role');
    } catch (error) {
      // Deleted meanwhile: nothing to aggregate. A conflict is retried with the newer version.
      if (!isNotFound(error)) throw error;
    }
  };

  if (!(await waitForSync(signal, roles))) return;
  enqueueAggregated();
  const workers = runWorkers(queue, 5, sync, logger, 'clusterrole-aggregation');
  await aborted(signal);
  queue.shutDown();
  await workers;
};
