import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareCustomResourceDefinitionForCreate, prepareCustomResourceDefinitionForUpdate, setCustomResourceDefinitionDefaults } from './crd-defaults.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus, validateCustomResourceDefinitionUpdate } from './crd-validation.js';
import type { CustomResourceDefinition } from './types.js';

const valid = (): CustomResourceDefinition => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string' } } } } }],
    conversion: { strategy: 'None' },
  },
  status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
});

// The kind's schema refuses these first; validation still answers with errors, never a throw.
const wronglyTyped = (crd: CustomResourceDefinition): void => {
  const spec = crd.spec as unknown as Record<string, unknown>;
  spec.names = { plural: 'widgets', kind: 7, shortNames: 'w' };
  const version = crd.spec.versions[0] as unknown as Record<string, unknown>;
  version.served = 'yes';
  const schema = crd.spec.versions[0]!.schema!.openAPIV3Schema as unknown as Record<string, unknown>;
  schema.required = 'a';
  schema.properties = { a: 'string', b: { items: true, pattern: ['x'], additionalProperties: 'no', 'x-kubernetes-validations': [{ rule: 1 }] } };
};

test('crd shape: wrongly typed fields are errors at their paths, and nothing else is checked', () => {
  const crd = valid();
  wronglyTyped(crd);
  const want = [
    'spec.names.kind: Invalid value: 7: must be of type string',
    'spec.names.shortNames: Invalid value: "w": must be of type array',
    'spec.versions[0].served: Invalid value: "yes": must be of type boolean',
    'spec.versions[0].schema.openAPIV3Schema.properties[a]: Invalid value: "string": must be of type object',
    'spec.versions[0].schema.openAPIV3Schema.properties[b].items: Invalid value: true: must be of type object or array',
    'spec.versions[0].schema.openAPIV3Schema.properties[b].pattern: Invalid value: ["x"]: must be of type string',
    'spec.versions[0].schema.openAPIV3Schema.properties[b].additionalProperties: Invalid value: "no": must be of type object or boolean',
    'spec.versions[0].schema.openAPIV3Schema.properties[b].x-kubernetes-validations[0].rule: Invalid value: 1: must be of type string',
    'spec.versions[0].schema.openAPIV3Schema.required: Invalid value: "a": must be of type array',
  ];
  assert.deepEqual(validateCustomResourceDefinition(crd, { domain: 'plat.io' }).map(String), want);
  assert.deepEqual(validateCustomResourceDefinitionUpdate(crd, valid(), { domain: 'plat.io' }).map(String), want);
  assert.deepEqual(validateCustomResourceDefinitionStatus(crd).map(String), want);
});

test('crd shape: defaulting and preparation leave wrongly typed fields to validation', () => {
  const crd = valid();
  wronglyTyped(crd);
  (crd.spec as unknown as Record<string, unknown>).versions = 'v1';
  assert.doesNotThrow(() => {
    prepareCustomResourceDefinitionForCreate(crd);
    setCustomResourceDefinitionDefaults(crd);
    prepareCustomResourceDefinitionForUpdate(crd, valid());
  });
  assert.deepEqual(crd.spec.names, { plural: 'widgets', kind: 7, shortNames: 'w' });
});

test('crd shape: a stored object of the wrong shape earns no leniency on update', () => {
  const old = valid();
  (old.spec as unknown as Record<string, unknown>).group = 5;
  const crd = valid();
  crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.a = {};
  assert.deepEqual(validateCustomResourceDefinitionUpdate(crd, old, { domain: 'plat.io' }).map(String), [
    'spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields',
  ]);
});

test('crd shape: null items of lists and values of maps read as their zero value, as Go decodes them', () => {
  const crd = valid();
  (crd.spec.names as unknown as Record<string, unknown>).shortNames = [null];
  (crd.spec.versions as unknown[]).push(null);
  const properties = crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties as Record<string, unknown>;
  properties.b = null;
  const dns1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  assert.deepEqual(validateCustomResourceDefinition(crd, { domain: 'plat.io' }).map(String), [
    'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
    'spec.versions[0].schema.openAPIV3Schema.properties[b].type: Required value: must not be empty for specified object fields',
    `spec.versions[1].name: Invalid value: "": ${dns1035}`,
    `spec.names.shortNames[0]: Invalid value: "": ${dns1035}`,
  ]);
});
