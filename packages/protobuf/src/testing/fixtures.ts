// Realistic objects of every kind with a Protobuf form, in the JSON form our API serves (for tests
// and benchmarks): every field set that the kind has, zero values only where Go writes them.
import type { JsonObject } from '../compile.js';

const RBAC = 'rbac.authorization.plat.io';
const created = '2024-05-01T10:00:00Z';

const managedFields = (apiVersion: string, fields: JsonObject): JsonObject[] => [
  {
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    apiVersion,
    time: created,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
  },
  {
    manager: 'plat-controller',
    operation: 'Apply',
    apiVersion,
    time: '2024-05-01T10:05:30Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:plat.io/owner': {} } } },
    subresource: 'status',
  },
];

const meta = (name: string, namespace: string | undefined, apiVersion: string, extra: JsonObject = {}): JsonObject => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: `0f6c1b9e-4a1d-4c5e-9f3a-${name.replace(/[^a-z0-9]/g, '').padEnd(12, '0').slice(0, 12)}`,
  resourceVersion: '4711',
  generation: 2,
  creationTimestamp: created,
  labels: { app: 'shop', 'plat.io/part-of': 'billing' },
  annotations: { 'plat.io/owner': 'team-a', note: 'ünïcödé ✓ "quoted"' },
  managedFields: managedFields(apiVersion, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }),
  ...extra,
});

const rules: JsonObject[] = [
  { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web-0'] },
  { verbs: ['*'], apiGroups: ['apps', RBAC], resources: ['deployments'] },
];

export const namespace: JsonObject = {
  kind: 'Namespace',
  apiVersion: 'v1',
  metadata: meta('team-a', undefined, 'v1', {
    labels: { 'plat.io/metadata.name': 'team-a' },
    deletionTimestamp: '2024-05-02T08:00:00Z',
    deletionGracePeriodSeconds: 0,
    finalizers: ['example.com/cleanup'],
  }),
  spec: { finalizers: ['plat'] },
  status: {
    phase: 'Terminating',
    conditions: [
      {
        type: 'NamespaceDeletionContentFailure',
        status: 'False',
        lastTransitionTime: '2024-05-02T08:00:01Z',
        reason: 'ContentDeleted',
        message: 'All content successfully deleted, may be waiting on finalization',
      },
      { type: 'NamespaceFinalizersRemaining', status: 'True' },
    ],
  },
};

export const serviceAccount: JsonObject = {
  kind: 'ServiceAccount',
  apiVersion: 'v1',
  metadata: meta('builder', 'team-a', 'v1', {
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '5d2f0a4e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: false },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', uid: '5d2f0a4e-0000-4000-8000-000000000002' },
    ],
  }),
  secrets: [{ kind: 'Secret', namespace: 'team-a', name: 'builder-token', uid: 'b1', apiVersion: 'v1', resourceVersion: '9', fieldPath: 'data' }, { name: 'builder-dockercfg' }],
  imagePullSecrets: [{ name: 'registry' }],
  automountServiceAccountToken: false,
};

export const configMap: JsonObject = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: meta('settings', 'team-a', 'v1'),
  immutable: false,
  data: { 'app.properties': 'color=blue\nsize=3\n', empty: '' },
  binaryData: { 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString('base64') },
};

export const secret: JsonObject = {
  kind: 'Secret',
  apiVersion: 'v1',
  metadata: meta('builder-tls', 'team-a', 'v1'),
  immutable: true,
  data: { 'tls.crt': Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64'), 'tls.key': '' },
  type: 'kubernetes.io/tls',
};

export const limitRange: JsonObject = {
  kind: 'LimitRange',
  apiVersion: 'v1',
  metadata: meta('limits', 'team-a', 'v1'),
  spec: {
    limits: [
      {
        type: 'Container',
        max: { cpu: '2', memory: '1Gi' },
        min: { cpu: '100m', memory: '4Mi' },
        default: { cpu: '500m', memory: '256Mi' },
        defaultRequest: { cpu: '250m', memory: '128Mi' },
        maxLimitRequestRatio: { cpu: '4' },
      },
      { type: 'PersistentVolumeClaim', max: { storage: '10Gi' }, min: { storage: '1Gi' } },
    ],
  },
};

export const role: JsonObject = { kind: 'Role', apiVersion: `${RBAC}/v1`, metadata: meta('pod-reader', 'team-a', `${RBAC}/v1`), rules };

export const clusterRole: JsonObject = {
  kind: 'ClusterRole',
  apiVersion: `${RBAC}/v1`,
  metadata: meta('monitoring', undefined, `${RBAC}/v1`),
  rules: [...rules, { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics'] }],
  aggregationRule: {
    clusterRoleSelectors: [
      {
        matchLabels: { 'rbac.plat.io/aggregate-to-monitoring': 'true' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['frontend', 'backend'] },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
    ],
  },
};

const subjects: JsonObject[] = [
  { kind: 'User', apiGroup: RBAC, name: 'alice@example.com' },
  { kind: 'Group', apiGroup: RBAC, name: 'system:authenticated' },
  { kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' },
];

export const roleBinding: JsonObject = {
  kind: 'RoleBinding',
  apiVersion: `${RBAC}/v1`,
  metadata: meta('read-pods', 'team-a', `${RBAC}/v1`),
  subjects,
  roleRef: { apiGroup: RBAC, kind: 'Role', name: 'pod-reader' },
};

export const clusterRoleBinding: JsonObject = {
  kind: 'ClusterRoleBinding',
  apiVersion: `${RBAC}/v1`,
  metadata: meta('monitoring', undefined, `${RBAC}/v1`),
  subjects,
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'monitoring' },
};

export const ipAddress: JsonObject = {
  kind: 'IPAddress',
  apiVersion: 'networking.plat.io/v1alpha1',
  metadata: meta('2001:db8::1', undefined, 'networking.plat.io/v1alpha1'),
  spec: { parentRef: { resource: 'services', namespace: 'default', name: 'kubernetes', uid: '7e0c5f9a-0000-4000-8000-0000000000aa' } },
};

export const lease: JsonObject = {
  kind: 'Lease',
  apiVersion: 'coordination.plat.io/v1',
  metadata: meta('plat-controller-manager', 'kube-system', 'coordination.plat.io/v1'),
  spec: {
    holderIdentity: 'controller-0_5d2f0a4e-0000-4000-8000-000000000004',
    leaseDurationSeconds: 15,
    acquireTime: '2024-05-01T10:00:00.000001Z',
    renewTime: '2024-05-01T10:05:30.123456Z',
    leaseTransitions: 3,
  },
};

const nodeInfo = {
  machineID: 'm',
  systemUUID: 's',
  bootID: 'b',
  kernelVersion: '6.1.0',
  osImage: 'Debian GNU/Linux 12',
  containerRuntimeVersion: 'simulated://0.1.0',
  kubeletVersion: 'v1.28.0',
  kubeProxyVersion: '',
  operatingSystem: 'linux',
  architecture: 'amd64',
};

export const node: JsonObject = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: meta('worker-1', undefined, 'v1'),
  spec: {
    podCIDR: '10.0.0.0/24',
    podCIDRs: ['10.0.0.0/24', 'fd00::/64'],
    providerID: 'plat://worker-1',
    unschedulable: true,
    taints: [
      { key: 'node.plat.io/unreachable', effect: 'NoExecute', timeAdded: '2024-05-01T10:00:00Z' },
      { key: 'dedicated', value: 'edge', effect: 'NoSchedule' },
    ],
  },
  status: {
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '3900m', memory: '7800Mi', pods: '110' },
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastHeartbeatTime: '2024-05-01T10:00:00Z',
        lastTransitionTime: '2024-05-01T09:00:00Z',
        reason: 'AgentReady',
        message: 'agent is posting ready status',
      },
    ],
    addresses: [
      { type: 'InternalIP', address: '10.0.0.7' },
      { type: 'Hostname', address: 'worker-1' },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo,
    images: [{ names: ['registry/app:1'], sizeBytes: 1234567 }],
    volumesInUse: ['v'],
    volumesAttached: [{ name: 'v', devicePath: '/dev/sdb' }],
  },
};

/** A legacy event (core v1): its count and timestamps, a source, and the new API's fields too. */
export const event: JsonObject = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata: meta('web-0.17c4a1e2f0b3d5a6', 'team-a', 'v1'),
  involvedObject: { kind: 'Namespace', name: 'team-a', uid: '7e0c5f9a-0000-4000-8000-0000000000ab', apiVersion: 'v1', resourceVersion: '4700', fieldPath: 'spec' },
  reason: 'ContentDeletionFailed',
  message: 'Failed to delete all resource types, 1 remaining: ...',
  source: { component: 'namespace-controller', host: 'controller-0' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:05:30Z',
  count: 7,
  type: 'Warning',
  eventTime: '2024-05-01T10:00:00.123456Z',
  series: { count: 7, lastObservedTime: '2024-05-01T10:05:30.654321Z' },
  action: 'Delete',
  related: { kind: 'Role', namespace: 'team-a', name: 'reader' },
  reportingComponent: 'namespace-controller',
  reportingInstance: 'controller-0',
};

/** The same event as events.plat.io/v1 serves it. */
export const eventsEvent: JsonObject = {
  kind: 'Event',
  apiVersion: 'events.plat.io/v1',
  metadata: meta('web-0.17c4a1e2f0b3d5a6', 'team-a', 'events.plat.io/v1'),
  eventTime: '2024-05-01T10:00:00.123456Z',
  series: { count: 7, lastObservedTime: '2024-05-01T10:05:30.654321Z' },
  reportingController: 'namespace-controller',
  reportingInstance: 'controller-0',
  action: 'Delete',
  reason: 'ContentDeletionFailed',
  regarding: { kind: 'Namespace', name: 'team-a', uid: '7e0c5f9a-0000-4000-8000-0000000000ab', apiVersion: 'v1', resourceVersion: '4700', fieldPath: 'spec' },
  related: { kind: 'Role', namespace: 'team-a', name: 'reader' },
  note: 'Failed to delete all resource types, 1 remaining: ...',
  type: 'Warning',
  deprecatedSource: { component: 'namespace-controller', host: 'controller-0' },
  deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
  deprecatedLastTimestamp: '2024-05-01T10:05:30Z',
  deprecatedCount: 7,
};

const resourceAttributes: JsonObject = {
  namespace: 'team-a',
  verb: 'list',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  subresource: 'scale',
  name: 'web',
};

export const subjectAccessReview: JsonObject = {
  kind: 'SubjectAccessReview',
  apiVersion: 'authorization.plat.io/v1',
  metadata: { creationTimestamp: created },
  spec: {
    resourceAttributes,
    user: 'alice@example.com',
    groups: ['developers', 'system:authenticated'],
    extra: { scopes: ['read', 'write'], 'example.com/empty': [] },
    uid: 'u-1234',
  },
  status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/team-a" of Role "pod-reader" to User "alice@example.com"' },
};

export const localSubjectAccessReview: JsonObject = {
  kind: 'LocalSubjectAccessReview',
  apiVersion: 'authorization.plat.io/v1',
  metadata: { namespace: 'team-a' },
  spec: { resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'pods' }, groups: ['developers'] },
  status: { allowed: false, denied: true, reason: 'forbidden', evaluationError: 'role "x" not found' },
};

export const selfSubjectAccessReview: JsonObject = {
  kind: 'SelfSubjectAccessReview',
  apiVersion: 'authorization.plat.io/v1',
  metadata: {},
  spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
  status: { allowed: false },
};

export const selfSubjectRulesReview: JsonObject = {
  kind: 'SelfSubjectRulesReview',
  apiVersion: 'authorization.plat.io/v1',
  metadata: {},
  spec: { namespace: 'team-a' },
  status: {
    resourceRules: [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web-0'] },
      { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectaccessreviews'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
    incomplete: true,
    evaluationError: 'webhook authorizer does not support rules',
  },
};

const userInfo: JsonObject = {
  username: 'system:serviceaccount:team-a:builder',
  uid: '0f6c1b9e-4a1d-4c5e-9f3a-builder00000',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
  extra: { 'authentication.plat.io/pod-name': ['web-0'], 'authentication.plat.io/credential-id': ['JTI=1b2c'] },
};

export const tokenReview: JsonObject = {
  kind: 'TokenReview',
  apiVersion: 'authentication.plat.io/v1',
  metadata: { creationTimestamp: created },
  spec: { token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', audiences: ['https://plat.default.svc'] },
  status: { authenticated: true, user: userInfo, audiences: ['https://plat.default.svc'] },
};

export const tokenRequest: JsonObject = {
  kind: 'TokenRequest',
  apiVersion: 'authentication.plat.io/v1',
  metadata: { name: 'builder', namespace: 'team-a', creationTimestamp: created },
  spec: {
    audiences: ['https://plat.default.svc', 'vault'],
    expirationSeconds: 3600,
    boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: '5d2f0a4e-0000-4000-8000-000000000003' },
  },
  status: { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', expirationTimestamp: '2024-05-01T11:00:00Z' },
};

export const selfSubjectReview: JsonObject = {
  kind: 'SelfSubjectReview',
  apiVersion: 'authentication.plat.io/v1',
  metadata: { creationTimestamp: created },
  status: { userInfo },
};

export const invalidStatus: JsonObject = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'RoleBinding.rbac.authorization.plat.io "read-pods" is invalid: [subjects[0].name: Required value, roleRef.kind: Unsupported value: "Pod"]',
  reason: 'Invalid',
  details: {
    name: 'read-pods',
    group: RBAC,
    kind: 'RoleBinding',
    causes: [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'subjects[0].name' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Pod": supported values: "ClusterRole", "Role"', field: 'roleRef.kind' },
    ],
  },
  code: 422,
};

export const conflictStatus: JsonObject = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: { resourceVersion: '99' },
  status: 'Failure',
  message: 'Too many requests',
  reason: 'TooManyRequests',
  details: { uid: 'u-1', retryAfterSeconds: 5 },
  code: 429,
};

export const deleteOptions: JsonObject = {
  kind: 'DeleteOptions',
  apiVersion: 'meta.plat.io/v1',
  gracePeriodSeconds: 0,
  preconditions: { uid: '0f6c1b9e-4a1d-4c5e-9f3a-000000000000', resourceVersion: '4711' },
  orphanDependents: false,
  propagationPolicy: 'Foreground',
  dryRun: ['All'],
};

const APIEXTENSIONS = 'apiextensions.plat.io/v1';

/**
 * An OpenAPI v3 schema that uses every JSONSchemaProps field: nested properties, items as a schema
 * and as a list, additionalProperties true, false and a schema, defaults of every JSON type, enum
 * members of every type (null among them), the x-kubernetes markers (preserve-unknown-fields
 * false, kept as a pointer), validation rules, and zero values of the pointer fields (kept).
 */
const cronTabSchema: JsonObject = {
  type: 'object',
  description: 'A CronTab runs a command on a schedule.',
  required: ['spec'],
  'x-kubernetes-validations': [
    { rule: 'self.metadata.name.size() <= 63', message: 'name too long', reason: 'FieldValueInvalid', fieldPath: '.metadata.name' },
    { rule: 'has(self.spec)', messageExpression: '"spec is required for " + self.metadata.name' },
  ],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['cronSpec', 'image'],
      'x-kubernetes-preserve-unknown-fields': false,
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', minLength: 0, maxLength: 256, example: '*/5 * * * *' },
        image: { type: 'string', default: 'busybox:1.36', format: 'uri', title: 'Image' },
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10.5, exclusiveMaximum: true, multipleOf: 0.5, default: 1 },
        ratio: { type: 'number', default: 0.25, minimum: -1e-7, maximum: 1e21, exclusiveMinimum: true },
        suspend: { type: 'boolean', default: false, nullable: true },
        paused: { type: 'boolean', default: true },
        notes: { type: 'string', default: '', enum: ['', 'a', 'ünïcödé ✓'] },
        mode: { enum: ['Allow', 1, 2.5, true, false, null, { a: [1, 'x'] }, ['nested']] },
        selector: { type: 'object', default: { matchLabels: { app: 'web' }, tiers: [1, 2] }, 'x-kubernetes-map-type': 'atomic' },
        args: {
          type: 'array',
          default: [],
          minItems: 0,
          maxItems: 64,
          uniqueItems: true,
          items: { type: 'string', maxLength: 1024 },
          'x-kubernetes-list-type': 'set',
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string', default: 'TCP', enum: ['TCP', 'UDP', 'SCTP'] },
              port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            },
          },
        },
        tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer', default: 0 }], additionalItems: false },
        openTuple: { type: 'array', items: [{ type: 'string' }], additionalItems: true },
        typedTuple: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'boolean' } },
        env: { type: 'object', additionalProperties: { type: 'string', minLength: 1 }, maxProperties: 100, minProperties: 0 },
        labels: { type: 'object', additionalProperties: true },
        closed: { type: 'object', additionalProperties: false, properties: { only: { type: 'string' } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        raw: { 'x-kubernetes-preserve-unknown-fields': true },
        choice: {
          oneOf: [{ required: ['a'] }, { required: ['b'] }],
          allOf: [{ properties: { a: { type: 'string' } } }],
          not: { required: ['c'] },
          properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
        },
        byPattern: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
        dependent: {
          type: 'object',
          dependencies: { card: ['billingAddress', 'name'], billingAddress: { required: ['card'] } },
        },
        described: { $ref: '#/definitions/thing', definitions: { thing: { type: 'string', description: 'a thing' } } },
        documented: { type: 'string', externalDocs: { description: 'the manual', url: 'https://example.com/doc' }, id: 'urn:doc', $schema: 'http://json-schema.org/draft-04/schema#' },
      },
    },
    status: {
      type: 'object',
      properties: {
        lastScheduleTime: { type: 'string', format: 'date-time' },
        active: { type: 'array', items: { type: 'object', 'x-kubernetes-map-type': 'granular', properties: { name: { type: 'string' } } } },
        replicas: { type: 'integer', format: 'int32' },
        labelSelector: { type: 'string' },
      },
    },
  },
};

/**
 * A CustomResourceDefinition with two versions (one deprecated, with subresources and printer
 * columns), webhook conversion with a caBundle, and a status: every field of its messages.
 */
export const customResourceDefinition: JsonObject = {
  kind: 'CustomResourceDefinition',
  apiVersion: APIEXTENSIONS,
  metadata: meta('crontabs.stable.example.com', undefined, APIEXTENSIONS, { generation: 3 }),
  spec: {
    group: 'stable.example.com',
    names: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all', 'batch'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: cronTabSchema },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
        },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', description: 'The cron spec defining the interval a CronJob is run', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', format: 'int32', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', priority: 1, jsonPath: '.metadata.creationTimestamp' },
        ],
      },
      {
        name: 'v1beta1',
        served: false,
        storage: false,
        deprecated: true,
        deprecationWarning: '',
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          service: { namespace: 'crontab-system', name: 'crontab-conversion', path: '/convert', port: 443 },
          caBundle: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCK3dJSkFLSG8KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=',
        },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    },
  },
  status: {
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: created, reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: created, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    acceptedNames: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all', 'batch'] },
    storedVersions: ['v1beta1', 'v1'],
  },
};

/** A list of `kind`, its items without apiVersion and kind, as list items are carried. */
export function listOf(object: JsonObject, count: number, listMeta: JsonObject = { resourceVersion: '5000' }): JsonObject {
  const { kind, apiVersion, ...fields } = object;
  const items = Array.from({ length: count }, (_, i) => {
    const metadata = fields.metadata as JsonObject;
    return { ...fields, metadata: { ...metadata, name: `${String(metadata.name)}-${i}` } };
  });
  return { kind: `${String(kind)}List`, apiVersion, metadata: listMeta, items };
}

/** One object of every kind with a Protobuf form (lists aside), by kind. */
const ADMISSION = 'admissionregistration.plat.io/v1beta1';

/**
 * A ValidatingAdmissionPolicy with every field set: rules with inline operations and scopes, both
 * selectors, params, variables, match conditions, validations (a reason, a messageExpression),
 * audit annotations, and a status with a type-checking warning and a condition.
 */
export const validatingAdmissionPolicy: JsonObject = {
  kind: 'ValidatingAdmissionPolicy',
  apiVersion: ADMISSION,
  metadata: meta('max-replicas', undefined, ADMISSION, { generation: 2 }),
  spec: {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      namespaceSelector: { matchExpressions: [{ key: 'environment', operator: 'In', values: ['prod', 'staging'] }] },
      objectSelector: {},
      resourceRules: [
        { resourceNames: ['web'], operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'deployments/scale'], scope: '*' },
        { operations: ['*'], apiGroups: [''], apiVersions: ['*'], resources: ['serviceaccounts'], scope: 'Namespaced' },
      ],
      excludeResourceRules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }],
      matchPolicy: 'Equivalent',
    },
    validations: [
      { expression: 'object.spec.replicas <= int(params.data.max)', message: 'too many replicas', reason: 'Forbidden' },
      { expression: 'variables.named', messageExpression: '"not named: " + object.metadata.name' },
    ],
    failurePolicy: 'Fail',
    auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
    matchConditions: [{ name: 'not-system', expression: '!request.userInfo.username.startsWith("system:")' }],
    variables: [{ name: 'named', expression: 'has(object.metadata.name)' }],
  },
  status: {
    observedGeneration: 2,
    typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:15: undefined field 'replica'" }] },
    conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2, lastTransitionTime: created, reason: 'Checked', message: '' }],
  },
};

export const validatingAdmissionPolicyBinding: JsonObject = {
  kind: 'ValidatingAdmissionPolicyBinding',
  apiVersion: ADMISSION,
  metadata: meta('max-replicas-prod', undefined, ADMISSION, { generation: 1 }),
  spec: {
    policyName: 'max-replicas',
    paramRef: { namespace: 'limits', selector: { matchLabels: { tier: 'gold' } }, parameterNotFoundAction: 'Deny' },
    matchResources: { namespaceSelector: {}, objectSelector: { matchLabels: { managed: 'true' } }, matchPolicy: 'Exact' },
    validationActions: ['Warn', 'Audit'],
  },
};

export const objectsByKind: Record<string, JsonObject> = {
  Namespace: namespace,
  ServiceAccount: serviceAccount,
  ConfigMap: configMap,
  Secret: secret,
  LimitRange: limitRange,
  Role: role,
  ClusterRole: clusterRole,
  RoleBinding: roleBinding,
  ClusterRoleBinding: clusterRoleBinding,
  IPAddress: ipAddress,
  Lease: lease,
  Node: node,
  Event: event,
  'Event (events)': eventsEvent,
  SubjectAccessReview: subjectAccessReview,
  LocalSubjectAccessReview: localSubjectAccessReview,
  SelfSubjectAccessReview: selfSubjectAccessReview,
  SelfSubjectRulesReview: selfSubjectRulesReview,
  TokenReview: tokenReview,
  TokenRequest: tokenRequest,
  SelfSubjectReview: selfSubjectReview,
  Status: invalidStatus,
  DeleteOptions: deleteOptions,
  CustomResourceDefinition: customResourceDefinition,
  ValidatingAdmissionPolicy: validatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: validatingAdmissionPolicyBinding,
};

/**
 * `count` RoleBindings in a RoleBindingList, each as our API serves it (metadata with labels and a
 * managedFields entry, three subjects): the list the codec benchmark measures.
 */
export function roleBindingList(count: number): JsonObject {
  const items = Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `binding-${i}`,
      namespace: `team-${i % 50}`,
      uid: `6f1c2a3e-${String(i).padStart(4, '0')}-4d5e-8f90-123456789abc`,
      resourceVersion: String(100000 + i),
      creationTimestamp: new Date(Date.UTC(2024, 4, 1) + i * 1000).toISOString().slice(0, 19) + 'Z',
      labels: { app: 'web', tier: `t${i % 3}` },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: `${RBAC}/v1`,
          time: new Date(Date.UTC(2024, 4, 1) + i * 1000).toISOString().slice(0, 19) + 'Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } }, 'f:roleRef': {}, 'f:subjects': {} },
        },
      ],
    },
    subjects: [
      { kind: 'User', apiGroup: RBAC, name: `user-${i}@example.com` },
      { kind: 'Group', apiGroup: RBAC, name: `group-${i % 20}` },
      { kind: 'ServiceAccount', name: 'default', namespace: `team-${i % 50}` },
    ],
    roleRef: { apiGroup: RBAC, kind: 'Role', name: `role-${i % 10}` },
  }));
  return { kind: 'RoleBindingList', apiVersion: `${RBAC}/v1`, metadata: { resourceVersion: String(100000 + count) }, items };
}
