// FlowSchema's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, fixtureMeta as meta, fixtureCreated as created } from '../testing/examples.js';

const FLOWCONTROL = 'flowcontrol.apiserver.plat.io/v1beta3';

export default {
  group: 'flowcontrol.apiserver.{domain}',
  kind: 'FlowSchema',
  sample: {
    apiVersion: FLOWCONTROL,
    kind: 'FlowSchema',
    metadata: { name: 'service-accounts', generation: 1 },
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 9000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [
            { kind: 'Group', group: { name: 'system:serviceaccounts' } },
            { kind: 'User', user: { name: 'noxu' } },
            { kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } },
          ],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*'] }],
        },
      ],
    },
    status: { conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Found', message: 'm' }] },
  },
  /**
   * A FlowSchema with every field set: a distinguisher, every kind of subject, resource rules with
   * and without namespaces, non-resource rules, and the Dangling condition.
   */
  fixture: {
    kind: 'FlowSchema',
    apiVersion: FLOWCONTROL,
    metadata: meta('kube-system-service-accounts', undefined, FLOWCONTROL, { generation: 2 }),
    spec: {
      priorityLevelConfiguration: { name: 'workload-high' },
      matchingPrecedence: 900,
      distinguisherMethod: { type: 'ByNamespace' },
      rules: [
        {
          subjects: [
            { kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } },
            { kind: 'User', user: { name: 'system:kube-scheduler' } },
            { kind: 'Group', group: { name: 'system:nodes' } },
          ],
          resourceRules: [
            { verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['kube-system', 'kube-node-lease'] },
            { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true },
          ],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/healthz', '/livez/*'] }],
        },
      ],
    },
    status: {
      conditions: [
        {
          type: 'Dangling',
          status: 'False',
          lastTransitionTime: created,
          reason: 'Found',
          message: 'This FlowSchema references the PriorityLevelConfiguration object named "workload-high" and it exists',
        },
      ],
    },
  },
} satisfies KindExamples;
