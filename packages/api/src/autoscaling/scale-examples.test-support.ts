// Scale's examples (testing/examples.ts): a sample for its schema (its Protobuf form is a custom resource's scale subresource's, tested there).
import { type KindExamples, sampleMetadata as metadata } from '../testing/examples.js';

export default {
  group: 'autoscaling',
  kind: 'Scale',
  sample: {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata,
    spec: { replicas: 3 },
    status: { replicas: 2, selector: 'app=web' },
  },
} satisfies KindExamples;
