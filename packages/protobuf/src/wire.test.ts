// An independent check of the bytes: a protobuf reader written here from the wire format alone
// (varints, tags, length-delimited fields), which knows nothing of protobufjs or of our .proto
// files, walks what encodeObject writes and checks the field numbers of upstream's generated.proto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeObject } from './codec.js';
import { decodeWatchFrames, encodeWatchEvent } from './watch.js';
import { fixtures } from './fixtures.test-support.js';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { registerProtobufKinds } from './kinds.js';
import { customResourceDefinitionSource } from './testing/crd-source.js';

// The kinds' Protobuf forms come from their definitions, as the server registers them.
registerProtobufKinds([...builtinDefinitions, ...builtinSubresourceDefinitions, customResourceDefinitionSource]);

interface Field {
  number: number;
  wireType: number;
  /** The varint of wire type 0, or the bytes of wire type 2, or the 8 bytes of wire type 1 (fixed64). */
  value: bigint | Uint8Array;
}

function varint(bytes: Uint8Array, at: number): [value: bigint, next: number] {
  let value = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error('truncated varint');
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [value, at];
  }
}

function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    const [tag, afterTag] = varint(bytes, at);
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (wireType === 0) {
      const [value, next] = varint(bytes, afterTag);
      out.push({ number, wireType, value });
      at = next;
    } else if (wireType === 2) {
      const [length, start] = varint(bytes, afterTag);
      const end = start + Number(length);
      assert.ok(end <= bytes.length, 'length-delimited field runs past the end');
      out.push({ number, wireType, value: bytes.subarray(start, end) });
      at = end;
    } else if (wireType === 1) {
      assert.ok(afterTag + 8 <= bytes.length, 'fixed64 field runs past the end');
      out.push({ number, wireType, value: bytes.subarray(afterTag, afterTag + 8) });
      at = afterTag + 8;
    } else {
      throw new Error(`unexpected wire type ${wireType}`);
    }
  }
  return out;
}

const all = (bytes: Uint8Array, number: number): Field[] => fields(bytes).filter((f) => f.number === number);
function one(bytes: Uint8Array, number: number): Field {
  const found = all(bytes, number);
  assert.equal(found.length, 1, `field ${number} appears ${found.length} times`);
  return found[0]!;
}
const bytesOf = (bytes: Uint8Array, number: number): Uint8Array => {
  const f = one(bytes, number);
  assert.equal(f.wireType, 2, `field ${number} is not length-delimited`);
  return f.value as Uint8Array;
};
const text = (bytes: Uint8Array, number: number): string => Buffer.from(bytesOf(bytes, number)).toString('utf8');
const texts = (bytes: Uint8Array, number: number): string[] => all(bytes, number).map((f) => Buffer.from(f.value as Uint8Array).toString('utf8'));
const number = (bytes: Uint8Array, n: number): bigint => {
  const f = one(bytes, n);
  assert.equal(f.wireType, 0, `field ${n} is not a varint`);
  return f.value as bigint;
};

/** The envelope: prefix, then runtime.Unknown {typeMeta 1 {apiVersion 1, kind 2}, raw 2, contentEncoding 3, contentType 4}. */
function envelope(bytes: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array } {
  assert.deepEqual([...bytes.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  const unknown = bytes.subarray(4);
  assert.deepEqual(
    fields(unknown).map((f) => f.number),
    [1, 2, 3, 4],
  );
  assert.equal(text(unknown, 3), '');
  assert.equal(text(unknown, 4), '');
  const typeMeta = bytesOf(unknown, 1);
  return { apiVersion: text(typeMeta, 1), kind: text(typeMeta, 2), raw: bytesOf(unknown, 2) };
}

test('the envelope: prefix, Unknown with typeMeta (apiVersion 1, kind 2), raw, empty contentEncoding and contentType', () => {
  const { apiVersion, kind } = envelope(encodeObject(fixtures.role));
  assert.equal(apiVersion, 'rbac.authorization.plat.io/v1');
  assert.equal(kind, 'Role');
});

test('ObjectMeta: name 1, namespace 3, uid 5, resourceVersion 6, generation 7, creationTimestamp 8 {seconds 1}, labels 11', () => {
  const { raw } = envelope(encodeObject(fixtures.role));
  const metadata = bytesOf(raw, 1);
  assert.equal(text(metadata, 1), 'pod-reader');
  assert.equal(text(metadata, 3), 'team-a');
  assert.equal(text(metadata, 5), (fixtures.role.metadata as { uid: string }).uid);
  assert.equal(text(metadata, 6), '4711');
  assert.equal(number(metadata, 7), 2n);
  const created = bytesOf(metadata, 8);
  assert.equal(number(created, 1), BigInt(Date.UTC(2024, 4, 1, 10) / 1000));
  // map<string, string>: each entry a message {key 1, value 2}.
  const labels = all(metadata, 11).map((f) => [text(f.value as Uint8Array, 1), text(f.value as Uint8Array, 2)]);
  assert.deepEqual(labels, [
    ['app', 'shop'],
    ['plat.io/part-of', 'billing'],
  ]);
  // managedFields 17: manager 1, operation 2, apiVersion 3, time 4, fieldsType 6, fieldsV1 7 {Raw 1: JSON}, subresource 8.
  const [first, second] = all(metadata, 17).map((f) => f.value as Uint8Array);
  assert.equal(text(first!, 1), 'kubectl-client-side-apply');
  assert.equal(text(first!, 6), 'FieldsV1');
  assert.deepEqual(JSON.parse(text(bytesOf(first!, 7), 1)), { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
  assert.equal(text(second!, 8), 'status');
});

test('Role: rules 2, each PolicyRule verbs 1, apiGroups 2, resources 3, resourceNames 4', () => {
  const { raw } = envelope(encodeObject(fixtures.role));
  const rules = all(raw, 2).map((f) => f.value as Uint8Array);
  assert.equal(rules.length, 2);
  assert.deepEqual(texts(rules[0]!, 1), ['get', 'list', 'watch']);
  assert.deepEqual(texts(rules[0]!, 2), ['']);
  assert.deepEqual(texts(rules[0]!, 3), ['pods', 'pods/log']);
  assert.deepEqual(texts(rules[0]!, 4), ['web-0']);
});

test('ClusterRole: aggregationRule 3 {clusterRoleSelectors 1 {matchLabels 1, matchExpressions 2}}; PolicyRule nonResourceURLs 5', () => {
  const { raw } = envelope(encodeObject(fixtures.clusterRole));
  assert.deepEqual(texts(all(raw, 2).at(-1)!.value as Uint8Array, 5), ['/healthz', '/metrics']);
  const selector = bytesOf(bytesOf(raw, 3), 1);
  assert.equal(text(bytesOf(selector, 1), 1), 'rbac.plat.io/aggregate-to-monitoring');
  const [inExpr] = all(selector, 2).map((f) => f.value as Uint8Array);
  assert.equal(text(inExpr!, 1), 'tier');
  assert.equal(text(inExpr!, 2), 'In');
  assert.deepEqual(texts(inExpr!, 3), ['frontend', 'backend']);
});

test('RoleBinding: subjects 2 {kind 1, apiGroup 2, name 3, namespace 4}, roleRef 3 {apiGroup 1, kind 2, name 3}', () => {
  const { raw } = envelope(encodeObject(fixtures.roleBinding));
  const subjects = all(raw, 2).map((f) => f.value as Uint8Array);
  assert.equal(text(subjects[0]!, 1), 'User');
  assert.equal(text(subjects[0]!, 2), 'rbac.authorization.plat.io');
  assert.equal(text(subjects[0]!, 3), 'alice@example.com');
  assert.equal(text(subjects[2]!, 4), 'team-a');
  const roleRef = bytesOf(raw, 3);
  assert.deepEqual([text(roleRef, 1), text(roleRef, 2), text(roleRef, 3)], ['rbac.authorization.plat.io', 'Role', 'pod-reader']);
});

test('LimitRange: spec 2 {limits 1 {type 1, max 2 ... maxLimitRequestRatio 6}}, Quantity {string 1}', () => {
  const { raw } = envelope(encodeObject(fixtures.limitRange));
  const limit = all(bytesOf(raw, 2), 1)[0]!.value as Uint8Array;
  assert.equal(text(limit, 1), 'Container');
  const entry = (n: number): [string, string][] =>
    all(limit, n).map((f) => [text(f.value as Uint8Array, 1), text(bytesOf(f.value as Uint8Array, 2), 1)]);
  assert.deepEqual(entry(2), [
    ['cpu', '2'],
    ['memory', '1Gi'],
  ]);
  assert.deepEqual(entry(4), [
    ['cpu', '500m'],
    ['memory', '256Mi'],
  ]);
  assert.deepEqual(entry(6), [['cpu', '4']]);
});

test('ServiceAccount: secrets 2 (ObjectReference kind 1 ... fieldPath 7), imagePullSecrets 3, automountServiceAccountToken 4', () => {
  const { raw } = envelope(encodeObject(fixtures.serviceAccount));
  const secret = all(raw, 2)[0]!.value as Uint8Array;
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => text(secret, n)), ['Secret', 'team-a', 'builder-token', 'b1', 'v1', '9', 'data']);
  assert.equal(text(bytesOf(raw, 3), 1), 'registry');
  assert.equal(number(raw, 4), 0n);
  // OwnerReference: kind 1, name 3, uid 4, apiVersion 5, controller 6, blockOwnerDeletion 7.
  const owner = all(bytesOf(raw, 1), 13)[0]!.value as Uint8Array;
  assert.deepEqual([text(owner, 5), text(owner, 1), text(owner, 3)], ['apps/v1', 'Deployment', 'web']);
  assert.equal(number(owner, 6), 1n);
  assert.equal(number(owner, 7), 0n);
});

test('Namespace: spec 2 {finalizers 1}, status 3 {phase 1, conditions 2 {type 1, status 2, lastTransitionTime 4, reason 5, message 6}}', () => {
  const { raw } = envelope(encodeObject(fixtures.namespace));
  assert.deepEqual(texts(bytesOf(raw, 2), 1), ['plat']);
  const status = bytesOf(raw, 3);
  assert.equal(text(status, 1), 'Terminating');
  const condition = all(status, 2)[0]!.value as Uint8Array;
  assert.deepEqual([text(condition, 1), text(condition, 2), text(condition, 5)], ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted']);
  assert.ok(one(condition, 4));
  assert.equal(number(bytesOf(raw, 1), 10), 0n); // deletionGracePeriodSeconds 10
});

test('IPAddress: spec 2 {parentRef 1 {group 1, resource 2, namespace 3, name 4, uid 5}}', () => {
  const { apiVersion, raw } = envelope(encodeObject(fixtures.ipAddress));
  assert.equal(apiVersion, 'networking.plat.io/v1alpha1');
  const parent = bytesOf(bytesOf(raw, 2), 1);
  assert.deepEqual([2, 3, 4, 5].map((n) => text(parent, n)), ['services', 'default', 'kubernetes', '7e0c5f9a-0000-4000-8000-0000000000aa']);
});

test('Lease: spec 2 {holderIdentity 1, leaseDurationSeconds 2, acquireTime 3, renewTime 4 (MicroTime {seconds 1, nanos 2}), leaseTransitions 5}', () => {
  const { apiVersion, raw } = envelope(encodeObject(fixtures.lease));
  assert.equal(apiVersion, 'coordination.plat.io/v1');
  assert.equal(text(bytesOf(raw, 1), 1), 'plat-controller-manager');
  const spec = bytesOf(raw, 2);
  assert.equal(text(spec, 1), 'controller-0_5d2f0a4e-0000-4000-8000-000000000004');
  assert.equal(number(spec, 2), 15n);
  const acquired = bytesOf(spec, 3);
  assert.deepEqual([number(acquired, 1), number(acquired, 2)], [BigInt(Date.UTC(2024, 4, 1, 10) / 1000), 1000n]);
  const renewed = bytesOf(spec, 4);
  assert.deepEqual([number(renewed, 1), number(renewed, 2)], [BigInt(Date.UTC(2024, 4, 1, 10, 5, 30) / 1000), 123_456_000n]);
  assert.equal(number(spec, 5), 3n);
});

test('SubjectAccessReview: spec 2 {resourceAttributes 1 (namespace 1 ... name 7), user 3, groups 4, extra 5 {ExtraValue items 1}, uid 6}, status 3 {allowed 1, reason 2}', () => {
  const { raw } = envelope(encodeObject(fixtures.subjectAccessReview));
  const spec = bytesOf(raw, 2);
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => text(bytesOf(spec, 1), n)), ['team-a', 'list', 'apps', 'v1', 'deployments', 'scale', 'web']);
  assert.equal(text(spec, 3), 'alice@example.com');
  assert.deepEqual(texts(spec, 4), ['developers', 'system:authenticated']);
  const extra = all(spec, 5).map((f) => [text(f.value as Uint8Array, 1), texts(bytesOf(f.value as Uint8Array, 2), 1)]);
  assert.deepEqual(extra, [
    ['example.com/empty', []],
    ['scopes', ['read', 'write']],
  ]);
  assert.equal(text(spec, 6), 'u-1234');
  assert.equal(number(bytesOf(raw, 3), 1), 1n);
});

test('SelfSubjectRulesReview status 3: resourceRules 1, nonResourceRules 2, incomplete 3, evaluationError 4', () => {
  const { raw } = envelope(encodeObject(fixtures.selfSubjectRulesReview));
  assert.equal(text(bytesOf(raw, 2), 1), 'team-a');
  const status = bytesOf(raw, 3);
  assert.equal(all(status, 1).length, 2);
  assert.deepEqual(texts(bytesOf(status, 2), 2), ['/api', '/api/*']);
  assert.equal(number(status, 3), 1n);
  assert.equal(text(status, 4), 'webhook authorizer does not support rules');
});

test('TokenRequest: spec 2 {audiences 1, boundObjectRef 3 {kind 1, apiVersion 2, name 3, uID 4}, expirationSeconds 4}, status 3 {token 1, expirationTimestamp 2}', () => {
  const { raw } = envelope(encodeObject(fixtures.tokenRequest));
  const spec = bytesOf(raw, 2);
  assert.deepEqual(texts(spec, 1), ['https://plat.default.svc', 'vault']);
  assert.equal(number(spec, 4), 3600n);
  assert.deepEqual([1, 2, 3, 4].map((n) => text(bytesOf(spec, 3), n)), ['Pod', 'v1', 'web-0', '5d2f0a4e-0000-4000-8000-000000000003']);
  assert.equal(text(bytesOf(raw, 3), 1), 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln');
});

test('TokenReview status 3 {authenticated 1, user 2 {username 1, uid 2, groups 3, extra 4}, audiences 4}; SelfSubjectReview status 2 {userInfo 1}', () => {
  const review = envelope(encodeObject(fixtures.tokenReview)).raw;
  const status = bytesOf(review, 3);
  assert.equal(number(status, 1), 1n);
  assert.equal(text(bytesOf(status, 2), 1), 'system:serviceaccount:team-a:builder');
  assert.deepEqual(texts(status, 4), ['https://plat.default.svc']);
  const self = envelope(encodeObject(fixtures.selfSubjectReview)).raw;
  assert.equal(text(bytesOf(bytesOf(self, 2), 1), 1), 'system:serviceaccount:team-a:builder');
});

test('Status: metadata 1, status 2, message 3, reason 4, details 5 {name 1, group 2, kind 3, causes 4 {reason 1, message 2, field 3}}, code 6', () => {
  const { apiVersion, kind, raw } = envelope(encodeObject(fixtures.invalidStatus));
  assert.deepEqual([apiVersion, kind], ['v1', 'Status']);
  assert.equal(bytesOf(raw, 1).length, 0);
  assert.deepEqual([text(raw, 2), text(raw, 4)], ['Failure', 'Invalid']);
  assert.equal(number(raw, 6), 422n);
  const details = bytesOf(raw, 5);
  assert.deepEqual([text(details, 1), text(details, 2), text(details, 3)], ['read-pods', 'rbac.authorization.plat.io', 'RoleBinding']);
  const cause = all(details, 4)[0]!.value as Uint8Array;
  assert.deepEqual([text(cause, 1), text(cause, 2), text(cause, 3)], ['FieldValueRequired', 'Required value', 'subjects[0].name']);
});

test('a list: metadata 1 (ListMeta resourceVersion 2, continue 3, remainingItemCount 4), items 2 without type', () => {
  const list = fixtures.listOf(fixtures.role, 2, { resourceVersion: '5000', continue: 'next', remainingItemCount: 7 });
  const { kind, raw } = envelope(encodeObject(list));
  assert.equal(kind, 'RoleList');
  const listMeta = bytesOf(raw, 1);
  assert.deepEqual([text(listMeta, 2), text(listMeta, 3)], ['5000', 'next']);
  assert.equal(number(listMeta, 4), 7n);
  const items = all(raw, 2).map((f) => f.value as Uint8Array);
  assert.deepEqual(items.map((item) => text(bytesOf(item, 1), 1)), ['pod-reader-0', 'pod-reader-1']);
});

test('a watch frame: 4-byte big-endian length, then a bare WatchEvent {type 1, object 2 {raw 1: the enveloped object}}', () => {
  const frame = encodeWatchEvent('ADDED', fixtures.role);
  const length = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(0, false);
  assert.equal(length, frame.length - 4);
  const event = frame.subarray(4);
  // No prefix before the WatchEvent: upstream's stream serializer is the raw one.
  assert.notDeepEqual([...event.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  assert.equal(text(event, 1), 'ADDED');
  const raw = bytesOf(bytesOf(event, 2), 1);
  assert.deepEqual(envelope(raw).kind, 'Role');
  assert.deepStrictEqual(decodeObject(raw), fixtures.role);
});

// ---- bytes as Go writes them ----

/** A tiny writer for messages laid out as upstream's generated Go code lays them out. */
const enc = {
  varint(n: number): number[] {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    return out;
  },
  field(number: number, value: string | number[] | Uint8Array): number[] {
    const bytes = typeof value === 'string' ? [...Buffer.from(value)] : [...value];
    return [...enc.varint((number << 3) | 2), ...enc.varint(bytes.length), ...bytes];
  },
  int(number: number, value: number): number[] {
    return [...enc.varint(number << 3), ...enc.varint(value)];
  },
};

test('bytes as a Go client writes them (every non-pointer field, zero or not) read back as clean JSON', () => {
  // Go writes every non-pointer field: empty strings, generation 0, an empty creationTimestamp.
  const objectMeta = [
    ...enc.field(1, 'builder'),
    ...enc.field(2, ''),
    ...enc.field(3, 'team-a'),
    ...enc.field(4, ''),
    ...enc.field(5, ''),
    ...enc.field(6, ''),
    ...enc.int(7, 0),
    ...enc.field(8, []),
  ];
  const serviceAccount = [...enc.field(1, objectMeta), ...enc.int(4, 1)];
  const unknown = [...enc.field(1, [...enc.field(1, 'v1'), ...enc.field(2, 'ServiceAccount')]), ...enc.field(2, serviceAccount), ...enc.field(3, ''), ...enc.field(4, '')];
  const decoded = decodeObject(new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...unknown]));
  assert.deepStrictEqual(decoded, {
    kind: 'ServiceAccount',
    apiVersion: 'v1',
    metadata: { name: 'builder', namespace: 'team-a' },
    automountServiceAccountToken: true,
  });

  // A RoleBinding whose subject Go wrote with an empty apiGroup and namespace, and whose Namespace
  // spec and status Go wrote although empty (non-pointer structs).
  const binding = [
    ...enc.field(1, enc.field(1, 'b')),
    ...enc.field(2, [...enc.field(1, 'ServiceAccount'), ...enc.field(2, ''), ...enc.field(3, 'default'), ...enc.field(4, '')]),
    ...enc.field(3, [...enc.field(1, 'rbac.authorization.k8s.io'), ...enc.field(2, 'Role'), ...enc.field(3, 'r')]),
  ];
  const wrapped = [0x6b, 0x38, 0x73, 0x00, ...enc.field(1, [...enc.field(1, 'rbac.authorization.k8s.io/v1'), ...enc.field(2, 'RoleBinding')]), ...enc.field(2, binding)];
  assert.deepStrictEqual(decodeObject(new Uint8Array(wrapped)), {
    kind: 'RoleBinding',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    metadata: { name: 'b' },
    subjects: [{ kind: 'ServiceAccount', name: 'default' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
  });
});

test('a Lease as Go writes it: renewTime with nanoseconds; strategy 6, from a newer upstream, skipped', () => {
  const renewTime = [...enc.int(1, Date.UTC(2024, 4, 1, 10) / 1000), ...enc.int(2, 123_456_789)];
  const spec = [...enc.field(1, 'a'), ...enc.int(2, 15), ...enc.field(4, renewTime), ...enc.int(5, 0), ...enc.field(6, 'OldestEmulationVersion')];
  const lease = [...enc.field(1, [...enc.field(1, 'l'), ...enc.field(3, 'kube-system')]), ...enc.field(2, spec)];
  const unknown = [...enc.field(1, [...enc.field(1, 'coordination.k8s.io/v1'), ...enc.field(2, 'Lease')]), ...enc.field(2, lease)];
  assert.deepStrictEqual(decodeObject(new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...unknown])), {
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    metadata: { name: 'l', namespace: 'kube-system' },
    // MicroTime's JSON form has six fraction digits: the nanoseconds beyond are dropped, as Go formats them.
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2024-05-01T10:00:00.123456Z', leaseTransitions: 0 },
  });
});

test('unknown fields (from a newer upstream) are skipped', () => {
  const { raw } = envelope(encodeObject(fixtures.role));
  // ResourceAttributes-style additions: field 99 (varint), field 100 (bytes), appended to the Role.
  const newer = [...raw, ...enc.int(99, 5), ...enc.field(100, 'future')];
  const unknown = [...enc.field(1, [...enc.field(1, 'rbac.authorization.plat.io/v1'), ...enc.field(2, 'Role')]), ...enc.field(2, newer)];
  assert.deepStrictEqual(decodeObject(new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...unknown])), fixtures.role);
});

test('decodeWatchFrames reads back what encodeWatchEvent writes, frame after frame', () => {
  const bookmark = { kind: 'Role', apiVersion: 'rbac.authorization.plat.io/v1', metadata: { resourceVersion: '4712', annotations: { 'plat.io/initial-events-end': 'true' } } };
  const events = [
    { type: 'ADDED', object: fixtures.role },
    { type: 'MODIFIED', object: { ...fixtures.role, rules: [] } },
    { type: 'BOOKMARK', object: bookmark },
    { type: 'DELETED', object: fixtures.role },
    { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (4711)', reason: 'Expired', code: 410 } },
  ];
  const stream = Buffer.concat(events.map(({ type, object }) => encodeWatchEvent(type, object)));
  const { rules: _rules, ...withoutRules } = fixtures.role;
  assert.deepStrictEqual(decodeWatchFrames(stream), [events[0], { type: 'MODIFIED', object: withoutRules }, ...events.slice(2)]);
  assert.throws(() => decodeWatchFrames(stream.subarray(0, stream.length - 1)), /partial frame/);
});

// ---- CustomResourceDefinition (apiextensions/v1) ----

/** The value of a map<string, message> entry (key 1, value 2) of that key. */
function entry(bytes: Uint8Array, number: number, key: string): Uint8Array {
  const found = all(bytes, number).map((f) => f.value as Uint8Array).filter((e) => text(e, 1) === key);
  assert.equal(found.length, 1, `map ${number} has ${found.length} entries ${key}`);
  return bytesOf(found[0]!, 2);
}
const double = (bytes: Uint8Array, n: number): number => {
  const f = one(bytes, n);
  assert.equal(f.wireType, 1, `field ${n} is not a fixed64`);
  return Buffer.from(f.value as Uint8Array).readDoubleLE(0);
};

test('CustomResourceDefinition: spec 2 {group 1, names 3, scope 4, versions 7, conversion 9}, status 3; caBundle 2 as its bytes', () => {
  const { kind, raw } = envelope(encodeObject(fixtures.customResourceDefinition));
  assert.equal(kind, 'CustomResourceDefinition');
  const spec = bytesOf(raw, 2);
  assert.equal(text(spec, 1), 'stable.example.com');
  // names: plural 1, singular 2, shortNames 3, kind 4, listKind 5, categories 6.
  const names = bytesOf(spec, 3);
  assert.deepEqual([text(names, 1), text(names, 2), texts(names, 3), text(names, 4), text(names, 5), texts(names, 6)], ['crontabs', 'crontab', ['ct'], 'CronTab', 'CronTabList', ['all', 'batch']]);
  assert.equal(text(spec, 4), 'Namespaced');
  // versions: name 1, served 2, storage 3, schema 4, subresources 5, additionalPrinterColumns 6, deprecated 7, deprecationWarning 8.
  const [v1, v1beta1] = all(spec, 7).map((f) => f.value as Uint8Array);
  assert.deepEqual([text(v1!, 1), number(v1!, 2), number(v1!, 3)], ['v1', 1n, 1n]);
  assert.deepEqual([text(v1beta1!, 1), number(v1beta1!, 2), number(v1beta1!, 3), number(v1beta1!, 7), text(v1beta1!, 8)], ['v1beta1', 0n, 0n, 1n, '']);
  // subresources: status 1 (empty), scale 2 {specReplicasPath 1, statusReplicasPath 2, labelSelectorPath 3}.
  const subresources = bytesOf(v1!, 5);
  assert.equal(bytesOf(subresources, 1).length, 0);
  const scale = bytesOf(subresources, 2);
  assert.deepEqual([text(scale, 1), text(scale, 2), text(scale, 3)], ['.spec.replicas', '.status.replicas', '.status.labelSelector']);
  // columns: name 1, type 2, format 3, description 4, priority 5, jsonPath 6.
  const [, replicas, age] = all(v1!, 6).map((f) => f.value as Uint8Array);
  assert.deepEqual([text(replicas!, 1), text(replicas!, 2), text(replicas!, 3), text(replicas!, 6)], ['Replicas', 'integer', 'int32', '.spec.replicas']);
  assert.deepEqual([text(age!, 1), number(age!, 5)], ['Age', 1n]);
  // conversion: strategy 1, webhook 2 {clientConfig 2 {service 1 {namespace 1, name 2, path 3, port 4}, caBundle 2}, conversionReviewVersions 3}.
  const conversion = bytesOf(spec, 9);
  assert.equal(text(conversion, 1), 'Webhook');
  const webhook = bytesOf(conversion, 2);
  assert.deepEqual(texts(webhook, 3), ['v1', 'v1beta1']);
  const clientConfig = bytesOf(webhook, 2);
  const service = bytesOf(clientConfig, 1);
  assert.deepEqual([text(service, 1), text(service, 2), text(service, 3), number(service, 4)], ['crontab-system', 'crontab-conversion', '/convert', 443n]);
  const caBundle = (fixtures.customResourceDefinition.spec as { conversion: { webhook: { clientConfig: { caBundle: string } } } }).conversion.webhook.clientConfig.caBundle;
  assert.deepEqual(Buffer.from(bytesOf(clientConfig, 2)), Buffer.from(caBundle, 'base64'));
  assert.match(Buffer.from(bytesOf(clientConfig, 2)).toString('latin1'), /^-----BEGIN CERTIFICATE-----\n/);
  // status: conditions 1 {type 1, status 2, lastTransitionTime 3, reason 4, message 5}, acceptedNames 2, storedVersions 3.
  const status = bytesOf(raw, 3);
  const [accepted] = all(status, 1).map((f) => f.value as Uint8Array);
  assert.deepEqual([text(accepted!, 1), text(accepted!, 2), number(bytesOf(accepted!, 3), 1), text(accepted!, 4)], ['NamesAccepted', 'True', BigInt(Date.UTC(2024, 4, 1, 10) / 1000), 'NoConflicts']);
  assert.equal(text(bytesOf(status, 2), 4), 'CronTab');
  assert.deepEqual(texts(status, 3), ['v1beta1', 'v1']);
});

test('JSONSchemaProps: each field at its number; doubles fixed64, JSON as its text, the unions as upstream lays them out', () => {
  const { raw } = envelope(encodeObject(fixtures.customResourceDefinition));
  const root = bytesOf(bytesOf(all(bytesOf(raw, 2), 7)[0]!.value as Uint8Array, 4), 1);
  assert.equal(text(root, 5), 'object');
  assert.equal(text(root, 4), 'A CronTab runs a command on a schedule.');
  assert.deepEqual(texts(root, 23), ['spec']);
  // x-kubernetes-validations 44: rule 1, message 2, messageExpression 3, reason 4, fieldPath 5.
  const [rule, expression] = all(root, 44).map((f) => f.value as Uint8Array);
  assert.deepEqual([text(rule!, 1), text(rule!, 2), text(rule!, 4), text(rule!, 5)], ['self.metadata.name.size() <= 63', 'name too long', 'FieldValueInvalid', '.metadata.name']);
  assert.equal(text(expression!, 3), '"spec is required for " + self.metadata.name');
  // properties 29: map entries {key 1, value 2}.
  const spec = entry(root, 29, 'spec');
  const prop = (name: string): Uint8Array => entry(spec, 29, name);
  // x-kubernetes-preserve-unknown-fields 38 (a *bool), false written.
  assert.equal(number(spec, 38), 0n);
  const replicas = prop('replicas');
  assert.deepEqual([text(replicas, 6), text(bytesOf(replicas, 8), 1), double(replicas, 9), number(replicas, 10), double(replicas, 11), double(replicas, 19)], ['int32', '1', 10.5, 1n, 0, 0.5]);
  const ratio = prop('ratio');
  assert.deepEqual([text(bytesOf(ratio, 8), 1), double(ratio, 11), number(ratio, 12), double(ratio, 9)], ['0.25', -1e-7, 1n, 1e21]);
  const cron = prop('cronSpec');
  assert.deepEqual([number(cron, 13), number(cron, 14), text(bytesOf(cron, 36), 1)], [256n, 0n, '"*/5 * * * *"']);
  assert.equal(text(cron, 15), '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$');
  assert.deepEqual([text(prop('image'), 7), text(bytesOf(prop('image'), 8), 1)], ['Image', '"busybox:1.36"']);
  assert.equal(number(prop('suspend'), 37), 1n);
  assert.equal(text(bytesOf(prop('selector'), 8), 1), '{"matchLabels":{"app":"web"},"tiers":[1,2]}');
  assert.equal(text(prop('selector'), 43), 'atomic');
  // enum 20: each member a JSON message; null is an empty one.
  assert.deepEqual(all(prop('mode'), 20).map((f) => Buffer.from(f.value as Uint8Array).length && text(f.value as Uint8Array, 1)), ['"Allow"', '1', '2.5', 'true', 'false', 0, '{"a":[1,"x"]}', '["nested"]']);
  // items 24 as a schema: JSONSchemaPropsOrArray {schema 1}; minItems 17, maxItems 16, uniqueItems 18, list-type 42.
  const args = prop('args');
  assert.deepEqual(fields(bytesOf(args, 24)).map((f) => f.number), [1]);
  assert.equal(text(bytesOf(bytesOf(args, 24), 1), 5), 'string');
  assert.deepEqual([number(args, 17), number(args, 16), number(args, 18), text(args, 42), text(bytesOf(args, 8), 1)], [0n, 64n, 1n, 'set', '[]']);
  // items as a list: {jSONSchemas 2, 2}; additionalItems 33: JSONSchemaPropsOrBool {allows 1} (false: 0).
  const tuple = prop('tuple');
  assert.deepEqual(fields(bytesOf(tuple, 24)).map((f) => f.number), [2, 2]);
  assert.deepEqual(fields(bytesOf(tuple, 33)).map((f) => [f.number, f.value]), [[1, 0n]]);
  assert.deepEqual(fields(bytesOf(prop('openTuple'), 33)).map((f) => [f.number, f.value]), [[1, 1n]]);
  // A schema in a JSONSchemaPropsOrBool: allows 1 true, then schema 2, as Go writes it.
  const typed = fields(bytesOf(prop('typedTuple'), 33));
  assert.deepEqual(typed.map((f) => f.number), [1, 2]);
  assert.equal(typed[0]!.value, 1n);
  assert.equal(text(typed[1]!.value as Uint8Array, 5), 'boolean');
  // additionalProperties 30; maxProperties 21, minProperties 22.
  const env = prop('env');
  assert.deepEqual(fields(bytesOf(env, 30)).map((f) => f.number), [1, 2]);
  assert.deepEqual([number(env, 21), number(env, 22)], [100n, 0n]);
  assert.deepEqual(fields(bytesOf(prop('labels'), 30)).map((f) => [f.number, f.value]), [[1, 1n]]);
  assert.deepEqual(fields(bytesOf(prop('closed'), 30)).map((f) => [f.number, f.value]), [[1, 0n]]);
  // list-map-keys 41; embedded-resource 39; int-or-string 40, anyOf 27.
  const ports = prop('ports');
  assert.deepEqual(texts(ports, 41), ['name', 'protocol']);
  assert.deepEqual([number(prop('template'), 39), number(prop('template'), 38)], [1n, 1n]);
  const port = entry(bytesOf(bytesOf(ports, 24), 1), 29, 'port');
  assert.deepEqual([number(port, 40), all(port, 27).length], [1n, 2]);
  // oneOf 26, allOf 25, not 28; patternProperties 31; definitions 34; $ref 3; id 1, $schema 2, externalDocs 35.
  const choice = prop('choice');
  assert.deepEqual([all(choice, 26).length, all(choice, 25).length, texts(bytesOf(choice, 28), 23)], [2, 1, ['c']]);
  assert.equal(text(entry(prop('byPattern'), 31, '^x-'), 5), 'string');
  assert.deepEqual([text(prop('described'), 3), text(entry(prop('described'), 34, 'thing'), 4)], ['#/definitions/thing', 'a thing']);
  const documented = prop('documented');
  assert.deepEqual([text(documented, 1), text(documented, 2), text(bytesOf(documented, 35), 1), text(bytesOf(documented, 35), 2)], ['urn:doc', 'http://json-schema.org/draft-04/schema#', 'the manual', 'https://example.com/doc']);
  // dependencies 32: JSONSchemaPropsOrStringArray {schema 1, property 2}.
  const dependent = prop('dependent');
  assert.deepEqual(texts(entry(dependent, 32, 'card'), 2), ['billingAddress', 'name']);
  assert.deepEqual(texts(bytesOf(entry(dependent, 32, 'billingAddress'), 1), 23), ['card']);
});

// Upstream's bytes for a small CRD, derived by hand from generated.proto's field numbers and
// generated.pb.go's MarshalToSizedBuffer: fields in number order; every non-pointer field written
// even when zero (empty strings, false); pointers only when set (a *bool false included); a
// JSONSchemaPropsOrBool writes allows always, and true with a schema; a JSON writes its raw text,
// or nothing for null; doubles as 8 little-endian bytes; map entries by sorted key.
// Our encoder writes the same bytes except the zero non-pointer fields the JSON form leaves out (a
// proto2 reader takes an absent field as zero), so each part is built as a pair: Go's and ours.
interface Pair {
  go: number[];
  ours: number[];
}
const same = (bytes: number[]): Pair => ({ go: bytes, ours: bytes });
/** A zero non-pointer field: Go writes it, we do not. */
const goOnly = (bytes: number[]): Pair => ({ go: bytes, ours: [] });
const cat = (...pairs: Pair[]): Pair => ({ go: pairs.flatMap((p) => p.go), ours: pairs.flatMap((p) => p.ours) });
const nested = (number: number, pair: Pair): Pair => ({ go: enc.field(number, pair.go), ours: enc.field(number, pair.ours) });

/** A JSONSchemaProps: the given fields (by number) and Go's zero non-pointer scalars, in number order. */
function schemaProps(given: Record<number, Pair>): Pair {
  const zeroStrings = [1, 2, 4, 5, 6, 7, 15];
  const zeroBools = [10, 12, 18, 37, 39, 40];
  const numbers = [...new Set([...zeroStrings, ...zeroBools, ...Object.keys(given).map(Number)])].sort((a, b) => a - b);
  return cat(...numbers.map((n) => given[n] ?? goOnly(zeroStrings.includes(n) ? enc.field(n, '') : enc.int(n, 0))));
}

test('a small CRD: our bytes are upstream\'s but for the zero non-pointer fields; upstream\'s bytes read back as its JSON', () => {
  const json = {
    kind: 'CustomResourceDefinition',
    apiVersion: 'apiextensions.k8s.io/v1',
    metadata: { name: 'ws.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'ws', kind: 'W' },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                labels: { type: 'object', additionalProperties: false },
                mode: { enum: ['a', null], 'x-kubernetes-preserve-unknown-fields': false },
                n: { type: 'number', default: 1.5, maximum: 10, minimum: -0.5 },
                tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
              },
            },
          },
        },
      ],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://c', caBundle: 'AAEC' }, conversionReviewVersions: ['v1'] } },
    },
  };
  const mapEntry = (key: string, value: Pair): Pair => nested(29, cat(same(enc.field(1, key)), nested(2, value)));
  const schema = schemaProps({
    5: same(enc.field(5, 'object')),
    29: cat(
      // additionalProperties 30 (tag f2 01): JSONSchemaPropsOrBool {allows 1: false}.
      mapEntry('labels', schemaProps({ 5: same(enc.field(5, 'object')), 30: same([0xf2, 0x01, 0x02, 0x08, 0x00]) })),
      mapEntry(
        'mode',
        schemaProps({
          // enum 20 (tag a2 01): JSON {raw 1: "a"}, then null as an empty JSON.
          20: same([0xa2, 0x01, 0x05, 0x0a, 0x03, 0x22, 0x61, 0x22, 0xa2, 0x01, 0x00]),
          // x-kubernetes-preserve-unknown-fields 38 (tag b0 02), a *bool: false written.
          38: same([0xb0, 0x02, 0x00]),
        }),
      ),
      mapEntry(
        'n',
        schemaProps({
          5: same(enc.field(5, 'number')),
          // default 8: JSON {raw 1: 1.5}.
          8: same([0x42, 0x05, 0x0a, 0x03, 0x31, 0x2e, 0x35]),
          // maximum 9 (tag 49): 10 is 0x4024000000000000; minimum 11 (tag 59): -0.5 is 0xbfe0000000000000.
          9: same([0x49, 0, 0, 0, 0, 0, 0, 0x24, 0x40]),
          11: same([0x59, 0, 0, 0, 0, 0, 0, 0xe0, 0xbf]),
        }),
      ),
      mapEntry(
        'tags',
        schemaProps({
          5: same(enc.field(5, 'array')),
          // maxItems 16 (tag 80 01), a *int64.
          16: same([0x80, 0x01, 0x03]),
          // items 24 (tag c2 01): JSONSchemaPropsOrArray {schema 1}.
          24: nested(24, nested(1, schemaProps({ 5: same(enc.field(5, 'string')) }))),
        }),
      ),
    ),
  });
  const version = cat(
    same([...enc.field(1, 'v1'), ...enc.int(2, 1), ...enc.int(3, 1)]),
    nested(4, nested(1, schema)),
    // deprecated 7, a non-pointer bool.
    goOnly(enc.int(7, 0)),
  );
  const names = cat(same(enc.field(1, 'ws')), goOnly(enc.field(2, '')), same(enc.field(4, 'W')), goOnly(enc.field(5, '')));
  // WebhookClientConfig: service 1 (nil), caBundle 2 (00 01 02), url 3: number order, not the .proto's.
  const clientConfig = same([...enc.field(2, [0x00, 0x01, 0x02]), ...enc.field(3, 'https://c')]);
  const conversion = cat(same(enc.field(1, 'Webhook')), nested(2, cat(nested(2, clientConfig), same(enc.field(3, 'v1')))));
  const spec = cat(
    same([...enc.field(1, 'example.com')]),
    nested(3, names),
    same(enc.field(4, 'Cluster')),
    nested(7, version),
    nested(9, conversion),
    // preserveUnknownFields 10, a non-pointer bool.
    goOnly(enc.int(10, 0)),
  );
  const metadata = cat(same(enc.field(1, 'ws.example.com')), goOnly([...enc.field(2, ''), ...enc.field(3, ''), ...enc.field(4, ''), ...enc.field(5, ''), ...enc.field(6, ''), ...enc.int(7, 0), ...enc.field(8, [])]));
  // status 3: Go writes the struct (and its acceptedNames) although empty.
  const status = goOnly(enc.field(3, enc.field(2, [...enc.field(1, ''), ...enc.field(2, ''), ...enc.field(4, ''), ...enc.field(5, '')])));
  const crd = cat(nested(1, metadata), nested(2, spec), status);

  assert.deepEqual([...envelope(encodeObject(json)).raw], crd.ours);
  const wrap = (raw: number[]): Uint8Array =>
    new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...enc.field(1, [...enc.field(1, json.apiVersion), ...enc.field(2, json.kind)]), ...enc.field(2, raw), ...enc.field(3, ''), ...enc.field(4, '')]);
  assert.deepStrictEqual(decodeObject(wrap(crd.ours)), json);
  // Upstream's JSON of the same object: the empty status Go wrote, with its required names.
  assert.deepStrictEqual(decodeObject(wrap(crd.go)), { ...json, status: { acceptedNames: { plural: '', kind: '' } } });
});
