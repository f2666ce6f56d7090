// The JSON schema of CustomResourceDefinition (apiextensions.{domain}/v1), as upstream 1.28's
// OpenAPI describes it: what is checked while decoding a definition and what OpenAPI publishes. A
// version's openAPIV3Schema is itself a schema (JSONSchemaProps, recursive): it is decoded as an
// open object here and checked by the definition's validation (crd-validation), as upstream's
// validation checks what its decoder let through.
import type { JSONSchema } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, atomicStringList, booleanField, integerField, objectSchema, stringField, timeField } from '../common/schema.js';

const namesSchema = objectSchema(
  'The names of a custom resource: its plural, singular, kind, list kind, short names and categories.',
  {
    plural: stringField('The plural name of the resource to serve, in lower case: the URL segment (/apis/<group>/<version>/<plural>).'),
    singular: stringField('The singular name of the resource, in lower case. Defaults to the lower-cased kind.'),
    shortNames: atomicStringList('Short names for the resource, as kubectl accepts them (`kubectl get <shortname>`). In lower case.'),
    kind: stringField('The serialized kind of the resource, normally CamelCase and singular; custom objects give it in their `kind`.'),
    listKind: stringField('The serialized kind of the list of this resource. Defaults to "<kind>List".'),
    categories: atomicStringList('Grouped resources this custom resource belongs to (such as `all`), as `kubectl get <category>` uses them.'),
  },
  { required: ['plural', 'kind'] },
);

const columnSchema = objectSchema(
  'A column of the Table representation of the custom resource (kubectl get).',
  {
    name: stringField('A human readable name for the column.'),
    type: stringField('An OpenAPI type definition for the column: integer, number, string, boolean or date.'),
    format: stringField('An optional OpenAPI format for the column: int32, int64, float, double, byte, date, date-time, password and more.'),
    description: stringField('A human readable description of the column.'),
    priority: integerField('The importance of the column against the others: 0 shows it by default, above 0 only in wide output.'),
    jsonPath: stringField('A simple JSON path (a JSONPath without array notation) evaluated against each custom resource to produce the column\'s value.'),
  },
  { required: ['name', 'type', 'jsonPath'] },
);

const subresourcesSchema = objectSchema('The subresources of the custom resource at this version.', {
  status: {
    type: 'object',
    description: 'The status subresource: PUT and PATCH to /status change only the status, the main resource ignores status changes.',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  scale: objectSchema(
    'The scale subresource: GET, PUT and PATCH of an autoscaling/v1 Scale at /scale.',
    {
      specReplicasPath: stringField('The JSON path inside the custom resource that corresponds to Scale spec.replicas; only under .spec.'),
      statusReplicasPath: stringField('The JSON path inside the custom resource that corresponds to Scale status.replicas; only under .status.'),
      labelSelectorPath: stringField('The JSON path inside the custom resource that corresponds to Scale status.selector; under .status or .spec.'),
    },
    { required: ['specReplicasPath', 'statusReplicasPath'] },
  ),
});

const versionSchema = objectSchema(
  'A version of the custom resource.',
  {
    name: stringField('The version name, such as "v1", "v2beta1": served at /apis/<group>/<version>/.'),
    served: booleanField('Whether this version is served by REST APIs.'),
    storage: booleanField('Whether this version is used to persist custom resources; exactly one version has it.'),
    deprecated: booleanField('Whether this version is deprecated: requests to it get a warning header.'),
    deprecationWarning: stringField('Overrides the default warning returned to API clients; only for deprecated versions.'),
    schema: objectSchema('The schema used for validation, pruning and defaulting of this version of the custom resource.', {
      openAPIV3Schema: {
        type: 'object',
        description: 'The OpenAPI v3 schema to use for validation and pruning.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    subresources: subresourcesSchema,
    additionalPrinterColumns: atomicList('Columns of the Table representation; absent: a single column with the object\'s age.', columnSchema),
  },
  { required: ['name', 'served', 'storage'] },
);

const serviceReferenceSchema = objectSchema(
  'A reference to a service.',
  {
    namespace: stringField('The namespace of the service.'),
    name: stringField('The name of the service.'),
    path: stringField('An optional URL path at which the webhook will be contacted.'),
    port: integerField('An optional service port at which the webhook will be contacted; defaults to 443.'),
  },
  { required: ['namespace', 'name'] },
);

const conversionSchema = objectSchema(
  'How custom resources are converted between versions.',
  {
    strategy: stringField('How custom resources are converted between versions: "None" (only apiVersion changes) or "Webhook".'),
    webhook: objectSchema(
      'How to call the conversion webhook; required when strategy is "Webhook".',
      {
        clientConfig: objectSchema('How to call the webhook.', {
          url: stringField('The location of the webhook, in standard URL form (scheme://host:port/path).'),
          service: serviceReferenceSchema,
          caBundle: { type: 'string', format: 'byte', description: 'A PEM encoded CA bundle used to validate the webhook\'s server certificate.' },
        }),
        conversionReviewVersions: atomicStringList('The ConversionReview versions the webhook expects, in order of preference.'),
      },
      { required: ['conversionReviewVersions'] },
    ),
  },
  { required: ['strategy'] },
);

const conditionSchema = objectSchema(
  'The state of the definition at a certain point.',
  {
    type: stringField('The type of the condition: Established, NamesAccepted, Terminating, ...'),
    status: stringField('The status of the condition: True, False or Unknown.'),
    lastTransitionTime: timeField('When the condition last changed from one status to another.'),
    reason: stringField('A unique, one-word, CamelCase reason for the condition\'s last transition.'),
    message: stringField('A human-readable message with details about the transition.'),
  },
  { required: ['type', 'status'] },
);

export const customResourceDefinitionSchema: JSONSchema = kindSchema(
  'A resource that should be exposed on the API server: its name must be in the format <.spec.name>.<.spec.group>.',
  {
    spec: objectSchema(
      'The resource to be served.',
      {
        group: stringField('The API group of the custom resource, served at /apis/<group>/...; it must match the name (<plural>.<group>).'),
        names: namesSchema,
        scope: stringField('Whether the custom resource is cluster-scoped ("Cluster") or namespaced ("Namespaced").'),
        versions: {
          ...atomicList('The API versions of the custom resource, in order of preference.', versionSchema),
          // A version is merged by its name, as upstream's +listType=map on versions is not set: atomic there too.
        },
        conversion: conversionSchema,
        preserveUnknownFields: booleanField('Deprecated: must be false; use x-kubernetes-preserve-unknown-fields in the schema instead.'),
      },
      { required: ['group', 'names', 'scope', 'versions'] },
    ),
    status: objectSchema('The state of the definition: its conditions, the names it was given, the versions ever stored.', {
      conditions: {
        ...atomicList('The observations of the definition\'s state.', conditionSchema),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      },
      acceptedNames: namesSchema,
      storedVersions: atomicStringList('Every version of this custom resource ever persisted; versions leave the list only when a storage migration removes them.'),
    }),
  },
  ['spec'],
);
