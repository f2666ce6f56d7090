// Scale (autoscaling/v1): never stored, the kind a `scale` subresource is served as (a custom
// resource's, apiextensions/scale-subresource.ts). Its group has no domain in either API domain, as
// upstream's "autoscaling" has none.
import type { KubeObject } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { integerField, objectSchema, stringField } from '../common/schema.js';

export interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

const specSchema = objectSchema('spec defines the behavior of the scale.', {
  replicas: integerField('replicas is the desired number of instances for the scaled object.'),
});

const statusSchema = objectSchema(
  'status is the current status of the scale. Read-only.',
  {
    replicas: integerField('replicas is the actual number of observed instances of the scaled object.'),
    selector: stringField(
      'selector is the label query over pods that should match the replicas count. This is same as the label selector but in ' +
        'the string format to avoid introspection by clients. The string will be in the same format as the query-param syntax.',
    ),
  },
  // Go's ScaleStatus.Replicas has no omitempty: written even when 0 (JSON and Protobuf alike).
  { required: ['replicas'] },
);

/** autoscaling/v1 Scale, with its upstream Protobuf message. */
export const scaleKind = {
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  schema: kindSchema('Scale represents a scaling request for a resource.', {
    spec: specSchema,
    status: statusSchema,
  }),
  protobuf: { message: 'k8s.io.api.autoscaling.v1.Scale' },
} as const;
