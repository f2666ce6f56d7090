import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROTOBUF_PREFIX, decodeObject, encodeObject } from './codec.js';
import { ProtobufError } from './errors.js';
import { fixtures } from './fixtures.test-support.js';
import type { JsonObject } from './compile.js';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { protobufKinds, registerProtobufKinds } from './kinds.js';
import { customResourceDefinitionSource } from './testing/crd-source.js';

// The kinds' Protobuf forms come from their definitions, as the server registers them (the
// CustomResourceDefinition's from its stand-in until its definition is a built-in kind).
registerProtobufKinds([...builtinDefinitions, ...builtinSubresourceDefinitions, customResourceDefinitionSource]);

const roundTrip = (object: JsonObject): JsonObject => decodeObject(encodeObject(object));

for (const [kind, object] of Object.entries(fixtures.objectsByKind)) {
  test(`round trip: ${kind}`, () => {
    const bytes = encodeObject(object);
    assert.deepEqual([...bytes.subarray(0, 4)], [...PROTOBUF_PREFIX]);
    assert.deepStrictEqual(decodeObject(bytes), object);
  });
}

test('every registered kind has a fixture or a list fixture', () => {
  for (const { kind } of protobufKinds()) {
    const base = kind.endsWith('List') ? kind.slice(0, -'List'.length) : kind;
    assert.ok(fixtures.objectsByKind[base], `no fixture for ${kind}`);
  }
});

for (const kind of ['Namespace', 'Node', 'ServiceAccount', 'LimitRange', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding', 'IPAddress', 'Lease', 'Event', 'Event (events)']) {
  test(`round trip: ${kind}List`, () => {
    const list = fixtures.listOf(fixtures.objectsByKind[kind]!, 3, { resourceVersion: '5000', continue: 'eyJydiI6NTAwMH0', remainingItemCount: 12 });
    assert.deepStrictEqual(roundTrip(list), list);
  });
  test(`round trip: an empty ${kind}List keeps items: []`, () => {
    const list = fixtures.listOf(fixtures.objectsByKind[kind]!, 0);
    assert.deepStrictEqual(roundTrip(list), list);
  });
}

test('round trip: a list of 5,000 RoleBindings', () => {
  const list = fixtures.roleBindingList(5000);
  assert.deepStrictEqual(roundTrip(list), list);
});

test('round trip: Status with retryAfterSeconds and list metadata', () => {
  assert.deepStrictEqual(roundTrip(fixtures.conflictStatus), fixtures.conflictStatus);
});

test('Status is found under any group version, as upstream registers it in each', () => {
  const status = { ...fixtures.invalidStatus, apiVersion: 'rbac.authorization.plat.io/v1' };
  assert.deepStrictEqual(roundTrip(status), status);
});

test('groups under either domain map to the same messages', () => {
  const k8s = JSON.parse(JSON.stringify(fixtures.roleBinding).replaceAll('plat.io', 'k8s.io')) as JsonObject;
  assert.equal(k8s.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.deepStrictEqual(roundTrip(k8s), k8s);
  const other = { ...fixtures.ipAddress, apiVersion: 'networking.example.com/v1alpha1' };
  assert.deepStrictEqual(roundTrip(other), other);
});

test('zero values of omitempty fields are dropped, as Go drops them', () => {
  const role = {
    kind: 'Role',
    apiVersion: 'rbac.authorization.plat.io/v1',
    metadata: { name: 'r', namespace: '', generation: 0, labels: {}, finalizers: [] },
    rules: [],
  };
  assert.deepStrictEqual(roundTrip(role), { kind: 'Role', apiVersion: 'rbac.authorization.plat.io/v1', metadata: { name: 'r' } });
});

test('fields that are not omitempty upstream read back with their zero value', () => {
  const binding = {
    kind: 'RoleBinding',
    apiVersion: 'rbac.authorization.plat.io/v1',
    metadata: { name: 'b' },
    subjects: [{ kind: 'User', name: '' }],
    roleRef: { kind: 'Role', name: 'r' },
  };
  assert.deepStrictEqual(roundTrip(binding), {
    ...binding,
    subjects: [{ kind: 'User', name: '' }],
    roleRef: { apiGroup: '', kind: 'Role', name: 'r' },
  });
  const review = { ...fixtures.selfSubjectRulesReview, status: {} };
  assert.deepStrictEqual(roundTrip(review).status, { resourceRules: [], nonResourceRules: [], incomplete: false });
});

test('pointer fields keep a zero value (controller: false, automountServiceAccountToken: false)', () => {
  const decoded = roundTrip(fixtures.serviceAccount);
  assert.equal(decoded.automountServiceAccountToken, false);
  const metadata = decoded.metadata as { ownerReferences: JsonObject[]; deletionGracePeriodSeconds?: number };
  assert.equal(metadata.ownerReferences[0]!.blockOwnerDeletion, false);
  assert.equal((roundTrip(fixtures.namespace).metadata as JsonObject).deletionGracePeriodSeconds, 0);
});

test('Lease: MicroTimes keep their microseconds, and pointer fields keep their zero values', () => {
  const lease = {
    kind: 'Lease',
    apiVersion: 'coordination.plat.io/v1',
    metadata: { name: 'l', namespace: 'kube-system' },
    spec: { holderIdentity: '', acquireTime: '1999-12-31T23:59:59.999999Z', renewTime: '2024-05-01T10:00:10.000010Z', leaseTransitions: 0 },
  };
  assert.deepStrictEqual(roundTrip(lease), lease);
  // A MicroTime is two fields on the wire (seconds 1, nanos 2), not Time's whole seconds.
  const spec = (roundTrip({ ...lease, spec: { renewTime: '2024-05-01T12:00:10.123456+02:00' } }).spec as JsonObject);
  assert.deepStrictEqual(spec, { renewTime: '2024-05-01T10:00:10.123456Z' });
  // A spec with nothing set is still written (an empty message, as upstream's non-pointer spec) and read back.
  assert.deepStrictEqual(roundTrip({ ...lease, spec: {} }).spec, {});
});

test('Time is carried in whole seconds (upstream drops the fraction); other offsets become UTC', () => {
  const role = { ...fixtures.role, metadata: { name: 'r', creationTimestamp: '2024-05-01T12:00:00.75+02:00' } };
  assert.equal((roundTrip(role).metadata as JsonObject).creationTimestamp, '2024-05-01T10:00:00Z');
});

test('quantities are carried as text, a number quantity becomes its text', () => {
  const limits = { kind: 'LimitRange', apiVersion: 'v1', metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { cpu: 2 } }] } };
  assert.deepStrictEqual((roundTrip(limits).spec as JsonObject).limits, [{ type: 'Container', max: { cpu: '2' } }]);
});

test('fields the message does not have are dropped, list items lose apiVersion and kind', () => {
  const role = { ...fixtures.role, status: { phase: 'x' }, spec: {} };
  assert.deepStrictEqual(roundTrip(role), fixtures.role);
  const list = { kind: 'RoleList', apiVersion: 'rbac.authorization.plat.io/v1', metadata: {}, items: [fixtures.role] };
  const { kind: _kind, apiVersion: _apiVersion, ...item } = fixtures.role;
  assert.deepStrictEqual(roundTrip(list), { ...list, items: [item] });
});

test('a label keyed "__proto__" stays an own key', () => {
  const role = { kind: 'Role', apiVersion: 'rbac.authorization.plat.io/v1', metadata: JSON.parse('{"name":"r","labels":{"__proto__":"x"}}') as JsonObject };
  const decoded = roundTrip(role);
  assert.deepStrictEqual(Object.keys((decoded.metadata as { labels: JsonObject }).labels), ['__proto__']);
  assert.deepStrictEqual(decoded, role);
});

test('a body without the prefix is rejected: MissingPrefix', () => {
  for (const body of [Buffer.from(JSON.stringify(fixtures.role)), encodeObject(fixtures.role).subarray(4), new Uint8Array([0x6b, 0x38, 0x73])]) {
    assert.throws(
      () => decodeObject(body),
      (err: unknown) => err instanceof ProtobufError && err.reason === 'MissingPrefix' && err.message.startsWith('missing prefix'),
    );
  }
});

test('an empty or truncated body is rejected: Malformed', () => {
  const bytes = encodeObject(fixtures.roleBinding);
  for (const body of [new Uint8Array(0), PROTOBUF_PREFIX, bytes.subarray(0, bytes.length - 30), bytes.subarray(0, 12)]) {
    assert.throws(() => decodeObject(body), (err: unknown) => err instanceof ProtobufError && err.reason === 'Malformed');
  }
});

test('a kind without a Protobuf form: NotRegistered, when encoding and when decoding', () => {
  const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' } };
  assert.throws(() => encodeObject(pod), (err: unknown) => err instanceof ProtobufError && err.reason === 'NotRegistered');
  const widget = { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w' } };
  assert.throws(() => encodeObject(widget), (err: unknown) => err instanceof ProtobufError && err.reason === 'NotRegistered');
  // A Role's bytes relabelled as a Pod.
  const relabelled = encodeObject(fixtures.role);
  const at = Buffer.from(relabelled).indexOf('Role');
  const bytes = Buffer.from(relabelled);
  bytes.write('Podx', at);
  assert.throws(() => decodeObject(bytes), (err: unknown) => err instanceof ProtobufError && err.reason === 'NotRegistered');
});

test('a value that does not fit its field: InvalidValue, naming the field', () => {
  const cases: [JsonObject, string][] = [
    [{ ...fixtures.role, metadata: { name: 'r', labels: { app: 1 } } }, 'Role.metadata.labels[app]: expected string, got number'],
    [{ ...fixtures.roleBinding, subjects: [{ kind: 'User', name: 'a' }, { kind: 'User', name: null, namespace: 7 }] }, 'RoleBinding.subjects[1].namespace: expected string, got number'],
    [{ ...fixtures.role, rules: { verbs: ['get'] } }, 'Role.rules: expected array, got object'],
    [{ ...fixtures.role, metadata: { name: 'r', generation: 1.5 } }, 'Role.metadata.generation: expected integer, got number'],
    [{ ...fixtures.role, metadata: { name: 'r', creationTimestamp: 'yesterday' } }, 'Role.metadata.creationTimestamp: "yesterday" is not an RFC 3339 time'],
    [{ ...fixtures.limitRange, spec: { limits: [{ type: 'Container', max: { cpu: {} } }] } }, 'LimitRange.spec.limits[0].max[cpu]: expected a quantity string, got object'],
    [{ kind: 'Role', metadata: {} }, 'apiVersion: the object must have a non-empty string apiVersion'],
  ];
  for (const [object, message] of cases) {
    assert.throws(() => encodeObject(object), (err: unknown) => err instanceof ProtobufError && err.reason === 'InvalidValue' && err.message === message, message);
  }
});

test('where the envelope lacks kind or apiVersion, the expected ones are used (copyKindDefaults)', () => {
  // An Unknown with only raw: 0x12 <len> <Role message>.
  const full = encodeObject(fixtures.role);
  const typeMetaLength = full[5]!;
  const rest = full.subarray(4 + 2 + typeMetaLength);
  const bare = Buffer.concat([PROTOBUF_PREFIX, rest]);
  assert.throws(() => decodeObject(bare), (err: unknown) => err instanceof ProtobufError && err.reason === 'Malformed');
  const decoded = decodeObject(bare, { group: 'rbac.authorization.plat.io', version: 'v1', kind: 'Role' });
  assert.deepStrictEqual(decoded, fixtures.role);
});

test('int64 fields keep large and negative values (varints of up to 10 bytes)', () => {
  for (const value of [0, 1, 127, 128, 2 ** 31, 2 ** 32 + 5, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER, -1, -5, -(2 ** 40)]) {
    const role = { kind: 'Role', apiVersion: 'rbac.authorization.plat.io/v1', metadata: { name: 'r', deletionGracePeriodSeconds: value } };
    assert.deepStrictEqual(roundTrip(role), role, String(value));
  }
});

test('round trip: a v1alpha1 ValidatingAdmissionPolicy, of the same shape as v1beta1', () => {
  const object = { ...fixtures.validatingAdmissionPolicy, apiVersion: 'admissionregistration.plat.io/v1alpha1' };
  assert.deepStrictEqual(roundTrip(object), object);
});

test('ValidatingAdmissionPolicy: a rule is inline in JSON and its own message on the wire, defaults kept by presence', () => {
  const rule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' };
  const object = {
    kind: 'ValidatingAdmissionPolicyBinding',
    apiVersion: 'admissionregistration.plat.io/v1beta1',
    metadata: { name: 'b' },
    spec: { policyName: 'p', matchResources: { namespaceSelector: {}, objectSelector: {}, resourceRules: [rule], matchPolicy: 'Equivalent' }, validationActions: ['Deny'] },
  };
  assert.deepStrictEqual(roundTrip(object), object);
  // A rule without a scope reads back without one (a pointer): nothing is made up.
  const bare = structuredClone(object);
  delete (bare.spec.matchResources.resourceRules[0] as { scope?: string }).scope;
  assert.deepStrictEqual(roundTrip(bare), bare);
});
