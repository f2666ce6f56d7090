// SubjectAccessReview's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureCreated as created } from '../testing/examples.js';

const resourceAttributes: Record<string, unknown> = {
  namespace: 'team-a',
  verb: 'list',
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  subresource: 'scale',
  name: 'web',
};

export default {
  group: 'authorization.{domain}',
  kind: 'SubjectAccessReview',
  sample: {
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
  fixture: {
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
  },
} satisfies KindExamples;
