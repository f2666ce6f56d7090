// The bootstrap configuration (upstream 1.28's apis/flowcontrol/bootstrap/default.go): the mandatory
// objects (mandatory.ts) and the suggested ones the config producer keeps in the API, each with
// apf.kubernetes.io/autoupdate-spec: "true". Specs are written as they are after defaulting, so
// that what the server stores compares equal to them.
import { mandatoryFlowSchemaCatchAll, mandatoryFlowSchemaExempt, mandatoryPriorityLevelCatchAll, mandatoryPriorityLevelExempt } from './mandatory.js';
import type { FlowSchema, FlowSchemaSpec, PolicyRulesWithSubjects, PriorityLevelConfiguration, QueuingConfiguration, ResourcePolicyRule, Subject } from './types.js';

/** Upstream's annotation: whether the config producer keeps the object's spec as bootstrap has it. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

function limited(name: string, shares: number, lendablePercent: number, queuing: QueuingConfiguration): PriorityLevelConfiguration {
  return { metadata: { name }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing } } } };
}

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): ResourcePolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(clusterScope && { clusterScope }),
  namespaces: ['*'],
});
const everything: Omit<PolicyRulesWithSubjects, 'subjects'> = {
  resourceRules: [resourceRule(['*'], ['*'], ['*'], true)],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

function flowSchema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, rule: PolicyRulesWithSubjects): FlowSchema {
  const spec: FlowSchemaSpec = {
    priorityLevelConfiguration: { name: priorityLevel },
    matchingPrecedence,
    ...(distinguisher && { distinguisherMethod: { type: distinguisher } }),
    rules: [rule],
  };
  return { metadata: { name }, spec };
}

/**
 * The coordination group's name; the core group is ''. Upstream's objects name k8s.io groups
 * whatever the serving domain: a FlowSchema matches the group a request names, so with
 * --api-domain=plat.io the leases rules name coordination.plat.io.
 */
export function suggestedConfiguration(domain: string): { priorityLevels: PriorityLevelConfiguration[]; flowSchemas: FlowSchema[] } {
  const coordination = `coordination.${domain}`;
  const priorityLevels = [
    limited('system', 30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    limited('node-high', 40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    limited('leader-election', 10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
    limited('workload-high', 40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    limited('workload-low', 100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    limited('global-default', 20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  ];
  const getCreateUpdate = ['get', 'create', 'update'];
  const flowSchemas = [
    flowSchema('system-nodes', 'system', 500, 'ByUser', { subjects: groups('system:nodes'), ...everything }),
    flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
      subjects: groups('system:nodes'),
      resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], [coordination], ['leases'], false)],
    }),
    flowSchema('probes', 'exempt', 2, undefined, {
      subjects: groups('system:unauthenticated', 'system:authenticated'),
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
    }),
    flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
      subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')],
      resourceRules: [resourceRule(getCreateUpdate, [coordination], ['leases'], false)],
    }),
    flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
      subjects: kubeSystemServiceAccounts('*'),
      resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], false), resourceRule(getCreateUpdate, [coordination], ['leases'], false)],
    }),
    flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
      subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
      resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], false)],
    }),
    flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', { subjects: users('system:kube-controller-manager'), ...everything }),
    flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', { subjects: users('system:kube-scheduler'), ...everything }),
    flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', { subjects: kubeSystemServiceAccounts('*'), ...everything }),
    flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', { subjects: groups('system:serviceaccounts'), ...everything }),
    flowSchema('global-default', 'global-default', 9900, 'ByUser', { subjects: groups('system:unauthenticated', 'system:authenticated'), ...everything }),
  ];
  return { priorityLevels, flowSchemas };
}

export const mandatoryPriorityLevels: readonly PriorityLevelConfiguration[] = [mandatoryPriorityLevelCatchAll, mandatoryPriorityLevelExempt];
export const mandatoryFlowSchemas: readonly FlowSchema[] = [mandatoryFlowSchemaExempt, mandatoryFlowSchemaCatchAll];
