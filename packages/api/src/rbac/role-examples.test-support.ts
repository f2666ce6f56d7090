// Role's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

const RBAC = 'rbac.authorization.plat.io';
const rbac = 'rbac.authorization.plat.io/v1';

const rules: Record<string, unknown>[] = [
  { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web-0'] },
  { verbs: ['*'], apiGroups: ['apps', RBAC], resources: ['deployments'] },
];

export default {
  group: 'rbac.authorization.{domain}',
  kind: 'Role',
  sample: { apiVersion: rbac, kind: 'Role', metadata, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }] },
  fixture: { kind: 'Role', apiVersion: `${RBAC}/v1`, metadata: meta('pod-reader', 'team-a', `${RBAC}/v1`), rules },
} satisfies KindExamples;
