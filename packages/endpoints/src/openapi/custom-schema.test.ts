// A custom resource's published schema in both dialects, field by field, from a realistic CRD
// schema: what each kind of field becomes in OpenAPI v3 (the CRD's schema, int-or-string unfolded,
// embedded resources given type meta) and in v2 (upstream's ToStructuralOpenAPIV2 and no defaults).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchema } from '@plat/registry';
import { customResourceListSchema, customResourceSchema } from './custom-schema.js';
import { customKindDefinitionName } from './names.js';
import type { Dialect } from './schema.js';

const gvk = { group: 'stable.example.com', kind: 'CronTab', version: 'v1' };
const GVK = { 'x-kubernetes-group-version-kind': [gvk] };
const ref = (dialect: Dialect, name: string): JSONSchema => ({ $ref: `${dialect === 'v2' ? '#/definitions/' : '#/components/schemas/'}${name}` });
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** A CronTab as a CRD author writes it: most of what openAPIV3Schema may hold. */
const cronTab: JSONSchema = {
  type: 'object',
  description: 'A CronTab runs a command on a schedule.',
  properties: {
    // What a CRD says of these is replaced: the server owns type meta and metadata.
    apiVersion: { type: 'string', description: 'the CRD author says so' },
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } },
    spec: {
      type: 'object',
      description: 'What to run, and when.',
      required: ['cronSpec', 'image', 'suspend'],
      'x-kubernetes-validations': [{ rule: 'self.minReplicas <= self.replicas', message: 'replicas below the minimum' }],
      properties: {
        cronSpec: { type: 'string', description: 'The schedule, in cron format.', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string', description: 'The image to run.', example: 'busybox:1.36', minLength: 1 },
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, exclusiveMaximum: true, default: 1 },
        minReplicas: { type: 'integer', default: 0 },
        concurrencyPolicy: { type: 'string', enum: ['Allow', 'Forbid', 'Replace'], default: 'Allow' },
        port: { 'x-kubernetes-int-or-string': true, description: 'A port number or name.' },
        maxSurge: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        maxUnavailable: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^\\d+%$' }] },
        suspend: { type: 'boolean', nullable: true, default: false },
        window: { type: 'object', nullable: true, required: ['start'], properties: { start: { type: 'string', format: 'date-time' } } },
        env: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
        annotations: { type: 'object', required: ['owner'], additionalProperties: { type: 'string', nullable: true } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
        extraArgs: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        pod: { type: 'object', 'x-kubernetes-embedded-resource': true, required: ['spec'], properties: { spec: { type: 'object', default: {} } } },
        selector: {
          type: 'object',
          oneOf: [{ required: ['matchLabels'] }, { required: ['matchNames'] }],
          not: { required: ['matchAll'] },
          properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } }, matchNames: { type: 'array', items: { type: 'string' } } },
        },
        tags: { type: 'array', items: { type: 'string', allOf: [{ minLength: 1 }, { maxLength: 63 }] }, maxItems: 8, uniqueItems: false },
        note: { type: 'string', nullable: false, externalDocs: { url: 'https://example.com' } },
      },
    },
    status: { type: 'object', properties: { lastRun: { type: 'string', format: 'date-time' } } },
  },
};

/** The published schema at a property path ("spec.port"). */
function at(schema: JSONSchema, path: string): JSONSchema | undefined {
  let node: JSONSchema | undefined = schema;
  for (const step of path.split('.')) node = (node?.properties as Record<string, JSONSchema> | undefined)?.[step];
  return node;
}

const published = (dialect: Dialect): JSONSchema => customResourceSchema(cronTab, dialect, { objectMeta: ref(dialect, OBJECT_META) }, gvk);
const v3 = published('v3');
const v2 = published('v2');

const typeMetaV3 = (dialect: Dialect): Record<string, JSONSchema> => ({
  apiVersion: {
    description:
      'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  },
  kind: {
    description: 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  },
  metadata: dialect === 'v2' ? { description: METADATA_DESCRIPTION, ...ref('v2', OBJECT_META) } : { description: METADATA_DESCRIPTION, allOf: [ref('v3', OBJECT_META)] },
});

/** Each field of the CronTab, as each dialect publishes it (undefined: not published). */
const FIELDS: { field: string; why: string; v3: JSONSchema | undefined; v2: JSONSchema | undefined }[] = [
  {
    field: 'spec.cronSpec',
    why: 'a string with a pattern is the same in both',
    v3: { type: 'string', description: 'The schedule, in cron format.', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
    v2: { type: 'string', description: 'The schedule, in cron format.', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
  },
  {
    field: 'spec.image',
    why: 'example is not part of a structural schema',
    v3: { type: 'string', description: 'The image to run.', minLength: 1 },
    v2: { type: 'string', description: 'The image to run.', minLength: 1 },
  },
  {
    field: 'spec.replicas',
    why: 'bounds stay in the OpenAPI form; v2 publishes no default',
    v3: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, exclusiveMaximum: true, default: 1 },
    v2: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, exclusiveMaximum: true },
  },
  { field: 'spec.minReplicas', why: 'a zero default is a default', v3: { type: 'integer', default: 0 }, v2: { type: 'integer' } },
  {
    field: 'spec.concurrencyPolicy',
    why: 'enum in both, the default only in v3',
    v3: { type: 'string', enum: ['Allow', 'Forbid', 'Replace'], default: 'Allow' },
    v2: { type: 'string', enum: ['Allow', 'Forbid', 'Replace'] },
  },
  {
    field: 'spec.port',
    why: 'int-or-string is unfolded into anyOf in v3; v2 keeps only the marker',
    v3: { 'x-kubernetes-int-or-string': true, description: 'A port number or name.', anyOf: [{ type: 'integer' }, { type: 'string' }] },
    v2: { 'x-kubernetes-int-or-string': true, description: 'A port number or name.' },
  },
  {
    field: 'spec.maxSurge',
    why: 'int-or-string already in the anyOf form is left as it is',
    v3: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    v2: { 'x-kubernetes-int-or-string': true },
  },
  {
    field: 'spec.maxUnavailable',
    why: 'an anyOf of its own: the int-or-string anyOf goes in front of allOf',
    v3: {
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^\\d+%$' }],
      allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }],
    },
    v2: { 'x-kubernetes-int-or-string': true },
  },
  {
    field: 'spec.suspend',
    why: 'nullable: v2 drops the type (kubectl reads an untyped value as anything)',
    v3: { type: 'boolean', nullable: true, default: false },
    v2: {},
  },
  {
    field: 'spec.window',
    why: 'a nullable object loses its type and properties in v2, keeping required',
    v3: { type: 'object', nullable: true, required: ['start'], properties: { start: { type: 'string', format: 'date-time' } } },
    v2: { required: ['start'] },
  },
  {
    field: 'spec.env',
    why: 'a list map keeps its markers and items in both',
    v3: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
    },
    v2: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
    },
  },
  {
    field: 'spec.labels',
    why: 'a map is additionalProperties in both',
    v3: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
    v2: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
  },
  {
    field: 'spec.annotations',
    why: 'a map of nullable values requires nothing in v2',
    v3: { type: 'object', required: ['owner'], additionalProperties: { type: 'string', nullable: true } },
    v2: { type: 'object', additionalProperties: {} },
  },
  {
    field: 'spec.config',
    why: 'preserve-unknown-fields: v2 drops the properties and the object type',
    v3: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
    v2: { 'x-kubernetes-preserve-unknown-fields': true },
  },
  {
    field: 'spec.extraArgs',
    why: 'an array that keeps unknown fields loses its items in v2, and then its type',
    v3: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
    v2: { 'x-kubernetes-preserve-unknown-fields': true },
  },
  {
    field: 'spec.template',
    why: 'an embedded resource gets type meta and ObjectMeta in v3; in v2 it keeps unknown fields and so gets nothing',
    v3: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
      properties: typeMetaV3('v3'),
      required: ['kind', 'apiVersion'],
    },
    v2: { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  },
  {
    field: 'spec.pod',
    why: 'an embedded resource with properties gets type meta in both; its required grows',
    v3: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      required: ['spec', 'kind', 'apiVersion'],
      properties: { ...typeMetaV3('v3'), spec: { type: 'object', default: {} } },
    },
    v2: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      required: ['spec', 'kind', 'apiVersion'],
      properties: { ...typeMetaV3('v2'), spec: { type: 'object' } },
    },
  },
  {
    field: 'spec.selector',
    why: 'oneOf and not are v3 only',
    v3: {
      type: 'object',
      oneOf: [{ required: ['matchLabels'] }, { required: ['matchNames'] }],
      not: { required: ['matchAll'] },
      properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } }, matchNames: { type: 'array', items: { type: 'string' } } },
    },
    v2: {
      type: 'object',
      properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } }, matchNames: { type: 'array', items: { type: 'string' } } },
    },
  },
  {
    field: 'spec.tags',
    why: 'allOf below items is v3 only; uniqueItems false is Go zero, not written',
    v3: { type: 'array', items: { type: 'string', allOf: [{ minLength: 1 }, { maxLength: 63 }] }, maxItems: 8 },
    v2: { type: 'array', items: { type: 'string' }, maxItems: 8 },
  },
  { field: 'spec.note', why: 'nullable false and externalDocs are not written', v3: { type: 'string' }, v2: { type: 'string' } },
  {
    field: 'status.lastRun',
    why: 'a format is kept',
    v3: { type: 'string', format: 'date-time' },
    v2: { type: 'string', format: 'date-time' },
  },
];

describe('custom resource schema, field by field', () => {
  for (const { field, why, ...expected } of FIELDS) {
    for (const dialect of ['v3', 'v2'] as const) {
      it(`${dialect} ${field}: ${why}`, () => {
        assert.deepEqual(at(dialect === 'v3' ? v3 : v2, field), expected[dialect]);
      });
    }
  }
});

describe('custom resource schema, at the root', () => {
  const rootCases: { name: string; dialect: Dialect; schema: JSONSchema | undefined; expected: JSONSchema }[] = [
    { name: 'no schema: an object, nothing more', dialect: 'v3', schema: undefined, expected: { type: 'object', ...GVK } },
    { name: 'no schema: an object, nothing more', dialect: 'v2', schema: undefined, expected: { type: 'object', ...GVK } },
    {
      name: 'a root that keeps unknown fields is an object and nothing more in v2',
      dialect: 'v2',
      schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object' } } },
      expected: { type: 'object', ...GVK },
    },
    {
      name: 'a root that keeps unknown fields keeps them in v3, with type meta and ObjectMeta',
      dialect: 'v3',
      schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      expected: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {
          apiVersion: {
            description:
              'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
            type: 'string',
          },
          kind: {
            description:
              'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
            type: 'string',
          },
          metadata: { description: METADATA_DESCRIPTION, allOf: [ref('v3', OBJECT_META)] },
        },
        ...GVK,
      },
    },
    {
      name: 'a schema that is not structural (tuple items) is not published, as upstream',
      dialect: 'v3',
      schema: { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } } },
      expected: { type: 'object', ...GVK },
    },
    {
      name: 'a type outside the six is not structural either',
      dialect: 'v2',
      schema: { type: 'object', properties: { nothing: { type: 'null' } } },
      expected: { type: 'object', ...GVK },
    },
  ];
  for (const { name, dialect, schema, expected } of rootCases) {
    it(`${dialect}: ${name}`, () => {
      assert.deepEqual(customResourceSchema(schema, dialect, { objectMeta: ref(dialect, OBJECT_META) }, gvk), expected);
    });
  }

  for (const [dialect, schema] of [['v3', v3], ['v2', v2]] as const) {
    it(`${dialect}: apiVersion, kind and metadata are the server's, whatever the CRD said; the rest is sorted and carries the GVK`, () => {
      const properties = schema.properties as Record<string, JSONSchema>;
      assert.deepEqual(Object.keys(properties), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
      assert.match(properties.apiVersion!.description as string, /^APIVersion defines the versioned schema/);
      assert.deepEqual(properties.metadata, typeMetaV3(dialect).metadata);
      assert.equal(schema.description, 'A CronTab runs a command on a schedule.');
      assert.deepEqual(schema['x-kubernetes-group-version-kind'], [gvk]);
    });
  }

  it('v2: a nullable field is no longer required; v3 keeps it', () => {
    assert.deepEqual(at(v2, 'spec')!.required, ['cronSpec', 'image']);
    assert.deepEqual(at(v3, 'spec')!.required, ['cronSpec', 'image', 'suspend']);
  });

  it('x-kubernetes-validations are published in both', () => {
    for (const schema of [v2, v3]) {
      assert.deepEqual(at(schema, 'spec')!['x-kubernetes-validations'], [{ rule: 'self.minReplicas <= self.replicas', message: 'replicas below the minimum' }]);
    }
  });

  it('the CRD schema it was given is left as it was', () => {
    assert.deepEqual(at(cronTab, 'spec.port'), { 'x-kubernetes-int-or-string': true, description: 'A port number or name.' });
    assert.deepEqual(at(cronTab, 'metadata'), { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } });
  });
});

describe('custom resource list schema', () => {
  for (const dialect of ['v3', 'v2'] as const) {
    it(`${dialect}: items refer to the kind, metadata is ListMeta`, () => {
      const listMeta = ref(dialect, 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta');
      const object = ref(dialect, 'com.example.stable.v1.CronTab');
      const list = customResourceListSchema(dialect, { listMeta, object }, { ...gvk, kind: 'CronTabList' }, 'CronTab', 'crontabs');
      assert.equal(list.description, 'CronTabList is a list of CronTab');
      assert.deepEqual(list.required, ['items']);
      const properties = list.properties as Record<string, JSONSchema>;
      assert.deepEqual(Object.keys(properties), ['apiVersion', 'items', 'kind', 'metadata']);
      assert.deepEqual(properties.items, {
        description: 'List of crontabs. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md',
        type: 'array',
        items: object,
      });
      const description = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
      assert.deepEqual(properties.metadata, dialect === 'v2' ? { description, ...listMeta } : { description, allOf: [listMeta] });
      assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ ...gvk, kind: 'CronTabList' }]);
    });
  }
});

describe('custom resource definition names', () => {
  const cases: [group: string, version: string, kind: string, name: string][] = [
    ['stable.example.com', 'v1', 'CronTab', 'com.example.stable.v1.CronTab'],
    ['stable.example.com', 'v1', 'CronTabList', 'com.example.stable.v1.CronTabList'],
    ['widgets.k8s.io', 'v1beta2', 'Widget', 'io.k8s.widgets.v1beta2.Widget'],
    ['example', 'v1', 'Thing', 'example.v1.Thing'],
  ];
  for (const [group, version, kind, name] of cases) {
    it(`${group}/${version} ${kind} is ${name}`, () => assert.equal(customKindDefinitionName(group, version, kind), name));
  }
});
