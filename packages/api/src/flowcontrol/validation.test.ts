// Upstream's TestFlowSchemaValidation, TestPriorityLevelConfigurationValidation,
// TestValidateFlowSchemaStatus and TestValidatePriorityLevelConfigurationStatus
// (pkg/apis/flowcontrol/validation/validation_test.go): their cases, messages and paths, the errors
// compared as a set (upstream's ElementsMatch). The 1.29-only cases (the zero-shares round-trip
// annotation) are left out: 1.28 has no such annotation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowSchemaObject, FlowSchemaSpecInput, PriorityLevelConfigurationObject, PriorityLevelConfigurationSpecInput } from './types.js';
import { validateFlowControlStatus, validateFlowSchema, validatePriorityLevelConfiguration } from './validation.js';

const sorted = (errors: readonly unknown[]): string[] => errors.map(String).sort();
const fs = (name: string, spec: FlowSchemaSpecInput): FlowSchemaObject => ({ metadata: { name }, spec });
const pl = (name: string, spec: PriorityLevelConfigurationSpecInput): PriorityLevelConfigurationObject => ({ metadata: { name }, spec });

const all = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] };
const noxu = { kind: 'User' as const, user: { name: 'noxu' } };
const base = (rules: FlowSchemaSpecInput['rules'], extra: FlowSchemaSpecInput = {}): FlowSchemaSpecInput => ({
  matchingPrecedence: 50,
  priorityLevelConfiguration: { name: 'system-bar' },
  rules,
  ...extra,
});
const r0 = 'spec.rules[0]';
const dns1123Subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const dns1123Label =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const everything = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] };
const badExempt: FlowSchemaSpecInput = {
  matchingPrecedence: 1,
  priorityLevelConfiguration: { name: 'exempt' },
  rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], ...everything, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/'] }] }],
};
const badCatchAll: FlowSchemaSpecInput = {
  matchingPrecedence: 10000,
  priorityLevelConfiguration: { name: 'catch-all' },
  distinguisherMethod: { type: 'ByUser' },
  rules: [
    {
      subjects: [
        { kind: 'Group', group: { name: 'system:unauthenticated' } },
        { kind: 'Group', group: { name: 'system:authenticated' } },
      ],
      ...everything,
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/'] }],
    },
  ],
};

const flowSchemaCases: { name: string; object: FlowSchemaObject; errors: string[] }[] = [
  {
    name: 'missing both resource and non-resource policy-rule should fail',
    object: fs('system-foo', base([{ subjects: [noxu] }])),
    errors: [`${r0}: Required value: at least one of resourceRules and nonResourceRules has to be non-empty`],
  },
  { name: 'normal flow-schema w/ * verbs/apiGroups/resources should work', object: fs('system-foo', base([{ subjects: [{ kind: 'Group', group: { name: 'noxu' } }], resourceRules: [all] }])), errors: [] },
  {
    name: 'malformed Subject union in ServiceAccount case',
    object: fs('system-foo', base([{ subjects: [{ kind: 'ServiceAccount', user: { name: 'fred' }, group: { name: 'fred' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }])),
    errors: [
      `${r0}.subjects[0].serviceAccount: Required value: serviceAccount is required when subject kind is 'ServiceAccount'`,
      `${r0}.subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'`,
      `${r0}.subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'`,
    ],
  },
  {
    name: 'Subject union malformed in User case',
    object: fs('system-foo', base([{ subjects: [{ kind: 'User', group: { name: 'fred' }, serviceAccount: { namespace: 's', name: 'n' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }])),
    errors: [
      `${r0}.subjects[0].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'`,
      `${r0}.subjects[0].user: Required value: user is required when subject kind is 'User'`,
      `${r0}.subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'`,
    ],
  },
  {
    name: 'malformed Subject union in Group case',
    object: fs('system-foo', base([{ subjects: [{ kind: 'Group', user: { name: 'fred' }, serviceAccount: { namespace: 's', name: 'n' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }])),
    errors: [
      `${r0}.subjects[0].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'`,
      `${r0}.subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'`,
      `${r0}.subjects[0].group: Required value: group is required when subject kind is 'Group'`,
    ],
  },
  {
    name: 'exempt flow-schema should work',
    object: fs('exempt', { ...badExempt, rules: [{ ...badExempt.rules![0]!, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] }),
    errors: [],
  },
  { name: 'bad exempt flow-schema should fail', object: fs('exempt', badExempt), errors: [`spec: Invalid value: ${JSON.stringify(badExempt)}: spec of 'exempt' must equal the fixed value`] },
  { name: 'bad catch-all flow-schema should fail', object: fs('catch-all', badCatchAll), errors: [`spec: Invalid value: ${JSON.stringify(badCatchAll)}: spec of 'catch-all' must equal the fixed value`] },
  {
    name: 'catch-all flow-schema should work',
    object: fs('catch-all', { ...badCatchAll, rules: [{ ...badCatchAll.rules![0]!, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] }),
    errors: [],
  },
  {
    name: 'non-exempt flow-schema with matchingPrecedence==1 should fail',
    object: fs('fred', { matchingPrecedence: 1, priorityLevelConfiguration: { name: 'exempt' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'gorp' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] }),
    errors: ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"],
  },
  {
    name: 'flow-schema mixes * verbs/apiGroups/resources should fail',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ verbs: ['*', 'create'], apiGroups: ['*', 'tak'], resources: ['*', 'tok'], namespaces: ['*'] }] }])),
    errors: [
      `${r0}.resourceRules[0].verbs: Invalid value: []string{"*", "create"}: if '*' is present, must not specify other verbs`,
      `${r0}.resourceRules[0].apiGroups: Invalid value: []string{"*", "tak"}: if '*' is present, must not specify other api groups`,
      `${r0}.resourceRules[0].resources: Invalid value: []string{"*", "tok"}: if '*' is present, must not specify other resources`,
    ],
  },
  {
    name: 'flow-schema has both resource rules and non-resource rules should work',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [all], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/apis/*'] }] }])),
    errors: [],
  },
  {
    name: 'flow-schema mixes * non-resource URLs should fail',
    object: fs('system-foo', base([{ subjects: [noxu], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*', 'tik'] }] }])),
    errors: [`${r0}.nonResourceRules[0].nonResourceURLs: Invalid value: []string{"*", "tik"}: if '*' is present, must not specify other non-resource URLs`],
  },
  {
    name: 'invalid subject kind should fail',
    object: fs('system-foo', base([{ subjects: [{ kind: 'FooKind' as 'User' }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }])),
    errors: [`${r0}.subjects[0].kind: Unsupported value: "FooKind": supported values: "Group", "ServiceAccount", "User"`],
  },
  {
    name: 'flow-schema w/ invalid verb should fail',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ ...all, verbs: ['feed'] }] }])),
    errors: [
      `${r0}.resourceRules[0].verbs: Unsupported value: []string{"feed"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`,
    ],
  },
  {
    name: 'flow-schema w/ invalid priority level configuration name should fail',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [all] }], { priorityLevelConfiguration: { name: 'system+++$$' } })),
    errors: [`spec.priorityLevelConfiguration.name: Invalid value: "system+++$$": ${dns1123Subdomain}`],
  },
  {
    name: 'flow-schema w/ service-account kind missing namespace should fail',
    object: fs('system-foo', base([{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'noxu' } }], resourceRules: [all] }])),
    errors: [`${r0}.subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account`],
  },
  {
    name: 'flow-schema missing kind should fail',
    object: fs('system-foo', base([{ subjects: [{ kind: '' as 'User' }], resourceRules: [all] }])),
    errors: [`${r0}.subjects[0].kind: Unsupported value: "": supported values: "Group", "ServiceAccount", "User"`],
  },
  {
    name: 'Omitted ResourceRule.Namespaces should fail',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }])),
    errors: [`${r0}.resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace`],
  },
  {
    name: 'ClusterScope is allowed, with no Namespaces',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }])),
    errors: [],
  },
  { name: 'ClusterScope is allowed with NamespaceEvery', object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ ...all, clusterScope: true }] }])), errors: [] },
  {
    name: 'NamespaceEvery may not be combined with particulars',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ ...all, namespaces: ['foo', '*'] }] }])),
    errors: [`${r0}.resourceRules[0].namespaces: Invalid value: []string{"foo", "*"}: if '*' is present, must not specify other namespaces`],
  },
  {
    name: 'ResourceRule.Namespaces must be well formed',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [{ ...all, namespaces: ['-foo'] }] }])),
    errors: [`${r0}.resourceRules[0].namespaces[0]: Invalid value: "-foo": each member of this list must be '*' or a DNS-1123 label; ${dns1123Label}`],
  },
  {
    name: 'MatchingPrecedence must not be greater than 10000',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [all] }], { matchingPrecedence: 10001 })),
    errors: ['spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000'],
  },
  // Beyond upstream's table: the rules' other messages, as validation.go words them.
  {
    name: 'a distinguisher of an unknown type is not supported, printed as Go prints the struct',
    object: fs('system-foo', base([{ subjects: [noxu], resourceRules: [all] }], { distinguisherMethod: { type: 'ByFoo' as 'ByUser' } })),
    errors: ['spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}: supported values: "ByNamespace", "ByUser"'],
  },
  {
    name: 'no precedence, no level, no subjects, bad URLs',
    object: fs('system-foo', {
      matchingPrecedence: -3,
      rules: [{ subjects: [], nonResourceRules: [{ verbs: [], nonResourceURLs: ['healthz', '/a b', '/a//b', '/a*', '/a/*/*', ''] }, { verbs: ['get'], nonResourceURLs: [] }] }],
    }),
    errors: [
      'spec.matchingPrecedence: Invalid value: -3: must be a positive value',
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
      `${r0}.subjects: Required value: subjects must contain at least one value`,
      `${r0}.nonResourceRules[0].verbs: Required value: verbs must contain at least one value`,
      `${r0}.nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`,
      `${r0}.nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a b": must not contain white-space`,
      `${r0}.nonResourceRules[0].nonResourceURLs[2]: Invalid value: "/a//b": must not contain double slash`,
      `${r0}.nonResourceRules[0].nonResourceURLs[3]: Invalid value: "/a*": wildcard can only do suffix matching`,
      `${r0}.nonResourceRules[0].nonResourceURLs[4]: Invalid value: "/a/*/*": wildcard can only do suffix matching`,
      `${r0}.nonResourceRules[0].nonResourceURLs[5]: Invalid value: "": must not be empty`,
      `${r0}.nonResourceRules[1].nonResourceURLs: Required value: nonResourceURLs must contain at least one value`,
    ],
  },
  {
    name: 'resource rules without groups or resources; a service account named * in a bad namespace',
    object: fs('system-foo', base([{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'Kube', name: '*' } }, { kind: 'User', user: {} }], resourceRules: [{ verbs: ['get'], apiGroups: [], resources: [], clusterScope: true }] }])),
    errors: [
      `${r0}.subjects[0].serviceAccount.namespace: Invalid value: "Kube": ${dns1123Label}`,
      `${r0}.subjects[1].user.name: Required value`,
      `${r0}.resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group`,
      `${r0}.resourceRules[0].resources: Required value: resource rules must supply at least one resource`,
    ],
  },
];

for (const c of flowSchemaCases) {
  test(`TestFlowSchemaValidation: ${c.name}`, () => assert.deepEqual(sorted(validateFlowSchema(c.object)), [...c.errors].sort()));
}

const badSpec: PriorityLevelConfigurationSpecInput = { type: 'Limited', limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } };
const exemptTypeRepurposed: PriorityLevelConfigurationSpecInput = { type: 'Limited', exempt: {}, limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } };
const badExemptSpec3: PriorityLevelConfigurationSpecInput = { type: 'Exempt', exempt: {}, limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } };
const queue = (queues: number, handSize: number): PriorityLevelConfigurationSpecInput => ({
  type: 'Limited',
  limited: { nominalConcurrencyShares: 100, limitResponse: { type: 'Queue', queuing: { queueLengthLimit: 100, queues, handSize } } },
});
const queuing = 'spec.limited.limitResponse.queuing';

const priorityLevelCases: { name: string; object: PriorityLevelConfigurationObject; shares?: string; errors: string[] }[] = [
  { name: 'exempt should work', object: pl('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }), errors: [] },
  {
    name: 'wrong exempt spec should fail',
    object: pl('exempt', badSpec),
    errors: [
      `spec.type: Invalid value: "Limited": type must be 'Exempt' if and only if name is 'exempt'`,
      `spec: Invalid value: ${JSON.stringify(badSpec)}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
    ],
  },
  {
    name: 'exempt priority level should have appropriate values for Exempt field (1)',
    object: pl('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: -1, lendablePercent: 101 } }),
    errors: ['spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer', 'spec.exempt.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive'],
  },
  {
    name: 'exempt priority level should have appropriate values for Exempt field (2)',
    object: pl('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: -1, lendablePercent: -1 } }),
    errors: ['spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer', 'spec.exempt.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive'],
  },
  {
    name: "admins are not allowed to repurpose the 'exempt' pl to a limited type",
    object: pl('exempt', exemptTypeRepurposed),
    errors: [
      `spec.type: Invalid value: "Limited": type must be 'Exempt' if and only if name is 'exempt'`,
      'spec.exempt: Forbidden: must be nil if the type is Limited',
      `spec: Invalid value: ${JSON.stringify(exemptTypeRepurposed)}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
    ],
  },
  {
    name: "admins are not allowed to change any field of the 'exempt' pl except 'Exempt'",
    object: pl('exempt', badExemptSpec3),
    errors: [
      `spec: Invalid value: ${JSON.stringify(badExemptSpec3)}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
      'spec.limited: Forbidden: must be nil if the type is not Limited',
    ],
  },
  { name: "admins are allowed to change the Exempt field of the 'exempt' pl", object: pl('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 10 } }), errors: [] },
  {
    name: 'limited must not set exempt priority level configuration for borrowing',
    object: pl('broken-limited', { type: 'Limited', exempt: {} }),
    errors: ['spec.exempt: Forbidden: must be nil if the type is Limited', 'spec.limited: Required value: must not be empty when type is Limited'],
  },
  { name: 'limited requires more details', object: pl('broken-limited', { type: 'Limited' }), errors: ['spec.limited: Required value: must not be empty when type is Limited'] },
  { name: 'max-in-flight should work', object: pl('max-in-flight', badSpec), errors: [] },
  {
    name: 'forbid queuing details when not queuing',
    object: pl('system-foo', { type: 'Limited', limited: { nominalConcurrencyShares: 100, limitResponse: { type: 'Reject', queuing: { queues: 512, handSize: 4, queueLengthLimit: 100 } } } }),
    errors: [`${queuing}: Forbidden: must be nil if limited.limitResponse.type is not Limited`],
  },
  { name: 'wrong backstop spec should fail', object: pl('catch-all', badSpec), errors: [`spec: Invalid value: ${JSON.stringify(badSpec)}: spec of 'catch-all' must equal the fixed value`] },
  {
    name: 'backstop should work',
    object: pl('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
    errors: [],
  },
  {
    name: 'broken queuing level should fail',
    object: pl('system-foo', { type: 'Limited', limited: { nominalConcurrencyShares: 100, limitResponse: { type: 'Queue' } } }),
    errors: [`${queuing}: Required value: must not be empty if limited.limitResponse.type is Limited`],
  },
  { name: 'normal customized priority level should work', object: pl('system-foo', queue(512, 4)), errors: [] },
  {
    name: 'customized priority level w/ overflowing handSize/queues should fail 1',
    object: pl('system-foo', queue(512, 8)),
    errors: [`${queuing}.handSize: Invalid value: 8: required entropy bits of deckSize 512 and handSize 8 should not be greater than 60`],
  },
  {
    name: 'customized priority level w/ overflowing handSize/queues should fail 2',
    object: pl('system-foo', queue(128, 10)),
    errors: [`${queuing}.handSize: Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60`],
  },
  {
    name: 'customized priority level w/ overflowing handSize/queues should fail 3',
    object: pl('system-foo', queue(2147483647, 3)),
    errors: [
      `${queuing}.handSize: Invalid value: 3: required entropy bits of deckSize 2147483647 and handSize 3 should not be greater than 60`,
      `${queuing}.queues: Invalid value: 2147483647: must not be greater than 10000000`,
    ],
  },
  { name: 'customized priority level w/ handSize=2 and queues=10^7 should work', object: pl('system-foo', queue(10_000_000, 2)), errors: [] },
  {
    name: 'customized priority level w/ handSize greater than queues should fail',
    object: pl('system-foo', queue(7, 8)),
    errors: [`${queuing}.handSize: Invalid value: 8: should not be greater than queues (7)`],
  },
  // Beyond upstream's table: the other messages, and v1beta2's name for the shares.
  {
    name: 'zero shares, out-of-range percentages, zero queuing, unknown types',
    object: pl('system-foo', { type: 'Limited', limited: { nominalConcurrencyShares: 0, lendablePercent: 101, borrowingLimitPercent: -1, limitResponse: { type: 'Queue', queuing: { queues: 0, handSize: 0, queueLengthLimit: 0 } } } }),
    errors: [
      'spec.limited.nominalConcurrencyShares: Invalid value: 0: must be positive',
      'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
      'spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer',
      `${queuing}.queueLengthLimit: Invalid value: 0: must be positive`,
      `${queuing}.queues: Invalid value: 0: must be positive`,
      `${queuing}.handSize: Invalid value: 0: must be positive`,
    ],
  },
  {
    name: 'a v1beta2 request is told of assuredConcurrencyShares (upstream\'s getVersionedFieldNameForConcurrencyShares)',
    object: pl('system-foo', { type: 'Limited', limited: { nominalConcurrencyShares: -1, limitResponse: { type: 'Drop' as 'Reject' } } }),
    shares: 'assuredConcurrencyShares',
    errors: ['spec.limited.assuredConcurrencyShares: Invalid value: -1: must be positive', 'spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"'],
  },
  {
    name: 'an unknown type',
    object: pl('system-foo', { type: 'Sometimes' as 'Limited' }),
    errors: ['spec.type: Unsupported value: "Sometimes": supported values: "Exempt", "Limited"'],
  },
];

for (const c of priorityLevelCases) {
  test(`TestPriorityLevelConfigurationValidation: ${c.name}`, () => assert.deepEqual(sorted(validatePriorityLevelConfiguration(c.object, c.shares)), [...c.errors].sort()));
}

const statusCases: { name: string; conditions: { type: string }[]; errors: string[] }[] = [
  { name: 'empty status should work', conditions: [], errors: [] },
  { name: 'duplicate key should fail', conditions: [{ type: '1' }, { type: '1' }], errors: ['status.conditions[1].type: Duplicate value: "1"'] },
  { name: 'missing key should fail', conditions: [{ type: '' }], errors: ['status.conditions[0].type: Required value: must not be empty'] },
];

for (const c of statusCases) {
  test(`TestValidateFlowSchemaStatus: ${c.name}`, () => assert.deepEqual(sorted(validateFlowControlStatus({ conditions: c.conditions })), c.errors));
  test(`TestValidatePriorityLevelConfigurationStatus: ${c.name}`, () => {
    const level = pl('system-foo', badSpec);
    level.status = { conditions: c.conditions };
    assert.deepEqual(sorted(validatePriorityLevelConfiguration(level)), c.errors);
  });
}
