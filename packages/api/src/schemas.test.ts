// Every kind's schema compiles with ajv (draft 2020-12, strict mode, our x-kubernetes-* keywords
// registered), accepts a full sample of its kind and reports unknown fields at their own position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JSONSchema, KubeObject } from '@plat/registry';
import { builtinDefinitions, builtinSubresourceDefinitions, kubernetesSchemaFormats, kubernetesSchemaKeywords, objectMetaSchema, scaleKind } from './index.js';
import { examplesOf, kindExamples } from './testing/examples.js';

const quantity = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  ajv.addVocabulary([...kubernetesSchemaKeywords]);
  for (const format of kubernetesSchemaFormats) ajv.addFormat(format, format === 'date-time' ? rfc3339 : format === 'quantity' ? quantity : true);
  return ajv;
}

const ajv = newAjv();
// JSON has no undefined: drop it as the wire would.
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
// Every built-in kind (a subresource's among them: TokenRequest) and the kinds served as a
// subresource (Scale), whose bodies are decoded with their schemas too.
const kinds: readonly { group: string; version: string; kind: string; schema: JSONSchema }[] = [...builtinDefinitions, ...builtinSubresourceDefinitions, scaleKind];
// A kind served by two groups (Event) is told apart by its group: "events.{domain}/Event".
const keyOf = (d: { kind: string; group?: string }): string => (kinds.filter((o) => o.kind === d.kind).length > 1 && d.group ? `${d.group}/${d.kind}` : d.kind);
// A kind's first version (its preferred one) checks the kind's sample; every version is checked below.
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
for (const d of kinds) if (!validators.has(keyOf(d))) validators.set(keyOf(d), ajv.compile(d.schema));
const validate = (kind: string, object: unknown) => {
  const check = validators.get(kind);
  assert.ok(check, kind);
  check(object);
  return check.errors ?? [];
};

// Each kind's sample, from its folder's examples (testing/examples.ts).
const examples = await kindExamples();
const samples: Record<string, KubeObject> = Object.fromEntries(examples.map((e) => [keyOf(e), e.sample]));

test('examples: every kind has its examples, and every examples file names a kind', () => {
  assert.deepEqual(kinds.filter((d) => !examplesOf(examples, d)).map((d) => `${d.group}/${d.kind}`), []);
  assert.deepEqual(examples.filter((e) => !kinds.some((d) => d.group === e.group && d.kind === e.kind)).map((e) => `${e.group}/${e.kind}`), []);
});

// Every version of every kind accepts its kind's sample (the policy kinds have two).
for (const definition of kinds) {
  test(`schema ${definition.group || 'core'}/${definition.version} ${definition.kind}: the kind's sample is valid`, () => {
    const sample = examplesOf(examples, definition)?.sample;
    assert.ok(sample, `no sample for ${definition.kind}`);
    const check = ajv.compile(definition.schema);
    check(wire(sample));
    assert.deepEqual(check.errors ?? [], []);
  });
}

test('schemas: one per registered kind, all compiled', () => {
  assert.deepEqual([...validators.keys()].sort(), Object.keys(samples).sort());
});

for (const kind of Object.keys(samples)) {
  test(`schema ${kind}: a full sample is valid`, () => assert.deepEqual(validate(kind, wire(samples[kind])), []));
}

const unknownCases: { name: string; kind: string; mutate: (o: Record<string, any>) => void; at: string; field: string }[] = [
  { name: 'top level', kind: 'Role', mutate: (o) => (o.spec = {}), at: '', field: 'spec' },
  { name: 'in metadata', kind: 'Role', mutate: (o) => (o.metadata.owner = 'x'), at: '/metadata', field: 'owner' },
  { name: 'in an owner reference', kind: 'Namespace', mutate: (o) => (o.metadata.ownerReferences[0].extra = 1), at: '/metadata/ownerReferences/0', field: 'extra' },
  { name: 'in a managed fields entry', kind: 'Namespace', mutate: (o) => (o.metadata.managedFields[0].fields = {}), at: '/metadata/managedFields/0', field: 'fields' },
  { name: 'in a policy rule', kind: 'Role', mutate: (o) => (o.rules[0].verb = ['get']), at: '/rules/0', field: 'verb' },
  { name: 'in a selector requirement', kind: 'ClusterRole', mutate: (o) => (o.aggregationRule.clusterRoleSelectors[0].matchExpressions[0].value = 'v'), at: '/aggregationRule/clusterRoleSelectors/0/matchExpressions/0', field: 'value' },
  { name: 'in a roleRef', kind: 'RoleBinding', mutate: (o) => (o.roleRef.namespace = 'x'), at: '/roleRef', field: 'namespace' },
  { name: 'in a subject', kind: 'ClusterRoleBinding', mutate: (o) => (o.subjects[0].uid = 'x'), at: '/subjects/0', field: 'uid' },
  { name: 'in a limit item', kind: 'LimitRange', mutate: (o) => (o.spec.limits[0].maximum = {}), at: '/spec/limits/0', field: 'maximum' },
  { name: 'in a namespace condition', kind: 'Namespace', mutate: (o) => (o.status.conditions[0].since = 'x'), at: '/status/conditions/0', field: 'since' },
  { name: 'in a secret reference', kind: 'ServiceAccount', mutate: (o) => (o.secrets[0].key = 'x'), at: '/secrets/0', field: 'key' },
  { name: 'in a parent reference', kind: 'IPAddress', mutate: (o) => (o.spec.parentRef.kind = 'Service'), at: '/spec/parentRef', field: 'kind' },
  { name: 'in a scale spec', kind: 'Scale', mutate: (o) => (o.spec.replica = 1), at: '/spec', field: 'replica' },
];
for (const c of unknownCases) {
  test(`schema ${c.kind}: an unknown field ${c.name} is reported at its position`, () => {
    const object = wire(samples[c.kind]) as Record<string, any>;
    c.mutate(object);
    const errors = validate(c.kind, object);
    assert.deepEqual(
      errors.map((e) => [e.keyword, e.instancePath, e.params]),
      [['additionalProperties', c.at, { additionalProperty: c.field }]],
    );
  });
}

test('schema: fieldsV1 keeps any content', () => {
  const object = wire(samples.Role) as Record<string, any>;
  object.metadata.managedFields[0].fieldsV1 = { 'f:anything': { 'k:{"x":1}': { '.': {} } } };
  assert.deepEqual(validate('Role', object), []);
});

const typeCases: { name: string; kind: string; mutate: (o: Record<string, any>) => void; want: [string, string][] }[] = [
  { name: 'a string that is no quantity', kind: 'LimitRange', mutate: (o) => (o.spec.limits[0].max.cpu = 'half'), want: [['format', '/spec/limits/0/max/cpu']] },
  { name: 'a quantity is a string or a number', kind: 'LimitRange', mutate: (o) => (o.spec.limits[0].max.cpu = [1]), want: [['type', '/spec/limits/0/max/cpu']] },
  { name: 'a label value must be a string', kind: 'Role', mutate: (o) => (o.metadata.labels.app = 1), want: [['type', '/metadata/labels/app']] },
  { name: 'generation is an integer', kind: 'Role', mutate: (o) => (o.metadata.generation = 1.5), want: [['type', '/metadata/generation']] },
  { name: 'creationTimestamp is a date-time', kind: 'Role', mutate: (o) => (o.metadata.creationTimestamp = 'yesterday'), want: [['format', '/metadata/creationTimestamp']] },
  { name: 'roleRef is required', kind: 'RoleBinding', mutate: (o) => delete o.roleRef, want: [['required', '']] },
  { name: 'roleRef.name is required', kind: 'ClusterRoleBinding', mutate: (o) => delete o.roleRef.name, want: [['required', '/roleRef']] },
  { name: 'verbs are required', kind: 'ClusterRole', mutate: (o) => delete o.rules[0].verbs, want: [['required', '/rules/0']] },
  { name: 'a limit type is required', kind: 'LimitRange', mutate: (o) => delete o.spec.limits[0].type, want: [['required', '/spec/limits/0']] },
  { name: 'an owner reference uid is required', kind: 'Role', mutate: (o) => delete o.metadata.ownerReferences[0].uid, want: [['required', '/metadata/ownerReferences/0']] },
  { name: 'parentRef is required in an IPAddress spec', kind: 'IPAddress', mutate: (o) => (o.spec = {}), want: [['required', '/spec']] },
];
for (const c of typeCases) {
  test(`schema ${c.kind}: ${c.name}`, () => {
    const object = wire(samples[c.kind]) as Record<string, any>;
    c.mutate(object);
    assert.deepEqual(validate(c.kind, object).map((e) => [e.keyword, e.instancePath]), c.want);
  });
}

// Walks a schema: every object lists its properties and is closed, or is a map, or keeps unknown fields.
function* nodes(schema: JSONSchema, at = '#'): Generator<[string, JSONSchema]> {
  yield [at, schema];
  const props = schema.properties as Record<string, JSONSchema> | undefined;
  for (const [name, child] of Object.entries(props ?? {})) yield* nodes(child, `${at}/${name}`);
  if (schema.items) yield* nodes(schema.items as JSONSchema, `${at}[]`);
  if (typeof schema.additionalProperties === 'object') yield* nodes(schema.additionalProperties as JSONSchema, `${at}{}`);
  for (const branch of (schema.anyOf as JSONSchema[] | undefined) ?? []) yield* nodes(branch, `${at}|`);
}

for (const definition of kinds) {
  test(`schema ${definition.kind}: every object is closed and every field described`, () => {
    for (const [at, node] of nodes(definition.schema)) {
      if (node.type === 'object') {
        const closedOrMap = node.properties ? node.additionalProperties === false : typeof node.additionalProperties === 'object';
        assert.ok(closedOrMap || node['x-kubernetes-preserve-unknown-fields'] === true, `${at} is open`);
      }
      for (const [name, child] of Object.entries((node.properties as Record<string, JSONSchema> | undefined) ?? {})) {
        assert.equal(typeof child.description, 'string', `${at}/${name} has no description`);
      }
    }
  });
}

test('schema: ObjectMeta carries upstream merge markers', () => {
  const props = objectMetaSchema.properties as Record<string, JSONSchema>;
  assert.deepEqual(
    [props.ownerReferences!['x-kubernetes-list-type'], props.ownerReferences!['x-kubernetes-list-map-keys'], props.ownerReferences!['x-kubernetes-patch-merge-key']],
    ['map', ['uid'], 'uid'],
  );
  assert.deepEqual([props.finalizers!['x-kubernetes-list-type'], props.finalizers!['x-kubernetes-patch-strategy']], ['set', 'merge']);
  assert.deepEqual(objectMetaSchema.required, undefined);
});

test('schema: ServiceAccount secrets merge by name', () => {
  const sa = builtinDefinitions.find((d) => d.kind === 'ServiceAccount')!;
  const secrets = (sa.schema.properties as Record<string, JSONSchema>).secrets!;
  assert.deepEqual([secrets['x-kubernetes-patch-strategy'], secrets['x-kubernetes-patch-merge-key']], ['merge', 'name']);
});
