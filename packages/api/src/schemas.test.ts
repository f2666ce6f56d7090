// Every kind's schema compiles with ajv (draft 2020-12, strict mode, our x-kubernetes-* keywords
// registered), accepts a full sample of its kind and reports unknown fields at their own position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JSONSchema, KubeObject } from '@plat/registry';
import { builtinDefinitions, kubernetesSchemaFormats, kubernetesSchemaKeywords, objectMetaSchema, scaleKind } from './index.js';

const quantity = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  ajv.addVocabulary([...kubernetesSchemaKeywords]);
  for (const format of kubernetesSchemaFormats) ajv.addFormat(format, format === 'date-time' ? rfc3339 : format === 'quantity' ? quantity : true);
  return ajv;
}

const ajv = newAjv();
// The kinds served as a subresource (Scale) decode bodies with their schema too.
const kinds: readonly { kind: string; schema: JSONSchema }[] = [...builtinDefinitions, scaleKind];
// A kind served by two groups (Event) is told apart by its group: "events.{domain}/Event".
const keyOf = (d: { kind: string; group?: string }): string => (kinds.filter((o) => o.kind === d.kind).length > 1 && d.group ? `${d.group}/${d.kind}` : d.kind);
const validators = new Map(kinds.map((d) => [keyOf(d), ajv.compile(d.schema)]));
const validate = (kind: string, object: unknown) => {
  const check = validators.get(kind);
  assert.ok(check, kind);
  check(object);
  return check.errors ?? [];
};

const metadata = {
  name: 'sample',
  namespace: 'default',
  uid: '6f1b1b9e-3b1a-4c1e-9c1a-2a2f3c4d5e6f',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2024-05-01T10:00:00Z',
  deletionTimestamp: '2024-05-02T10:00:00Z',
  deletionGracePeriodSeconds: 30,
  labels: { app: 'web' },
  annotations: { 'example.com/note': 'x' },
  finalizers: ['example.com/cleanup'],
  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true, blockOwnerDeletion: false }],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2024-05-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      subresource: '',
    },
  ],
};

const rbac = 'rbac.authorization.plat.io/v1';
const samples: Record<string, KubeObject> = {
  Namespace: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata,
    spec: { finalizers: ['plat'] },
    status: { phase: 'Active', conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Ok', message: '' }] },
  },
  ServiceAccount: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata,
    automountServiceAccountToken: false,
    imagePullSecrets: [{ name: 'registry' }],
    secrets: [{ name: 'token', namespace: 'default', kind: 'Secret', apiVersion: 'v1', uid: 'u', resourceVersion: '1', fieldPath: '' }],
  },
  ConfigMap: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata,
    immutable: true,
    data: { 'app.properties': 'a=b' },
    binaryData: { 'logo.png': 'iVBORw==' },
  },
  Secret: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata,
    immutable: false,
    data: { password: 'aHVudGVyMg==' },
    stringData: { username: 'admin' },
    type: 'kubernetes.io/basic-auth',
  },
  LimitRange: {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata,
    spec: { limits: [{ type: 'Container', max: { cpu: '2', memory: 1073741824 }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' }, maxLimitRequestRatio: { cpu: 4 } }] },
  },
  IPAddress: {
    apiVersion: 'networking.plat.io/v1alpha1',
    kind: 'IPAddress',
    metadata: { ...metadata, name: '10.0.0.1', namespace: undefined },
    spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes', uid: 'u' } },
  },
  Lease: {
    apiVersion: 'coordination.plat.io/v1',
    kind: 'Lease',
    metadata,
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:10.123456Z', leaseTransitions: 2 },
  },
  Node: {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { ...metadata, namespace: undefined },
    spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'p', unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2024-05-01T10:00:00Z' }] },
    status: {
      capacity: { cpu: '2', pods: 110 },
      allocatable: { cpu: '1' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2024-05-01T10:00:00Z', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'r', message: 'm' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
      images: [{ names: ['a'], sizeBytes: 1 }],
      volumesInUse: ['v'],
      volumesAttached: [{ name: 'v', devicePath: '/dev/x' }],
    },
  },
  Role: { apiVersion: rbac, kind: 'Role', metadata, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }] },
  ClusterRole: {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata,
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] },
  },
  RoleBinding: {
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ci', apiGroup: '' }],
  },
  ClusterRoleBinding: {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'admin' },
    subjects: [{ kind: 'Group', name: 'admins', apiGroup: 'rbac.authorization.plat.io' }],
  },
  SubjectAccessReview: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'SubjectAccessReview',
    metadata,
    spec: {
      resourceAttributes: { namespace: 'ns', verb: 'get', group: '', version: 'v1', resource: 'pods', subresource: 'log', name: 'p' },
      user: 'alice',
      groups: ['devs'],
      extra: { scopes: ['a', 'b'] },
      uid: 'u-1',
    },
    status: { allowed: false, denied: true, reason: 'no', evaluationError: 'e' },
  },
  LocalSubjectAccessReview: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'LocalSubjectAccessReview',
    metadata,
    spec: { resourceAttributes: { namespace: 'ns', verb: 'list', resource: 'roles' }, groups: ['devs'] },
    status: { allowed: true },
  },
  SelfSubjectAccessReview: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata,
    spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    status: { allowed: true, reason: 'RBAC: allowed' },
  },
  SelfSubjectRulesReview: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata,
    spec: { namespace: 'ns' },
    status: {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'e',
    },
  },
  TokenReview: {
    apiVersion: 'authentication.plat.io/v1',
    kind: 'TokenReview',
    metadata,
    spec: { token: 't', audiences: ['api'] },
    status: { authenticated: true, user: { username: 'alice', uid: 'u', groups: ['g'], extra: { k: ['v'] } }, audiences: ['api'], error: '' },
  },
  SelfSubjectReview: {
    apiVersion: 'authentication.plat.io/v1',
    kind: 'SelfSubjectReview',
    metadata,
    status: { userInfo: { username: 'alice', uid: 'u', groups: ['g'], extra: { k: ['v'] } } },
  },
  CustomResourceDefinition: {
    apiVersion: 'apiextensions.plat.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...metadata, namespace: undefined, name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      names: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          deprecated: true,
          deprecationWarning: 'use v2',
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', format: 'int32', description: 'd', priority: 0, jsonPath: '.spec.replicas' }],
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: 'https://example.com/convert', service: { namespace: 'n', name: 's', path: '/p', port: 443 }, caBundle: 'Y2E=' },
          conversionReviewVersions: ['v1'],
        },
      },
      preserveUnknownFields: false,
    },
    status: {
      conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'InitialNamesAccepted', message: 'ok' }],
      acceptedNames: { plural: 'crontabs', kind: 'CronTab' },
      storedVersions: ['v1'],
    },
  },
  Event: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: { kind: 'Namespace', name: 'team-a', uid: 'u-2', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec' },
    reason: 'ContentDeletionFailed',
    message: 'Failed to delete all resource types',
    source: { component: 'namespace-controller', host: 'cm-0' },
    firstTimestamp: '2024-05-01T10:00:00Z',
    lastTimestamp: '2024-05-01T10:05:00Z',
    count: 3,
    type: 'Warning',
    eventTime: '2024-05-01T10:00:00.000001Z',
    series: { count: 3, lastObservedTime: '2024-05-01T10:05:00.000001Z' },
    action: 'Delete',
    related: { kind: 'Role', name: 'reader' },
    reportingComponent: 'namespace-controller',
    reportingInstance: 'cm-0',
  },
  'admissionregistration.{domain}/ValidatingAdmissionPolicy': {
    apiVersion: 'admissionregistration.plat.io/v1beta1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'max-replicas', generation: 2 },
    spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        namespaceSelector: { matchLabels: { env: 'prod' } },
        objectSelector: {},
        resourceRules: [{ resourceNames: ['web'], operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: '*' }],
        excludeResourceRules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
        matchPolicy: 'Equivalent',
      },
      validations: [{ expression: 'true', message: 'm', reason: 'Forbidden', messageExpression: '"m"' }],
      failurePolicy: 'Fail',
      auditAnnotations: [{ key: 'k', valueExpression: '"v"' }],
      matchConditions: [{ name: 'c', expression: 'true' }],
      variables: [{ name: 'v', expression: '1' }],
    },
    status: {
      observedGeneration: 2,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'w' }] },
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2, lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'R', message: '' }],
    },
  },
  'admissionregistration.{domain}/ValidatingAdmissionPolicyBinding': {
    apiVersion: 'admissionregistration.plat.io/v1beta1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'max-replicas' },
    spec: {
      policyName: 'max-replicas',
      paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Exact' },
      validationActions: ['Deny', 'Audit'],
    },
  },
  'events.{domain}/Event': {
    apiVersion: 'events.plat.io/v1',
    kind: 'Event',
    metadata,
    eventTime: '2024-05-01T10:00:00.000001Z',
    series: { count: 3, lastObservedTime: '2024-05-01T10:05:00.000001Z' },
    reportingController: 'namespace-controller',
    reportingInstance: 'cm-0',
    action: 'Delete',
    reason: 'ContentDeletionFailed',
    regarding: { kind: 'Namespace', name: 'team-a' },
    related: { kind: 'Role', name: 'reader' },
    note: 'Failed to delete all resource types',
    type: 'Warning',
    deprecatedSource: { component: 'namespace-controller' },
    deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
    deprecatedLastTimestamp: '2024-05-01T10:05:00Z',
    deprecatedCount: 3,
  },
  Scale: {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata,
    spec: { replicas: 3 },
    status: { replicas: 2, selector: 'app=web' },
  },
};
// JSON has no undefined: drop it as the wire would.
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

test('schemas: one per registered kind, all compiled', () => {
  assert.deepEqual([...validators.keys()].sort(), Object.keys(samples).sort());
});

for (const kind of Object.keys(samples)) {
  test(`schema ${kind}: a full sample is valid`, () => assert.deepEqual(validate(kind, wire(samples[kind])), []));
}

const unknownCases: { name: string; kind: string; mutate: (o: Record<string, any>) => void; at: string; field: string }[] = [
  { name: 'top level', kind: 'Role', mutate: (o) => (o.spec = {}), at: '', field: 'spec' },
  { name: 'in metadata', kind: 'Role', mutate: (o) => (o.metadata.owner = 'x'), at: '/metadata', field: 'owner' },
  { name: 'in an owner reference', kind: 'Namespace', mutate: (o) => (o.metadata.ownerReferences[0].extra = 1), at: '/metadata/ownerReferences/0', field: 'extra' },
  { name: 'in a managed fields entry', kind: 'Namespace', mutate: (o) => (o.metadata.managedFields[0].fields = {}), at: '/metadata/managedFields/0', field: 'fields' },
  { name: 'in a policy rule', kind: 'Role', mutate: (o) => (o.rules[0].verb = ['get']), at: '/rules/0', field: 'verb' },
  { name: 'in a selector requirement', kind: 'ClusterRole', mutate: (o) => (o.aggregationRule.clusterRoleSelectors[0].matchExpressions[0].value = 'v'), at: '/aggregationRule/clusterRoleSelectors/0/matchExpressions/0', field: 'value' },
  { name: 'in a roleRef', kind: 'RoleBinding', mutate: (o) => (o.roleRef.namespace = 'x'), at: '/roleRef', field: 'namespace' },
  { name: 'in a subject', kind: 'ClusterRoleBinding', mutate: (o) => (o.subjects[0].uid = 'x'), at: '/subjects/0', field: 'uid' },
  { name: 'in a limit item', kind: 'LimitRange', mutate: (o) => (o.spec.limits[0].maximum = {}), at: '/spec/limits/0', field: 'maximum' },
  { name: 'in a namespace condition', kind: 'Namespace', mutate: (o) => (o.status.conditions[0].since = 'x'), at: '/status/conditions/0', field: 'since' },
  { name: 'in a secret reference', kind: 'ServiceAccount', mutate: (o) => (o.secrets[0].key = 'x'), at: '/secrets/0', field: 'key' },
  { name: 'in a parent reference', kind: 'IPAddress', mutate: (o) => (o.spec.parentRef.kind = 'Service'), at: '/spec/parentRef', field: 'kind' },
  { name: 'in a scale spec', kind: 'Scale', mutate: (o) => (o.spec.replica = 1), at: '/spec', field: 'replica' },
];
for (const c of unknownCases) {
  test(`schema ${c.kind}: an unknown field ${c.name} is reported at its position`, () => {
    const object = wire(samples[c.kind]) as Record<string, any>;
    c.mutate(object);
    const errors = validate(c.kind, object);
    assert.deepEqual(
      errors.map((e) => [e.keyword, e.instancePath, e.params]),
      [['additionalProperties', c.at, { additionalProperty: c.field }]],
    );
  });
}

test('schema: fieldsV1 keeps any content', () => {
  const object = wire(samples.Role) as Record<string, any>;
  object.metadata.managedFields[0].fieldsV1 = { 'f:anything': { 'k:{"x":1}': { '.': {} } } };
  assert.deepEqual(validate('Role', object), []);
});

const typeCases: { name: string; kind: string; mutate: (o: Record<string, any>) => void; want: [string, string][] }[] = [
  { name: 'a string that is no quantity', kind: 'LimitRange', mutate: (o) => (o.spec.limits[0].max.cpu = 'half'), want: [['format', '/spec/limits/0/max/cpu']] },
  { name: 'a quantity is a string or a number', kind: 'LimitRange', mutate: (o) => (o.spec.limits[0].max.cpu = [1]), want: [['type', '/spec/limits/0/max/cpu']] },
  { name: 'a label value must be a string', kind: 'Role', mutate: (o) => (o.metadata.labels.app = 1), want: [['type', '/metadata/labels/app']] },
  { name: 'generation is an integer', kind: 'Role', mutate: (o) => (o.metadata.generation = 1.5), want: [['type', '/metadata/generation']] },
  { name: 'creationTimestamp is a date-time', kind: 'Role', mutate: (o) => (o.metadata.creationTimestamp = 'yesterday'), want: [['format', '/metadata/creationTimestamp']] },
  { name: 'roleRef is required', kind: 'RoleBinding', mutate: (o) => delete o.roleRef, want: [['required', '']] },
  { name: 'roleRef.name is required', kind: 'ClusterRoleBinding', mutate: (o) => delete o.roleRef.name, want: [['required', '/roleRef']] },
  { name: 'verbs are required', kind: 'ClusterRole', mutate: (o) => delete o.rules[0].verbs, want: [['required', '/rules/0']] },
  { name: 'a limit type is required', kind: 'LimitRange', mutate: (o) => delete o.spec.limits[0].type, want: [['required', '/spec/limits/0']] },
  { name: 'an owner reference uid is required', kind: 'Role', mutate: (o) => delete o.metadata.ownerReferences[0].uid, want: [['required', '/metadata/ownerReferences/0']] },
  { name: 'parentRef is required in an IPAddress spec', kind: 'IPAddress', mutate: (o) => (o.spec = {}), want: [['required', '/spec']] },
];
for (const c of typeCases) {
  test(`schema ${c.kind}: ${c.name}`, () => {
    const object = wire(samples[c.kind]) as Record<string, any>;
    c.mutate(object);
    assert.deepEqual(validate(c.kind, object).map((e) => [e.keyword, e.instancePath]), c.want);
  });
}

// Walks a schema: every object lists its properties and is closed, or is a map, or keeps unknown fields.
function* nodes(schema: JSONSchema, at = '#'): Generator<[string, JSONSchema]> {
  yield [at, schema];
  const props = schema.properties as Record<string, JSONSchema> | undefined;
  for (const [name, child] of Object.entries(props ?? {})) yield* nodes(child, `${at}/${name}`);
  if (schema.items) yield* nodes(schema.items as JSONSchema, `${at}[]`);
  if (typeof schema.additionalProperties === 'object') yield* nodes(schema.additionalProperties as JSONSchema, `${at}{}`);
  for (const branch of (schema.anyOf as JSONSchema[] | undefined) ?? []) yield* nodes(branch, `${at}|`);
}

for (const definition of kinds) {
  test(`schema ${definition.kind}: every object is closed and every field described`, () => {
    for (const [at, node] of nodes(definition.schema)) {
      if (node.type === 'object') {
        const closedOrMap = node.properties ? node.additionalProperties === false : typeof node.additionalProperties === 'object';
        assert.ok(closedOrMap || node['x-kubernetes-preserve-unknown-fields'] === true, `${at} is open`);
      }
      for (const [name, child] of Object.entries((node.properties as Record<string, JSONSchema> | undefined) ?? {})) {
        assert.equal(typeof child.description, 'string', `${at}/${name} has no description`);
      }
    }
  });
}

test('schema: ObjectMeta carries upstream merge markers', () => {
  const props = objectMetaSchema.properties as Record<string, JSONSchema>;
  assert.deepEqual(
    [props.ownerReferences!['x-kubernetes-list-type'], props.ownerReferences!['x-kubernetes-list-map-keys'], props.ownerReferences!['x-kubernetes-patch-merge-key']],
    ['map', ['uid'], 'uid'],
  );
  assert.deepEqual([props.finalizers!['x-kubernetes-list-type'], props.finalizers!['x-kubernetes-patch-strategy']], ['set', 'merge']);
  assert.deepEqual(objectMetaSchema.required, undefined);
});

test('schema: ServiceAccount secrets merge by name', () => {
  const sa = builtinDefinitions.find((d) => d.kind === 'ServiceAccount')!;
  const secrets = (sa.schema.properties as Record<string, JSONSchema>).secrets!;
  assert.deepEqual([secrets['x-kubernetes-patch-strategy'], secrets['x-kubernetes-patch-merge-key']], ['merge', 'name']);
});
