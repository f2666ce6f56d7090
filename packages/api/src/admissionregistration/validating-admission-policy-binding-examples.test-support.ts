// ValidatingAdmissionPolicyBinding's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, fixtureMeta as meta } from '../testing/examples.js';

const ADMISSION = 'admissionregistration.plat.io/v1beta1';

export default {
  group: 'admissionregistration.{domain}',
  kind: 'ValidatingAdmissionPolicyBinding',
  sample: {
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
  fixture: {
    kind: 'ValidatingAdmissionPolicyBinding',
    apiVersion: ADMISSION,
    metadata: meta('max-replicas-prod', undefined, ADMISSION, { generation: 1 }),
    spec: {
      policyName: 'max-replicas',
      paramRef: { namespace: 'limits', selector: { matchLabels: { tier: 'gold' } }, parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: {}, objectSelector: { matchLabels: { managed: 'true' } }, matchPolicy: 'Exact' },
      validationActions: ['Warn', 'Audit'],
    },
  },
} satisfies KindExamples;
