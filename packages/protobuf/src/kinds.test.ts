import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { findProtobufKind, hasProtobuf, protobufGroup, protobufKinds, registerProtobufKinds, splitAPIVersion } from './kinds.js';
import { findMessageType, messageType } from './schema.js';

registerProtobufKinds([...builtinDefinitions, ...builtinSubresourceDefinitions]);

test('protobufGroup drops the domain of a group, whatever the domain', () => {
  assert.equal(protobufGroup(''), '');
  assert.equal(protobufGroup('rbac.authorization.plat.io'), 'rbac.authorization');
  assert.equal(protobufGroup('rbac.authorization.k8s.io'), 'rbac.authorization');
  assert.equal(protobufGroup('authorization.plat.io'), 'authorization');
  assert.equal(protobufGroup('authentication.k8s.io'), 'authentication');
  assert.equal(protobufGroup('networking.example.com'), 'networking');
  assert.equal(protobufGroup('coordination.plat.io'), 'coordination');
  assert.equal(protobufGroup('rbac.authorization'), 'rbac.authorization');
  assert.equal(protobufGroup('apps'), 'apps');
  assert.equal(protobufGroup('stable.example.com'), 'stable.example.com');
});

const cases: [group: string, version: string, kind: string, message: string | undefined][] = [
  ['', 'v1', 'Namespace', 'k8s.io.api.core.v1.Namespace'],
  ['', 'v1', 'ServiceAccountList', 'k8s.io.api.core.v1.ServiceAccountList'],
  ['rbac.authorization.plat.io', 'v1', 'ClusterRoleBinding', 'k8s.io.api.rbac.v1.ClusterRoleBinding'],
  ['rbac.authorization.k8s.io', 'v1', 'RoleList', 'k8s.io.api.rbac.v1.RoleList'],
  ['networking.plat.io', 'v1alpha1', 'IPAddress', 'k8s.io.api.networking.v1alpha1.IPAddress'],
  ['coordination.plat.io', 'v1', 'Lease', 'k8s.io.api.coordination.v1.Lease'],
  ['coordination.k8s.io', 'v1', 'LeaseList', 'k8s.io.api.coordination.v1.LeaseList'],
  ['', 'v1', 'Event', 'k8s.io.api.core.v1.Event'],
  ['events.plat.io', 'v1', 'Event', 'k8s.io.api.events.v1.Event'],
  ['events.k8s.io', 'v1', 'EventList', 'k8s.io.api.events.v1.EventList'],
  ['authorization.plat.io', 'v1', 'SelfSubjectRulesReview', 'k8s.io.api.authorization.v1.SelfSubjectRulesReview'],
  ['authentication.plat.io', 'v1', 'TokenRequest', 'k8s.io.api.authentication.v1.TokenRequest'],
  ['', 'v1', 'Status', 'k8s.io.apimachinery.pkg.apis.meta.v1.Status'],
  ['rbac.authorization.plat.io', 'v1', 'Status', 'k8s.io.apimachinery.pkg.apis.meta.v1.Status'],
  ['meta.plat.io', 'v1', 'DeleteOptions', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
  ['', 'v1', 'Pod', undefined],
  ['networking.plat.io', 'v1', 'IPAddress', undefined],
  ['rbac.authorization.plat.io', 'v1beta1', 'Role', undefined],
  ['coordination.plat.io', 'v1beta1', 'Lease', undefined],
  ['stable.example.com', 'v1', 'CronTab', undefined],
  ['meta.plat.io', 'v1', 'Table', undefined],
];

for (const [group, version, kind, message] of cases) {
  test(`${kind} in ${group || 'core'}/${version}: ${message ?? 'no Protobuf form'}`, () => {
    assert.equal(findProtobufKind(group, version, kind)?.message, message);
    assert.equal(hasProtobuf(group, version, kind), message !== undefined);
  });
}

test('every registered message exists in the .proto files', () => {
  for (const { message } of protobufKinds()) assert.ok(messageType(message), message);
});

test('splitAPIVersion', () => {
  assert.deepEqual(splitAPIVersion('v1'), { group: '', version: 'v1' });
  assert.deepEqual(splitAPIVersion('rbac.authorization.plat.io/v1'), { group: 'rbac.authorization.plat.io', version: 'v1' });
});

test('every built-in kind has a Protobuf form, its message in the .proto files, and a stored kind its list too', () => {
  for (const definition of [...builtinDefinitions, ...builtinSubresourceDefinitions]) {
    const form = definition.protobuf;
    assert.ok(form, `${definition.kind} has no Protobuf form`);
    assert.ok(findMessageType(form.message), `${definition.kind}: no message ${form.message}`);
    if (!definition.virtual) assert.ok(findMessageType(`${form.message}List`), `${definition.kind}: no message ${form.message}List`);
  }
});

test('kinds that give one message different rules are refused', async () => {
  const { deriveEmitRules } = await import('./emit.js');
  const subject = messageType('k8s.io.api.rbac.v1.Subject');
  // The registered kinds say Subject's kind and name are always written; a schema that requires only kind disagrees.
  assert.throws(() => deriveEmitRules(subject, { type: 'object', required: ['kind'], properties: {} }, []), /disagree about k8s\.io\.api\.rbac\.v1\.Subject/);
});

test('a pointer path that names no field the schema reaches is refused, not read as omitempty', async () => {
  const { deriveEmitRules } = await import('./emit.js');
  const lease = messageType('k8s.io.api.coordination.v1.Lease');
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: {} } } };
  const pointers = ['spec.holderIdentity', 'spec.leaseDurationSeconds', 'spec.acquireTime', 'spec.renewTime', 'spec.leaseTransitions'];
  // A misspelt field, and a field of an object the schema does not spell out.
  assert.throws(() => deriveEmitRules(lease, schema, [...pointers, 'spec.holderIdentiy']), /Lease: pointer paths that name no field the schema reaches: spec\.holderIdentiy$/);
  assert.throws(() => deriveEmitRules(lease, { type: 'object', properties: {} }, pointers), /reaches: spec\.holderIdentity, spec\.leaseDurationSeconds/);
  // The same paths met: Lease's rules, as registered.
  assert.doesNotThrow(() => deriveEmitRules(lease, schema, pointers));
});
