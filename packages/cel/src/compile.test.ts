// Compilation: cel-go's error texts, the schema-type mapping of 2.8 (escaped names, resource roots,
// preserve-unknown-fields), and runtime costs that stay within the estimate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelEnvironment } from './environment.js';
import { CompileError } from './issues.js';
import { ExpressionTimer } from './interrupt.js';
import { PER_CALL_LIMIT } from './limits.js';
import { declTypeSizes, schemaDeclType, withTypeAndObjectMeta, type SchemaNode } from './schema-types.js';
import { valueOf } from './schema-values.js';
import { ErrorValue, type Value } from './values.js';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        'x-y.z/w': { type: 'string' },
        namespace: { type: 'string' },
        'a__b': { type: 'string' },
        'has space': { type: 'string' },
        open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        port: { 'x-kubernetes-int-or-string': true },
        data: { type: 'string', format: 'byte' },
        when: { type: 'string', format: 'date-time' },
        timeout: { type: 'string', format: 'duration' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
};

const decl = schemaDeclType(schema, true)!;
const env = new CelEnvironment(
  new Map([
    ['self', decl.type],
    ['oldSelf', decl.type],
  ]),
);

function compileError(source: string): string {
  try {
    env.compile(source);
  } catch (error) {
    if (error instanceof CompileError) return error.message;
    throw error;
  }
  return '';
}

test('compile: an undefined field, in cel-go words and layout', () => {
  assert.equal(compileError('self.spec.z == 1'), "ERROR: <input>:1:10: undefined field 'z'\n | self.spec.z == 1\n | .........^");
});

test('compile: a syntax error', () => {
  assert.match(compileError('self.spec.replicas >'), /^ERROR: <input>:1:21: Syntax error: /);
});

test('compile: an expression past 100,000 code points is refused unread, with no location (cel-go 0.16)', () => {
  // `"…" == ""` is 8 code points around the literal's.
  const literal = (points: number, char = 'x'): string => `"${char.repeat(points - 8)}" == ""`;
  assert.equal(compileError(literal(100_000)), '', 'the limit itself is taken');
  assert.equal(compileError(literal(100_001)), 'ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000');
  // Code points, not UTF-16 units: 99,992 astral characters are 199,984 units.
  assert.equal(compileError(literal(100_000, '\u{1F600}')), '');
  assert.equal(compileError(`${literal(400_000)} && self.spec.z`), 'ERROR: <input>:-1:0: expression code point size exceeds limit: size: 400015, limit 100000');
});

test('compile: a source line over 16 KiB is not repeated beneath its error', () => {
  const padding = (length: number): string => ` && "${'x'.repeat(length - 12)}" == ""`;
  const source = (bytes: number): string => {
    const text = `self.spec.z == 1${padding(bytes - 16)}`;
    assert.equal(Buffer.byteLength(text), bytes);
    return text;
  };
  assert.equal(compileError(source(16_385)), "ERROR: <input>:1:10: undefined field 'z'");
  const shown = compileError(source(16_384));
  assert.ok(shown.startsWith(`ERROR: <input>:1:10: undefined field 'z'\n | self.spec.z == 1 && "xxx`), shown.slice(0, 100));
  assert.ok(shown.endsWith('\n | .........^'));
  // Only the line of the error counts.
  const other = compileError(`"${'x'.repeat(20_000)}" == ""\n|| self.spec.z == 1`);
  assert.equal(other, "ERROR: <input>:2:13: undefined field 'z'\n | || self.spec.z == 1\n | ............^");
});

test('compile: no matching overload', () => {
  assert.match(compileError('self.spec.replicas + "a" == 1'), /found no matching overload for '_\+_' applied to '\(int, string\)'/);
});

test('compile: an undeclared reference', () => {
  assert.match(compileError('foo == 1'), /undeclared reference to 'foo' \(in container ''\)/);
});

test('compile: only apiVersion, kind, metadata.name and metadata.generateName are visible at the root', () => {
  assert.equal(compileError('self.apiVersion != "" && self.kind != "" && self.metadata.name != "" && self.metadata.generateName != ""'), '');
  assert.match(compileError('self.metadata.labels.size() > 0'), /undefined field 'labels'/);
});

test('compile: escaped property names; unescapable ones are not visible', () => {
  assert.equal(compileError('self.spec.x__dash__y__dot__z__slash__w == "" && self.spec.__namespace__ == "" && self.spec.a__underscores__b == ""'), '');
  assert.match(compileError('self.spec.namespace == ""'), /undefined field 'namespace'/);
});

test('compile: the fields of a preserve-unknown-fields object are not accessible', () => {
  assert.match(compileError('self.spec.open.anything == 1'), /undefined field 'anything'/);
});

test('compile: the types of the schema-type mapping', () => {
  const typeOf = (source: string): string => env.compile(source).outputType.kind;
  assert.equal(typeOf('self.spec.data'), 'bytes');
  assert.equal(typeOf('self.spec.when'), 'timestamp');
  assert.equal(typeOf('self.spec.timeout'), 'duration');
  assert.equal(typeOf('self.spec.port'), 'dyn');
  assert.equal(typeOf('self.spec.tags'), 'list');
  assert.equal(typeOf('self.spec.labels'), 'map');
  assert.equal(typeOf('self.spec.replicas'), 'int');
});

test('compile: transition rules are the ones that read oldSelf', () => {
  assert.equal(env.compile('self.spec.replicas >= oldSelf.spec.replicas').references('oldSelf'), true);
  assert.equal(env.compile('self.spec.replicas >= 0').references('oldSelf'), false);
});

const object = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', labels: { a: 'b' } },
  spec: {
    replicas: 3,
    'x-y.z/w': 'escaped',
    data: Buffer.from('hi').toString('base64'),
    when: '2024-01-15T14:30:45.5Z',
    timeout: '1m30s',
    port: 'http',
    tags: ['a', 'b'],
    ports: [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ],
    labels: { app: 'x' },
    open: { anything: 1 },
  },
};

// A resource root's data is read through its schema with the root's type and metadata fields added.
const rootSchema = withTypeAndObjectMeta(schema);

function run(source: string, data: unknown = object, old?: unknown): Value {
  const activation: Record<string, Value> = { self: valueOf(data, rootSchema) };
  if (old !== undefined) activation.oldSelf = valueOf(old, rootSchema);
  return env.compile(source).evaluate(activation, PER_CALL_LIMIT).value;
}

test('evaluate: data read through the schema', () => {
  assert.equal(run('self.spec.replicas == 3 && self.spec.x__dash__y__dot__z__slash__w == "escaped"'), true);
  assert.equal(run('self.spec.data == b"hi" && self.spec.timeout == duration("90s")'), true);
  assert.equal(run('self.spec.when == timestamp("2024-01-15T14:30:45.5Z")'), true);
  assert.equal(run('type(self.spec.port) == string'), true);
  assert.equal(run('self.metadata.name == "w"'), true);
  assert.equal(run('has(self.spec.labels) && !has(self.spec.__namespace__)'), true);
  assert.deepEqual(run('self.spec.__namespace__ == ""'), new ErrorValue('no such key: __namespace__'));
});

test('evaluate: a set list equals its permutations, and + appends only what is new', () => {
  const other = { ...object, spec: { ...object.spec, tags: ['b', 'a'] } };
  assert.equal(run('self.spec.tags == oldSelf.spec.tags', object, other), true);
  assert.equal(run('self.spec.tags + ["c", "a"] == ["a", "b", "c"]'), true);
});

test('evaluate: a map list equals by its keys, and + overwrites by key', () => {
  const reordered = { ...object, spec: { ...object.spec, ports: [...object.spec.ports].reverse() } };
  assert.equal(run('self.spec.ports == oldSelf.spec.ports', object, reordered), true);
  const changed = { ...object, spec: { ...object.spec, ports: [{ name: 'http', port: 81 }, object.spec.ports[1]] } };
  assert.equal(run('self.spec.ports == oldSelf.spec.ports', object, changed), false);
  assert.equal(run('(self.spec.ports + oldSelf.spec.ports).map(p, p.port) == [81, 443]', object, changed), true);
});

const listSchema = (maxItems?: number): SchemaNode => ({ type: 'array', items: { type: 'integer' }, maxItems });
const stringSchema = (maxLength?: number): SchemaNode => ({ type: 'string', maxLength });

function costs(node: SchemaNode, source: string, data: unknown): { runtime: number; estimate: number } {
  const d = schemaDeclType(node, false)!;
  const e = new CelEnvironment(new Map([['self', d.type]]));
  const compiled = e.compile(source);
  const runtime = compiled.evaluate({ self: valueOf(data, node) }, PER_CALL_LIMIT).cost;
  return { runtime, estimate: compiled.estimateCost(declTypeSizes(d)).max };
}

const tenItems = Array.from({ length: 10 }, (_, i) => i);
const costCases: [string, SchemaNode, string, unknown, number, number][] = [
  ['all over 10 items', listSchema(10), 'self.all(x, true)', tenItems, 32, 32],
  ['exists over 10 items, never found', listSchema(10), 'self.exists(x, x > 100)', tenItems, 62, 62],
  // Per item: the step appends a one-element list literal (40), its element, the + (1), the accumulator (1);
  // the empty list the accumulator starts from is a constant, computed ahead of time at no runtime cost.
  ['map over 10 items', listSchema(10), 'self.map(x, x + 1).size() > 0', tenItems, 444, 484],
  // An item left out costs its test (2) only: the accumulator, the conditional's other branch, is resolved, not evaluated.
  ['filter over 10 items', listSchema(10), 'self.filter(x, x > 4).size() > 0', tenItems, 239, 494],
  // Upstream estimates == on a scalar field at 0 (its size bound is 0) where it costs 1 at runtime.
  ['exists_one over 10 items', listSchema(10), 'self.exists_one(x, x == 3)', tenItems, 25, 33],
  ['matches on 50 characters', stringSchema(50), 'self.matches("x")', 'x'.repeat(50), 7, 22],
  ['contains', stringSchema(10), "self.contains('test')", 'abcdefghij', 2, 5],
  ['string equality', stringSchema(10), 'self == "abc"', 'abcdefghij', 2, 2],
  // A list literal of constants is a constant at runtime (Kubernetes' OptOptimize); the estimate charges its 40.
  ['list literal', listSchema(10), '[1, 2, 3].size() == 3', tenItems, 2, 42],
  ['list literal of data', listSchema(10), '[self[0], 2].size() == 2', tenItems, 44, 44],
  // Indexing (cel-go's attributes): 1 per index applied and 1 for the whole, the variable indexed
  // resolved, not evaluated; an index that is itself a variable likewise (self[i] costs 2, not 3).
  ['index by a constant', listSchema(10), 'self[1] == 1', tenItems, 3, 2],
  ['index by a variable', listSchema(10), 'self.all(i, self[i] >= 0)', tenItems, 62, 72],
  ['index by an expression', listSchema(10), 'self.all(i, self[i % 10] >= 0)', tenItems, 82, 82],
  ['index of a literal', listSchema(10), '[1, 2, 3][2] == 3', tenItems, 3, 42],
];

for (const [name, node, source, data, runtime, estimate] of costCases) {
  test(`runtime cost: ${name}`, () => {
    const got = costs(node, source, data);
    assert.deepEqual(got, { runtime, estimate });
  });
}

test('runtime cost: evaluation stops once the cost passes the limit', () => {
  const d = schemaDeclType(listSchema(), false)!;
  const e = new CelEnvironment(new Map([['self', d.type]]));
  // A timer of a minute: the cost, not the clock, stops it, however loaded the machine.
  const result = e.compile('self.all(x, self.all(y, true))').evaluate({ self: valueOf(Array.from({ length: 1000 }, (_, i) => i), listSchema()) }, PER_CALL_LIMIT, new ExpressionTimer(60_000));
  assert.equal(result.cancelled, true);
  assert.ok(result.cost > PER_CALL_LIMIT && result.cost < PER_CALL_LIMIT + 10);
});
