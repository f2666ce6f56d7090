// autoscaling/v1 Scale, what a custom resource's scale subresource reads and writes, as the OpenAPI
// documents publish it (io.k8s.api.autoscaling.v1.Scale). Only its schema lives here: the kind is
// not served by this server, and a served Scale kind's own schema should take this one's place.
import type { JSONSchema } from '@plat/registry';

const int32 = (description: string): JSONSchema => ({ type: 'integer', format: 'int32', description });

export const scaleSpecSchema: JSONSchema = {
  type: 'object',
  description: 'The desired state of a scaled object.',
  properties: { replicas: int32('The desired number of instances of the scaled object.') },
};

export const scaleStatusSchema: JSONSchema = {
  type: 'object',
  description: 'The observed state of a scaled object.',
  properties: {
    replicas: int32('The observed number of instances of the scaled object.'),
    selector: {
      type: 'string',
      description: 'The label selector of the instances the replicas count, in its string form (app=web,tier=front).',
    },
  },
  required: ['replicas'],
};

/** The Scale of an object whose metadata is `objectMeta` (the ObjectMeta schema the document publishes). */
export const scaleSchema = (objectMeta: JSONSchema): JSONSchema => ({
  type: 'object',
  description: 'A scaling request for a resource: how many instances it should have, and has.',
  properties: {
    apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'The REST resource this object represents, in CamelCase.' },
    metadata: objectMeta,
    spec: scaleSpecSchema,
    status: scaleStatusSchema,
  },
});
