import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isManagedFieldsReset } from './managed-fields.js';
import { describeSchema, schemaAt } from './schema-walker.js';
import { serviceAccountSchema, widgetSchema } from './testing/schemas.js';

const cases: { path: (string | number)[]; schema?: typeof widgetSchema; want: Record<string, unknown> }[] = [
  { path: ['secrets'], schema: serviceAccountSchema, want: { kind: 'list', listType: 'map', keys: ['name'], atomic: false, patchStrategies: ['merge'], patchMergeKey: 'name' } },
  { path: ['secrets', 0], schema: serviceAccountSchema, want: { kind: 'struct', atomic: true } },
  { path: ['imagePullSecrets'], schema: serviceAccountSchema, want: { kind: 'list', listType: 'atomic', atomic: true } },
  { path: ['metadata', 'finalizers'], want: { kind: 'list', listType: 'set', atomic: false, patchStrategies: ['merge'] } },
  { path: ['metadata', 'ownerReferences'], want: { kind: 'list', listType: 'map', keys: ['uid'] } },
  { path: ['metadata', 'labels'], want: { kind: 'map', atomic: false } },
  { path: ['metadata', 'labels', 'app'], want: { kind: 'scalar' } },
  { path: ['spec', 'ports'], want: { kind: 'list', listType: 'map', keys: ['port', 'protocol'] } },
  { path: ['spec', 'ports', 0, 'targetPort'], want: { kind: 'scalar' } },
  { path: ['spec', 'aliases'], want: { kind: 'list', listType: 'set' } },
  { path: ['spec', 'containers', 0, 'args'], want: { kind: 'list', listType: 'atomic', atomic: true } },
  { path: ['spec', 'selector'], want: { kind: 'struct', atomic: true } },
  { path: ['spec', 'strategy'], want: { kind: 'struct', patchStrategies: ['retainKeys'] } },
  { path: ['spec', 'extra'], want: { kind: 'map' } },
  { path: ['spec', 'extra', 'anything'], want: { kind: 'untyped' } },
  { path: ['spec', 'replicas', 'deeper'], want: {} },
];

for (const { path, schema, want } of cases) {
  test(`schemaAt(${path.join('.')})`, () => {
    const node = schemaAt(schema ?? widgetSchema, path);
    if (Object.keys(want).length === 0) {
      assert.equal(node, undefined);
      return;
    }
    assert.ok(node);
    for (const [key, value] of Object.entries(want)) assert.deepEqual(node[key as keyof typeof node], value, key);
  });
}

test('describeSchema: a list without markers is atomic; an empty schema is untyped', () => {
  assert.equal(describeSchema({ type: 'array', items: { type: 'string' } }).listType, 'atomic');
  assert.equal(describeSchema({}).kind, 'untyped');
  assert.equal(describeSchema(undefined).kind, 'untyped');
});

test('isManagedFieldsReset: exactly [{}]', () => {
  assert.equal(isManagedFieldsReset([{}]), true);
  assert.equal(isManagedFieldsReset([]), false);
  assert.equal(isManagedFieldsReset([{}, {}]), false);
  assert.equal(isManagedFieldsReset([{ manager: 'a' }]), false);
  assert.equal(isManagedFieldsReset(undefined), false);
  assert.equal(isManagedFieldsReset({}), false);
});
