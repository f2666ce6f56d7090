import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, summary, update } from '../testing/harness.js';
import { ipAddressDefinition, type IPAddress, type ParentReference } from './ip-address.js';

const service: ParentReference = { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' };
const ip = (name: string, parentRef: ParentReference | null = service): IPAddress => ({
  metadata: { name },
  ...(parentRef && { spec: { parentRef } }),
});

test('ip address: a valid address passes', () => {
  assert.deepEqual(create(ipAddressDefinition, ip('10.0.0.1')).errors, []);
  assert.deepEqual(create(ipAddressDefinition, ip('2001:db8::1', { resource: 'gateways', group: 'gateway.networking.k8s.io', name: 'gw' })).errors, []);
});

const nameCases: { name: string; value: string; prefix: boolean; valid: boolean }[] = [
  { name: 'IPv4', value: '192.168.1.5', prefix: false, valid: true },
  { name: 'IPv6 compressed', value: '2001:db8::1', prefix: false, valid: true },
  { name: 'IPv4 with a leading zero', value: '192.168.01.5', prefix: false, valid: false },
  { name: 'IPv6 not compressed', value: '2001:db8:0:0:0:0:0:1', prefix: false, valid: false },
  { name: 'IPv6 in upper case', value: '2001:DB8::1', prefix: false, valid: false },
  { name: 'not an address', value: 'server-1', prefix: false, valid: false },
  { name: 'a generateName prefix is checked as an address', value: '10.0.0.', prefix: true, valid: false },
];
for (const c of nameCases) {
  test(`ip address name: ${c.name}`, () => {
    assert.equal(ipAddressDefinition.validateName(c.value, c.prefix).length === 0, c.valid);
  });
}

const invalidCases: { name: string; object: IPAddress; want: string[] }[] = [
  { name: 'no spec', object: ip('10.0.0.1', null), want: ['FieldValueRequired spec.parentRef'] },
  { name: 'no parentRef', object: { metadata: { name: '10.0.0.1' }, spec: {} }, want: ['FieldValueRequired spec.parentRef'] },
  {
    name: 'parentRef without resource and name',
    object: ip('10.0.0.1', { group: 'apps' }),
    want: ['FieldValueRequired spec.parentRef.resource', 'FieldValueRequired spec.parentRef.name'],
  },
  { name: 'a group that is not a DNS subdomain', object: ip('10.0.0.1', { ...service, group: 'Bad_Group' }), want: ['FieldValueInvalid spec.parentRef.group'] },
  { name: 'a resource with a slash', object: ip('10.0.0.1', { ...service, resource: 'services/status' }), want: ['FieldValueInvalid spec.parentRef.resource'] },
  { name: 'a name that is ..', object: ip('10.0.0.1', { ...service, name: '..' }), want: ['FieldValueInvalid spec.parentRef.name'] },
  { name: 'a namespace with a %', object: ip('10.0.0.1', { ...service, namespace: 'a%b' }), want: ['FieldValueInvalid spec.parentRef.namespace'] },
];
for (const c of invalidCases) {
  test(`ip address validate: ${c.name}`, () => assert.deepEqual(summary(create(ipAddressDefinition, c.object).errors), c.want));
}

test('ip address update: parentRef is immutable', () => {
  const old = ip('10.0.0.1');
  assert.deepEqual(update(ipAddressDefinition, ip('10.0.0.1'), old).errors, []);
  assert.deepEqual(update(ipAddressDefinition, { ...ip('10.0.0.1'), metadata: { name: '10.0.0.1', labels: { a: 'b' } } }, old).errors, []);
  const { errors } = update(ipAddressDefinition, ip('10.0.0.1', { ...service, name: 'other' }), old);
  assert.deepEqual(messages(errors), [
    'spec.parentRef: Invalid value: {"group":"","resource":"services","namespace":"default","name":"other"}: field is immutable',
  ]);
  assert.deepEqual(summary(update(ipAddressDefinition, ip('10.0.0.1', null), old).errors), [
    'FieldValueRequired spec.parentRef',
    'FieldValueInvalid spec.parentRef',
  ]);
});

test('ip address update: an absent group equals an empty one', () => {
  const { group: _group, ...withoutGroup } = service;
  assert.deepEqual(update(ipAddressDefinition, ip('10.0.0.1', withoutGroup), ip('10.0.0.1')).errors, []);
});

const parentCases: { name: string; object: IPAddress; want: string }[] = [
  { name: 'core, namespaced', object: ip('10.0.0.1'), want: 'services/default/kubernetes' },
  { name: 'grouped, cluster-scoped', object: ip('10.0.0.1', { group: 'Example.COM', resource: 'Widgets', name: 'w' }), want: 'widgets.example.com/w' },
  { name: 'none', object: ip('10.0.0.1', null), want: '<none>' },
];
for (const c of parentCases) {
  test(`ip address column ParentRef: ${c.name}`, () => {
    const column = ipAddressDefinition.tableColumns[1]!;
    assert.equal(column.value(c.object, { domain: 'plat.io' }), c.want);
  });
}

test('ip address: registration as upstream', () => {
  const d = ipAddressDefinition;
  assert.equal(d.group, 'networking.{domain}');
  assert.equal(d.version, 'v1alpha1');
  assert.deepEqual(d.shortNames, ['ip']);
  assert.equal(d.allowCreateOnUpdate, false);
  assert.equal(d.namespaced, false);
  assert.deepEqual(d.tableColumns.map((c) => c.name), ['Name', 'ParentRef']);
});
