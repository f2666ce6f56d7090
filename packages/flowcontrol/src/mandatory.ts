// The two objects every configuration has (upstream's bootstrap Mandatory*): the exempt level and
// schema for system:masters, the catch-all level and schema for everyone else. The controller
// uses these built-in copies while the API objects are missing.
import type { FlowSchema, PriorityLevelConfiguration } from './types.js';

export const mandatoryPriorityLevelExempt: PriorityLevelConfiguration = {
  metadata: { name: 'exempt' },
  spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
};

export const mandatoryPriorityLevelCatchAll: PriorityLevelConfiguration = {
  metadata: { name: 'catch-all' },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
};

const everything = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

export const mandatoryFlowSchemaExempt: FlowSchema = {
  metadata: { name: 'exempt' },
  spec: {
    priorityLevelConfiguration: { name: 'exempt' },
    matchingPrecedence: 1,
    rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], ...everything }],
  },
};

export const mandatoryFlowSchemaCatchAll: FlowSchema = {
  metadata: { name: 'catch-all' },
  spec: {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [
          { kind: 'Group', group: { name: 'system:unauthenticated' } },
          { kind: 'Group', group: { name: 'system:authenticated' } },
        ],
        ...everything,
      },
    ],
  },
};
