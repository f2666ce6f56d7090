// The schemas of FlowSchema and PriorityLevelConfiguration, with upstream's list types (the string
// lists are sets, the rule lists atomic, the conditions a map keyed by type). v1beta2 differs from
// v1beta3 only in the name of a Limited level's shares, and in its conditions' patch strategy
// (v1beta2's are a map without a strategic-merge key; v1beta3 added one).
import type { JSONSchema } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, booleanField, integerField, objectSchema, stringField, timeField } from '../common/schema.js';
import { sharesField, type FlowControlVersion } from './types.js';

const setList = (description: string): JSONSchema => ({ type: 'array', description, items: { type: 'string' }, 'x-kubernetes-list-type': 'set' });

function conditionsSchema(version: FlowControlVersion, description: string, condition: string): JSONSchema {
  const conditionSchema = objectSchema(condition, {
    type: stringField('The type of the condition.'),
    status: stringField('The status of the condition: True, False or Unknown.'),
    lastTransitionTime: timeField('The last time the condition transitioned from one status to another.'),
    reason: stringField('A unique, one-word, CamelCase reason for the condition\'s last transition.'),
    message: stringField('A human-readable message indicating details about the last transition.'),
  });
  return {
    type: 'array',
    description,
    items: conditionSchema,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    ...(version === 'v1beta3' && { 'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-patch-strategy': 'merge' }),
  };
}

const subjectSchema = objectSchema(
  'Who a rule matches: a user, a group or a service account, as the kind says.',
  {
    kind: stringField('Which one of the other fields is set: User, Group or ServiceAccount.'),
    user: objectSchema('Matches by username.', { name: stringField('The username that matches, or "*" for all.') }, { required: ['name'] }),
    group: objectSchema('Matches by user group.', { name: stringField('The user group that matches, or "*" for all.') }, { required: ['name'] }),
    serviceAccount: objectSchema(
      'Matches service accounts.',
      {
        namespace: stringField('The namespace of the matching service accounts.'),
        name: stringField('The name of the matching service accounts, or "*" for any name.'),
      },
      { required: ['namespace', 'name'] },
    ),
  },
  { required: ['kind'] },
);

const resourceRuleSchema = objectSchema(
  'Matches resource requests by verb, API group, resource and namespace.',
  {
    verbs: setList('The matching verbs; "*" matches all and must then be the only entry.'),
    apiGroups: setList('The matching API groups; "*" matches all and must then be the only entry.'),
    resources: setList('The matching resources (lowercase, plural), with a subresource if desired; "*" matches all and must then be the only entry.'),
    clusterScope: booleanField('Whether requests that name no namespace match; without it, namespaces must not be empty.'),
    namespaces: setList('The namespaces a request that names one must be in; "*" matches any namespace (but not a request that names none).'),
  },
  { required: ['verbs', 'apiGroups', 'resources'] },
);

const nonResourceRuleSchema = objectSchema(
  'Matches non-resource requests by verb and URL.',
  {
    verbs: setList('The matching verbs; "*" matches all and must then be the only entry.'),
    nonResourceURLs: setList('The URL prefixes that match ("/healthz", "/healthz/*"); "*" matches all and must then be the only entry.'),
  },
  { required: ['verbs', 'nonResourceURLs'] },
);

const ruleSchema = objectSchema(
  'A rule: it matches a request when one of its subjects and one of its resource or non-resource rules match it.',
  {
    subjects: atomicList('The users, groups or service accounts the rule is about; at least one.', subjectSchema),
    resourceRules: atomicList('The rules that match resource requests.', resourceRuleSchema),
    nonResourceRules: atomicList('The rules that match non-resource requests.', nonResourceRuleSchema),
  },
  { required: ['subjects'] },
);

export function flowSchemaSchema(version: FlowControlVersion): JSONSchema {
  return kindSchema(
    'The schema of a group of flows: requests with similar attributes, identified by the FlowSchema\'s name and a flow distinguisher.',
    {
      spec: objectSchema('The specification of the desired behavior of a FlowSchema.', {
        priorityLevelConfiguration: objectSchema(
          'The PriorityLevelConfiguration the matched requests are handled at.',
          { name: stringField('The name of the priority level configuration referenced.') },
          { required: ['name'] },
        ),
        matchingPrecedence: integerField('Chooses among the matching FlowSchemas: the numerically lowest wins; 1 to 10000, default 1000.'),
        distinguisherMethod: objectSchema(
          'How the flow distinguisher of a matched request is computed; absent: always the empty string.',
          { type: stringField('ByUser or ByNamespace.') },
          { required: ['type'] },
        ),
        rules: atomicList('Which requests match: any one rule matching is enough; none: nothing matches.', ruleSchema),
      }, { required: ['priorityLevelConfiguration'] }),
      status: objectSchema('The current status of a FlowSchema.', {
        conditions: conditionsSchema(version, 'The current states of the FlowSchema.', 'A condition of a FlowSchema.'),
      }),
    },
  );
}

export function priorityLevelConfigurationSchema(version: FlowControlVersion): JSONSchema {
  const shares = sharesField(version);
  return kindSchema(
    'The configuration of a priority level.',
    {
      spec: objectSchema(
        'The configuration of the priority level.',
        {
          type: stringField('Exempt (never limited, never queued) or Limited.'),
          limited: objectSchema(
            'How requests of a Limited priority level are limited; set if and only if type is Limited.',
            {
              [shares]: integerField('The share of the server\'s concurrency limit nominally reserved for this level; default 30.'),
              limitResponse: objectSchema(
                'What is done with requests that cannot be executed right now.',
                {
                  type: stringField('Queue or Reject.'),
                  queuing: objectSchema('The queuing parameters; only when type is Queue.', {
                    queues: integerField('The number of queues; default 64.'),
                    handSize: integerField('The number of queues a flow is shuffle-sharded to; default 8.'),
                    queueLengthLimit: integerField('The most requests one queue holds; default 50.'),
                  }, { required: ['queues', 'handSize', 'queueLengthLimit'] }),
                },
                { required: ['type'] },
              ),
              lendablePercent: integerField('The percentage of the level\'s nominal concurrency limit other levels may borrow; 0 to 100, default 0.'),
              borrowingLimitPercent: integerField('The most this level may borrow from others, as a percentage of its nominal concurrency limit; absent: no limit.'),
            },
            { required: [shares] },
          ),
          exempt: objectSchema('The configurable aspects of an exempt priority level; only when type is Exempt.', {
            nominalConcurrencyShares: integerField('The share of the server\'s concurrency limit nominally reserved for this level; default 0.'),
            lendablePercent: integerField('The percentage of the level\'s nominal concurrency limit other levels may borrow; 0 to 100, default 0.'),
          }),
        },
        { required: ['type'] },
      ),
      status: objectSchema('The current status of a priority level.', {
        conditions: conditionsSchema(version, 'The current states of the priority level.', 'A condition of a priority level.'),
      }),
    },
  );
}
