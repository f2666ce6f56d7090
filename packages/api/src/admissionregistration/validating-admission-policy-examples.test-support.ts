// ValidatingAdmissionPolicy's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, fixtureMeta as meta, fixtureCreated as created } from '../testing/examples.js';

const ADMISSION = 'admissionregistration.plat.io/v1beta1';

export default {
  group: 'admissionregistration.{domain}',
  kind: 'ValidatingAdmissionPolicy',
  sample: {
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
  /**
   * A ValidatingAdmissionPolicy with every field set: rules with inline operations and scopes, both
   * selectors, params, variables, match conditions, validations (a reason, a messageExpression),
   * audit annotations, and a status with a type-checking warning and a condition.
   */
  fixture: {
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
  },
} satisfies KindExamples;
