// The Protobuf form of /openapi/v2, read back with a small wire decoder: gnostic's field numbers for
// the document, definitions, schemas, vendor extensions, parameters and responses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions } from '@plat/api';
import { resolveResource } from '@plat/registry';
import { customResourceSchema } from './custom-schema.js';
import { buildOpenAPIDocuments } from './documents.js';
import { swaggerToProtobuf } from './protobuf-v2.js';

/** One message: each field number's values, in order (varints as bigint, the rest as bytes). */
type Message = Map<number, (bigint | Buffer)[]>;

function decode(buffer: Buffer): Message {
  const out: Message = new Map();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const field = tag >> 3;
    let value: bigint | Buffer;
    if ((tag & 7) === 0) value = varint();
    else if ((tag & 7) === 1) value = buffer.subarray(at, (at += 8));
    else if ((tag & 7) === 2) {
      const length = Number(varint());
      value = buffer.subarray(at, (at += length));
    } else throw new Error(`wire type ${tag & 7}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const bytes = (message: Message, field: number): Buffer[] => (message.get(field) ?? []) as Buffer[];
const text = (message: Message, field: number): string | undefined => bytes(message, field)[0]?.toString('utf8');
const texts = (message: Message, field: number): string[] => bytes(message, field).map((b) => b.toString('utf8'));
const sub = (message: Message, field: number): Message => decode(bytes(message, field)[0] ?? Buffer.alloc(0));
const subs = (message: Message, field: number): Message[] => bytes(message, field).map(decode);
/** A repeated Named* message (name = 1, value = 2) as a map. */
const named = (messages: Message[]): Map<string, Message> => new Map(messages.map((m) => [text(m, 1)!, sub(m, 2)]));

const documents = buildOpenAPIDocuments(
  builtinDefinitions.map((definition) => resolveResource(definition, 'k8s.io')),
  { domain: 'k8s.io', version: 'v1.28.0' },
);
const json = documents.v2 as Record<string, any>;
const document = decode(swaggerToProtobuf(documents.v2));

test('Document: swagger, info, every definition and every path, in order', () => {
  assert.equal(text(document, 1), '2.0');
  assert.deepEqual([text(sub(document, 2), 1), text(sub(document, 2), 2)], ['Kubernetes', 'v1.28.0']);
  assert.deepEqual([...named(subs(sub(document, 9), 1)).keys()], Object.keys(json.definitions));
  assert.deepEqual([...named(subs(sub(document, 8), 2)).keys()], Object.keys(json.paths));
});

test('Schema: type, description, required, properties, items and $ref', () => {
  const definitions = named(subs(sub(document, 9), 1));
  const role = definitions.get('io.k8s.api.rbac.v1.Role')!;
  assert.deepEqual(texts(sub(role, 22), 1), ['object']);
  assert.equal(text(role, 4), json.definitions['io.k8s.api.rbac.v1.Role'].description);
  const properties = named(subs(sub(role, 25), 1));
  assert.deepEqual([...properties.keys()], Object.keys(json.definitions['io.k8s.api.rbac.v1.Role'].properties));
  assert.equal(text(properties.get('metadata')!, 1), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const rule = sub(sub(properties.get('rules')!, 23), 1);
  assert.deepEqual(texts(rule, 19), ['verbs']);
  const meta = definitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!;
  const labels = named(subs(sub(meta, 25), 1)).get('labels')!;
  const additional = sub(sub(labels, 21), 1);
  assert.deepEqual(texts(sub(additional, 22), 1), ['string']);
});

test('vendor extensions are NamedAny with the value as YAML (JSON) text', () => {
  const definitions = named(subs(sub(document, 9), 1));
  const extensions = named(subs(definitions.get('io.k8s.api.rbac.v1.Role')!, 31));
  const gvk = text(extensions.get('x-kubernetes-group-version-kind')!, 2)!;
  assert.deepEqual(JSON.parse(gvk), [{ group: 'rbac.authorization.k8s.io', kind: 'Role', version: 'v1' }]);
  const ownerReferences = named(subs(sub(definitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!, 25), 1)).get('ownerReferences')!;
  const markers = named(subs(ownerReferences, 31));
  assert.deepEqual(JSON.parse(text(markers.get('x-kubernetes-list-map-keys')!, 2)!), ['uid']);
});

test('operations: ID, query, path and body parameters, responses, extensions', () => {
  const paths = named(subs(sub(document, 8), 2));
  const item = paths.get('/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles')!;
  const post = sub(item, 4);
  assert.equal(text(post, 5), 'createRbacAuthorizationV1NamespacedRole');
  const parameters = subs(post, 8).map((p) => sub(p, 1));
  const body = sub(parameters[0]!, 1);
  assert.deepEqual([text(body, 2), text(body, 3), body.get(4)?.[0]], ['body', 'body', 1n]);
  assert.equal(text(sub(body, 5), 1), '#/definitions/io.k8s.api.rbac.v1.Role');
  const query = sub(sub(parameters[1]!, 2), 3);
  assert.deepEqual([text(query, 2), text(query, 4), text(query, 6)], ['query', 'dryRun', 'string']);
  const namespace = sub(sub(sub(subs(item, 9)[0]!, 1), 2), 4);
  assert.deepEqual([namespace.get(1)?.[0], text(namespace, 2), text(namespace, 4), text(namespace, 5)], [1n, 'path', 'namespace', 'string']);
  const responses = named(subs(sub(post, 9), 1));
  assert.deepEqual([...responses.keys()], ['200', '201', '202', '401']);
  assert.equal(text(sub(sub(sub(responses.get('201')!, 1), 2), 1), 1), '#/definitions/io.k8s.api.rbac.v1.Role');
  assert.equal(text(sub(responses.get('401')!, 1), 1), 'Unauthorized');
  const extensions = named(subs(post, 13));
  assert.equal(JSON.parse(text(extensions.get('x-kubernetes-action')!, 2)!), 'post');
});

test('security: the BearerToken API key', () => {
  const definitions = named(subs(sub(document, 13), 1));
  const apiKey = sub(definitions.get('BearerToken')!, 2);
  assert.deepEqual([text(apiKey, 1), text(apiKey, 2), text(apiKey, 3)], ['apiKey', 'authorization', 'header']);
  assert.deepEqual([...named(subs(subs(document, 12)[0]!, 1)).keys()], ['BearerToken']);
});

test('numbers: doubles as 64-bit, integers as varints; a key without a field is an error', () => {
  const schema = { type: 'number', minimum: 1.5, maxLength: 300 };
  const encoded = decode(swaggerToProtobuf({ swagger: '2.0', definitions: { n: schema } }));
  const n = sub(subs(sub(encoded, 9), 1)[0]!, 2);
  assert.equal((n.get(9)![0] as Buffer).readDoubleLE(), 1.5);
  assert.equal(n.get(11)![0], 300n);
  assert.throws(() => swaggerToProtobuf({ swagger: '2.0', definitions: { n: { oneOf: [] } } }), /no field for oneOf/);
});

test('a custom resource\u2019s v2 schema: every keyword a CRD schema may hold has its field', () => {
  const crd = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        title: 'Spec',
        description: 'Every keyword.',
        minProperties: 1,
        maxProperties: 9,
        required: ['size', 'maybe'],
        'x-kubernetes-validations': [{ rule: 'self.size > 0', messageExpression: '"size " + string(self.size)' }],
        properties: {
          size: { type: 'number', format: 'double', minimum: -1.5, exclusiveMinimum: true, maximum: 9, multipleOf: 0.5, default: 1 },
          name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z]+$', enum: ['a', 'b', null], nullable: true },
          list: { type: 'array', minItems: 1, maxItems: 3, items: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
          open: { type: 'object', additionalProperties: true },
          maybe: { type: 'string', nullable: true },
          any: { 'x-kubernetes-preserve-unknown-fields': true, oneOf: [{ type: 'object' }, { type: 'array' }] },
        },
      },
    },
  };
  const gvk = { group: 'stable.example.com', kind: 'Gadget', version: 'v1' };
  const v2 = customResourceSchema(crd, 'v2', { objectMeta: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } }, gvk);
  const encoded = decode(swaggerToProtobuf({ swagger: '2.0', definitions: { gadget: v2 } }));
  const gadget = sub(subs(sub(encoded, 9), 1)[0]!, 2);
  const spec = named(subs(sub(gadget, 25), 1)).get('spec')!;
  assert.deepEqual([text(spec, 3), text(spec, 4), spec.get(18)?.[0], spec.get(17)?.[0]], ['Spec', 'Every keyword.', 1n, 9n]);
  assert.deepEqual(texts(spec, 19), ['size']);
  const rules = JSON.parse(text(named(subs(spec, 31)).get('x-kubernetes-validations')!, 2)!);
  assert.deepEqual(rules, [{ rule: 'self.size > 0', messageExpression: '"size " + string(self.size)' }]);
  const fields = named(subs(sub(spec, 25), 1));
  const size = fields.get('size')!;
  assert.deepEqual([(size.get(9)![0] as Buffer).readDoubleLE(), size.get(10)?.[0], (size.get(6)![0] as Buffer).readDoubleLE(), size.get(5)], [-1.5, 1n, 0.5, undefined]);
  const name = fields.get('name')!;
  assert.deepEqual(bytes(name, 20).map((any) => text(decode(any), 2)), ['"a"\n', '"b"\n', 'null\n']);
  assert.equal(name.get(22), undefined);
  assert.deepEqual([name.get(12)?.[0], name.get(11)?.[0], text(name, 13)], [1n, 63n, '^[a-z]+$']);
  const item = sub(sub(fields.get('list')!, 23), 1);
  assert.equal(JSON.parse(text(named(subs(item, 31)).get('x-kubernetes-int-or-string')!, 2)!), true);
  assert.deepEqual(sub(fields.get('open')!, 21).get(2), [1n]);
  assert.equal(fields.get('any')!.get(22), undefined);
});
