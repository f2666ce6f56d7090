// ClusterRole's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

const RBAC = 'rbac.authorization.plat.io';
const rbac = 'rbac.authorization.plat.io/v1';

const rules: Record<string, unknown>[] = [
  { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web-0'] },
  { verbs: ['*'], apiGroups: ['apps', RBAC], resources: ['deployments'] },
];

export default {
  group: 'rbac.authorization.{domain}',
  kind: 'ClusterRole',
  sample: {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata,
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] },
  },
  fixture: {
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
  },
} satisfies KindExamples;
