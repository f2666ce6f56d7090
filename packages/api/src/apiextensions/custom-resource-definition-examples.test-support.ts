// CustomResourceDefinition's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta, fixtureCreated as created } from '../testing/examples.js';

const APIEXTENSIONS = 'apiextensions.plat.io/v1';

/**
 * An OpenAPI v3 schema that uses every JSONSchemaProps field: nested properties, items as a schema
 * and as a list, additionalProperties true, false and a schema, defaults of every JSON type, enum
 * members of every type (null among them), the x-kubernetes markers (preserve-unknown-fields
 * false, kept as a pointer), validation rules, and zero values of the pointer fields (kept).
 */
const cronTabSchema: Record<string, unknown> = {
  type: 'object',
  description: 'A CronTab runs a command on a schedule.',
  required: ['spec'],
  'x-kubernetes-validations': [
    { rule: 'self.metadata.name.size() <= 63', message: 'name too long', reason: 'FieldValueInvalid', fieldPath: '.metadata.name' },
    { rule: 'has(self.spec)', messageExpression: '"spec is required for " + self.metadata.name' },
  ],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['cronSpec', 'image'],
      'x-kubernetes-preserve-unknown-fields': false,
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', minLength: 0, maxLength: 256, example: '*/5 * * * *' },
        image: { type: 'string', default: 'busybox:1.36', format: 'uri', title: 'Image' },
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10.5, exclusiveMaximum: true, multipleOf: 0.5, default: 1 },
        ratio: { type: 'number', default: 0.25, minimum: -1e-7, maximum: 1e21, exclusiveMinimum: true },
        suspend: { type: 'boolean', default: false, nullable: true },
        paused: { type: 'boolean', default: true },
        notes: { type: 'string', default: '', enum: ['', 'a', 'ünïcödé ✓'] },
        mode: { enum: ['Allow', 1, 2.5, true, false, null, { a: [1, 'x'] }, ['nested']] },
        selector: { type: 'object', default: { matchLabels: { app: 'web' }, tiers: [1, 2] }, 'x-kubernetes-map-type': 'atomic' },
        args: {
          type: 'array',
          default: [],
          minItems: 0,
          maxItems: 64,
          uniqueItems: true,
          items: { type: 'string', maxLength: 1024 },
          'x-kubernetes-list-type': 'set',
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string', default: 'TCP', enum: ['TCP', 'UDP', 'SCTP'] },
              port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            },
          },
        },
        tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer', default: 0 }], additionalItems: false },
        openTuple: { type: 'array', items: [{ type: 'string' }], additionalItems: true },
        typedTuple: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'boolean' } },
        env: { type: 'object', additionalProperties: { type: 'string', minLength: 1 }, maxProperties: 100, minProperties: 0 },
        labels: { type: 'object', additionalProperties: true },
        closed: { type: 'object', additionalProperties: false, properties: { only: { type: 'string' } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        raw: { 'x-kubernetes-preserve-unknown-fields': true },
        choice: {
          oneOf: [{ required: ['a'] }, { required: ['b'] }],
          allOf: [{ properties: { a: { type: 'string' } } }],
          not: { required: ['c'] },
          properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
        },
        byPattern: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
        dependent: {
          type: 'object',
          dependencies: { card: ['billingAddress', 'name'], billingAddress: { required: ['card'] } },
        },
        described: { $ref: '#/definitions/thing', definitions: { thing: { type: 'string', description: 'a thing' } } },
        documented: { type: 'string', externalDocs: { description: 'the manual', url: 'https://example.com/doc' }, id: 'urn:doc', $schema: 'http://json-schema.org/draft-04/schema#' },
      },
    },
    status: {
      type: 'object',
      properties: {
        lastScheduleTime: { type: 'string', format: 'date-time' },
        active: { type: 'array', items: { type: 'object', 'x-kubernetes-map-type': 'granular', properties: { name: { type: 'string' } } } },
        replicas: { type: 'integer', format: 'int32' },
        labelSelector: { type: 'string' },
      },
    },
  },
};

export default {
  group: 'apiextensions.{domain}',
  kind: 'CustomResourceDefinition',
  sample: {
    apiVersion: 'apiextensions.plat.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...metadata, namespace: undefined, name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      names: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          deprecated: true,
          deprecationWarning: 'use v2',
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', format: 'int32', description: 'd', priority: 0, jsonPath: '.spec.replicas' }],
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: 'https://example.com/convert', service: { namespace: 'n', name: 's', path: '/p', port: 443 }, caBundle: 'Y2E=' },
          conversionReviewVersions: ['v1'],
        },
      },
      preserveUnknownFields: false,
    },
    status: {
      conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'InitialNamesAccepted', message: 'ok' }],
      acceptedNames: { plural: 'crontabs', kind: 'CronTab' },
      storedVersions: ['v1'],
    },
  },
  /**
   * A CustomResourceDefinition with two versions (one deprecated, with subresources and printer
   * columns), webhook conversion with a caBundle, and a status: every field of its messages.
   */
  fixture: {
    kind: 'CustomResourceDefinition',
    apiVersion: APIEXTENSIONS,
    metadata: meta('crontabs.stable.example.com', undefined, APIEXTENSIONS, { generation: 3 }),
    spec: {
      group: 'stable.example.com',
      names: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all', 'batch'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: cronTabSchema },
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
          },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', description: 'The cron spec defining the interval a CronJob is run', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', format: 'int32', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', priority: 1, jsonPath: '.metadata.creationTimestamp' },
          ],
        },
        {
          name: 'v1beta1',
          served: false,
          storage: false,
          deprecated: true,
          deprecationWarning: '',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: {
            service: { namespace: 'crontab-system', name: 'crontab-conversion', path: '/convert', port: 443 },
            caBundle: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCK3dJSkFLSG8KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=',
          },
          conversionReviewVersions: ['v1', 'v1beta1'],
        },
      },
    },
    status: {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: created, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: created, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all', 'batch'] },
      storedVersions: ['v1beta1', 'v1'],
    },
  },
} satisfies KindExamples;
