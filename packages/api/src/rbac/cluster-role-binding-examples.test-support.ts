// ClusterRoleBinding's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

const RBAC = 'rbac.authorization.plat.io';
const rbac = 'rbac.authorization.plat.io/v1';

const subjects: Record<string, unknown>[] = [
  { kind: 'User', apiGroup: RBAC, name: 'alice@example.com' },
  { kind: 'Group', apiGroup: RBAC, name: 'system:authenticated' },
  { kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' },
];

export default {
  group: 'rbac.authorization.{domain}',
  kind: 'ClusterRoleBinding',
  sample: {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'admin' },
    subjects: [{ kind: 'Group', name: 'admins', apiGroup: 'rbac.authorization.plat.io' }],
  },
  fixture: {
    kind: 'ClusterRoleBinding',
    apiVersion: `${RBAC}/v1`,
    metadata: meta('monitoring', undefined, `${RBAC}/v1`),
    subjects,
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'monitoring' },
  },
} satisfies KindExamples;
