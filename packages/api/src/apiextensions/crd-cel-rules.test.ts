// A CRD's x-kubernetes-validations rules as upstream checks them when the CRD is written
// (apiextensions validation_test.go in behaviour): compilation, result types, estimated costs per
// rule and per schema, transition rules, fieldPath; rules are not compiled under schema errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCustomResourceDefinition } from './crd-validation.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.js';

function crdWith(schema: JSONSchemaProps): CustomResourceDefinition {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      conversion: { strategy: 'None' },
    },
    status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
  };
}

const errorsOf = (schema: JSONSchemaProps): string[] => validateCustomResourceDefinition(crdWith(schema), { domain: 'plat.io' }).map(String);
const P = 'spec.validation.openAPIV3Schema';
const withRules = (rules: JSONSchemaProps['x-kubernetes-validations'], properties: Record<string, JSONSchemaProps> = { x: { type: 'integer' } }): JSONSchemaProps => ({
  type: 'object',
  properties,
  'x-kubernetes-validations': rules,
});
const ruleValue = (rule: string, message = '') =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:${JSON.stringify(message)}, MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:""}`;

test('crd rules: rules that compile are accepted', () => {
  assert.deepEqual(errorsOf(withRules([{ rule: 'self.x > 0' }, { rule: 'self.x >= oldSelf.x', message: 'x may not shrink' }, { rule: 'self.metadata.name.startsWith("w")' }])), []);
});

test('crd rules: an undefined field is a compilation error, as upstream words it', () => {
  assert.deepEqual(errorsOf(withRules([{ rule: 'self.z == 1' }])), [
    `${P}.x-kubernetes-validations[0].rule: Invalid value: ${ruleValue('self.z == 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'z'\n | self.z == 1\n | ....^`,
  ]);
});

test('crd rules: a syntax error', () => {
  const [error] = errorsOf(withRules([{ rule: 'self.x >' }]));
  assert.match(error!, /x-kubernetes-validations\[0\]\.rule: Invalid value: .*: compilation failed: ERROR: <input>:1:9: Syntax error: /);
});

test('crd rules: a rule must evaluate to a bool, a messageExpression to a string', () => {
  assert.deepEqual(errorsOf(withRules([{ rule: 'self.x' }])), [`${P}.x-kubernetes-validations[0].rule: Invalid value: ${ruleValue('self.x')}: cel expression must evaluate to a bool`]);
  const [error] = errorsOf(withRules([{ rule: 'self.x > 0', messageExpression: 'self.x' }]));
  assert.match(error!, /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: .*: messageExpression must evaluate to a string$/);
  assert.deepEqual(errorsOf(withRules([{ rule: 'self.x > 0', messageExpression: '"x must be positive, not " + self.name' }], { x: { type: 'integer' }, name: { type: 'string', maxLength: 63 } })), []);
});

test('crd rules: a constant that fails when the program is built is refused, as upstream instantiates it', () => {
  const name = { x: { type: 'integer' }, name: { type: 'string', maxLength: 63 } } as Record<string, JSONSchemaProps>;
  assert.deepEqual(errorsOf(withRules([{ rule: "self.name.matches(')')" }], name)), [
    `${P}.x-kubernetes-validations[0].rule: Invalid value: ${ruleValue("self.name.matches(')')")}: program instantiation failed: error parsing regexp: unexpected ): \`)\``,
  ]);
  assert.deepEqual(errorsOf(withRules([{ rule: "self.x > 0 && timestamp('soon') > timestamp(0)" }])), [
    `${P}.x-kubernetes-validations[0].rule: Invalid value: ${ruleValue("self.x > 0 && timestamp('soon') > timestamp(0)")}: program instantiation failed: type conversion error from 'string' to 'google.protobuf.Timestamp'`,
  ]);
  // The type is checked first, as upstream does.
  assert.deepEqual(errorsOf(withRules([{ rule: 'uint(-1)' }])), [`${P}.x-kubernetes-validations[0].rule: Invalid value: ${ruleValue('uint(-1)')}: cel expression must evaluate to a bool`]);
  const [message] = errorsOf(withRules([{ rule: 'self.x > 0', messageExpression: "string(duration('forever'))" }]));
  assert.match(message!, /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: .*: messageExpression instantiation failed: type conversion error from 'string' to 'google.protobuf.Duration'$/);
});

test('crd rules: literals are of one type (Kubernetes\' homogeneous aggregate literals)', () => {
  const [error] = errorsOf(withRules([{ rule: "[1, 'a'].size() == 2" }]));
  assert.match(error!, /rule: Invalid value: .*: compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'/);
});

test('crd rules: a rule whose estimated cost exceeds the per-rule limit is refused with the factor', () => {
  const schema = withRules([{ rule: 'self.list.all(x, self.list.all(y, x == y))' }], { list: { type: 'array', items: { type: 'string' } } });
  const errors = errorsOf(schema);
  assert.ok(
    errors.includes(
      `${P}.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ),
    errors.join('\n'),
  );
  // Bounded, the same rule is cheap.
  assert.deepEqual(errorsOf(withRules([{ rule: 'self.list.all(x, self.list.all(y, x == y))' }], { list: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } } })), []);
});

test('crd rules: the factor is printed as upstream prints it, by how far over the limit', () => {
  // 3n+2 for n = 3,500,000 items is 10,500,002: 1.05x the 10,000,000 limit.
  const errors = errorsOf(withRules([{ rule: 'self.list.all(x, true)' }], { list: { type: 'array', maxItems: 3_500_000, items: { type: 'integer' } } }));
  assert.deepEqual(errors, [
    `${P}.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.050000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  ]);
});

test('crd rules: a rule under an unbounded list costs its cost times the list items that fit in a request', () => {
  const items: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.name.matches("^[a-z]+$")' }] };
  const errors = errorsOf({ type: 'object', properties: { list: { type: 'array', items } } });
  assert.match(errors[0]!, /properties\[list\]\.items\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x/);
  // Alone, it is also over the whole schema's limit.
  assert.match(errors[1]!, /properties\[list\]\.items\.x-kubernetes-validations\[0\]\.rule: Forbidden: contributed to estimated rule cost total/);
  assert.equal(errors.length, 3);
  assert.deepEqual(errorsOf({ type: 'object', properties: { list: { type: 'array', maxItems: 100, items: { ...items, properties: { name: { type: 'string', maxLength: 63 } } } } } }), []);
});

test('crd rules: the rules of a schema together may not exceed the per-schema limit', () => {
  const properties: Record<string, JSONSchemaProps> = {};
  // Each rule estimates 3 x 1,000,000 + 2 per rule (just under 1/3 of the per-rule limit): 40 of them exceed 100,000,000.
  for (let i = 0; i < 40; i++) properties[`f${i}`] = { type: 'array', maxItems: 3_000_000, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, true)' }] };
  const errors = errorsOf({ type: 'object', properties });
  assert.equal(errors.length, 5);
  assert.ok(errors.slice(0, 4).every((e) => e.endsWith('.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')));
  assert.equal(
    errors[4],
    `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 3.6x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  );
});

test('crd rules: transition rules are refused where old and new items cannot be paired', () => {
  const items: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], 'x-kubernetes-validations': [{ rule: 'self.name == oldSelf.name' }] };
  assert.deepEqual(errorsOf({ type: 'object', properties: { list: { type: 'array', maxItems: 10, items } } }), [
    `${P}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self.name == oldSelf.name": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[list]`,
  ]);
  // In a map list, items pair by their keys.
  assert.deepEqual(
    errorsOf({ type: 'object', properties: { list: { type: 'array', maxItems: 10, items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } } }),
    [],
  );
});

test('crd rules: fieldPath must name a field of the schema', () => {
  const properties = { spec: { type: 'object', properties: { a: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } } } };
  assert.deepEqual(errorsOf(withRules([{ rule: 'true', fieldPath: '.spec.a' }, { rule: 'true', fieldPath: ".spec.m['k.x']" }], properties)), []);
  assert.deepEqual(errorsOf(withRules([{ rule: 'true', fieldPath: '.spec.b' }], properties)), [
    `${P}.x-kubernetes-validations[0].fieldPath: Invalid value: ".spec.b": fieldPath must be a valid path`,
  ]);
});

test('crd rules: rules are not compiled where the schema itself has errors', () => {
  assert.deepEqual(errorsOf(withRules([{ rule: 'self.z == 1' }], { x: { type: 'bogus' } })), [
    `${P}.properties[x].type: Unsupported value: "bogus": supported values: "array", "boolean", "integer", "number", "object", "string"`,
  ]);
});
