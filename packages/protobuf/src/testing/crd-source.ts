// The CustomResourceDefinition's Protobuf form as its kind definition gives it, for tests and
// benchmarks until that definition registers among the built-in kinds (and a check on it after: a
// definition that disagrees with these facts is refused when both register). The schema is the
// least that carries the rules: upstream's OpenAPI `required` (the fields Go writes without
// omitempty), and the objects on the way to each pointer.
import type { ProtobufKindSource } from '../kinds.js';

type Schema = Record<string, unknown>;
const object = (properties: Record<string, Schema>, required: readonly string[] = []): Schema => ({
  type: 'object',
  ...(required.length ? { required } : {}),
  properties,
});
const list = (items: Schema): Schema => ({ type: 'array', items });

const names = object({}, ['plural', 'kind']);

export const customResourceDefinitionSource: ProtobufKindSource = {
  group: 'apiextensions.{domain}',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  schema: object(
    {
      spec: object(
        {
          names,
          versions: list(
            object(
              {
                // JSONSchemaProps' rules are the codec's own (emit.ts): the schema stays open.
                schema: object({ openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
                subresources: object({ scale: object({}, ['specReplicasPath', 'statusReplicasPath']) }),
                additionalPrinterColumns: list(object({}, ['name', 'type', 'jsonPath'])),
              },
              ['name', 'served', 'storage'],
            ),
          ),
          conversion: object(
            { webhook: object({ clientConfig: object({ service: object({}, ['namespace', 'name']) }) }, ['conversionReviewVersions']) },
            ['strategy'],
          ),
        },
        ['group', 'names', 'scope', 'versions'],
      ),
      status: object({ conditions: list(object({}, ['type', 'status'])), acceptedNames: names }),
    },
    ['spec'],
  ),
  protobuf: {
    message: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    // The scalar pointers of upstream's types.go; its pointer messages (conversion, webhook,
    // clientConfig, service, schema, subresources, scale) are kept whenever on the wire anyway.
    pointers: [
      'spec.versions.deprecationWarning',
      'spec.versions.subresources.scale.labelSelectorPath',
      'spec.conversion.webhook.clientConfig.url',
      'spec.conversion.webhook.clientConfig.service.path',
      'spec.conversion.webhook.clientConfig.service.port',
    ],
  },
};
