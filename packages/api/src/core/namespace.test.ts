import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, k8s, messages, plat, summary, update } from '../testing/harness.js';
import { namespaceDefinition, namespaceFinalizer, type Namespace } from './namespace.js';

const ns = (name: string, extra: Partial<Namespace> = {}): Namespace => ({ metadata: { name }, ...extra });
const strategy = namespaceDefinition.strategy;
const status = namespaceDefinition.subresources.status;
const finalize = namespaceDefinition.subresources.finalize;

test('namespace: namespaceFinalizer follows the domain', () => {
  assert.equal(namespaceFinalizer('plat.io'), 'plat');
  assert.equal(namespaceFinalizer('k8s.io'), 'kubernetes');
  assert.equal(namespaceFinalizer('example.com'), 'example');
});

const createCases: { name: string; input: Namespace; context?: typeof plat; want: Partial<Namespace>; labels: Record<string, string> }[] = [
  {
    name: 'defaults: Active, the platform finalizer, the name label',
    input: ns('team-a'),
    want: { spec: { finalizers: ['plat'] }, status: { phase: 'Active' } },
    labels: { 'plat.io/metadata.name': 'team-a' },
  },
  {
    name: 'kubernetes names under k8s.io',
    input: ns('team-a'),
    context: k8s,
    want: { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
    labels: { 'kubernetes.io/metadata.name': 'team-a' },
  },
  {
    name: 'the platform finalizer is appended to given ones',
    input: ns('team-a', { spec: { finalizers: ['example.com/cleanup'] } }),
    want: { spec: { finalizers: ['example.com/cleanup', 'plat'] }, status: { phase: 'Active' } },
    labels: { 'plat.io/metadata.name': 'team-a' },
  },
  {
    name: 'a given platform finalizer is not repeated',
    input: ns('team-a', { spec: { finalizers: ['plat'] } }),
    want: { spec: { finalizers: ['plat'] }, status: { phase: 'Active' } },
    labels: { 'plat.io/metadata.name': 'team-a' },
  },
  {
    name: 'a client cannot set status on create',
    input: ns('team-a', { status: { phase: 'Terminating', conditions: [{ type: 'X', status: 'True' }] } }),
    want: { spec: { finalizers: ['plat'] }, status: { phase: 'Active' } },
    labels: { 'plat.io/metadata.name': 'team-a' },
  },
  {
    name: 'the name label overrides a client value',
    input: { metadata: { name: 'team-a', labels: { 'plat.io/metadata.name': 'other', app: 'x' } } },
    want: { spec: { finalizers: ['plat'] }, status: { phase: 'Active' } },
    labels: { 'plat.io/metadata.name': 'team-a', app: 'x' },
  },
];

for (const c of createCases) {
  test(`namespace create: ${c.name}`, () => {
    const { object, errors } = create(namespaceDefinition, c.input, c.context);
    assert.deepEqual(errors, []);
    assert.deepEqual(object.spec, c.want.spec);
    assert.deepEqual(object.status, c.want.status);
    assert.deepEqual(object.metadata.labels, c.labels);
  });
}

const invalidCases: { name: string; finalizers: string[]; want: string[] }[] = [
  {
    name: 'an unqualified finalizer that is not well known',
    finalizers: ['cleanup'],
    want: ['spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified'],
  },
  {
    name: "kubernetes is not the platform's finalizer under plat.io",
    finalizers: ['kubernetes'],
    want: ['spec.finalizers: Invalid value: "kubernetes": name is neither a standard finalizer name nor is it fully qualified'],
  },
];
for (const c of invalidCases) {
  test(`namespace validate: ${c.name}`, () => {
    const { errors } = create(namespaceDefinition, ns('a', { spec: { finalizers: c.finalizers } }));
    assert.deepEqual(messages(errors), c.want);
  });
}

test('namespace validate: a finalizer that is not a qualified name', () => {
  const { errors } = create(namespaceDefinition, ns('a', { spec: { finalizers: ['a/b/c'] } }));
  assert.ok(errors.length > 0);
  for (const e of errors) assert.deepEqual([e.type, e.field], ['FieldValueInvalid', 'spec.finalizers']);
});

test('namespace validate: well-known and qualified finalizers pass', () => {
  const { errors } = create(namespaceDefinition, ns('a', { spec: { finalizers: ['orphan', 'foregroundDeletion', 'example.com/x'] } }));
  assert.deepEqual(errors, []);
});

test('namespace name: a DNS-1123 label', () => {
  assert.deepEqual(namespaceDefinition.validateName('team-a', false), []);
  assert.ok(namespaceDefinition.validateName('team.a', false).length > 0);
  assert.ok(namespaceDefinition.validateName('Team', false).length > 0);
});

test('namespace update: status and spec.finalizers are kept from the old object', () => {
  const old = create(namespaceDefinition, ns('a')).object;
  const changed = ns('a', { spec: { finalizers: [] }, status: { phase: 'Terminating' }, metadata: { name: 'a', labels: { x: 'y' } } });
  const { object, errors } = update(namespaceDefinition, changed, old);
  assert.deepEqual(errors, []);
  assert.deepEqual(object.spec, { finalizers: ['plat'] });
  assert.deepEqual(object.status, { phase: 'Active' });
  assert.deepEqual(object.metadata.labels, { x: 'y', 'plat.io/metadata.name': 'a' });
});

test('namespace status: PUT keeps the spec and takes status and metadata from the request', () => {
  const old = create(namespaceDefinition, ns('a')).object;
  const sent = ns('a', { spec: { finalizers: [] }, status: { phase: 'Active', conditions: [{ type: 'C', status: 'True' }] } });
  sent.metadata.labels = { via: 'status' };
  const merged = status.merge(sent, old);
  assert.deepEqual(merged.spec, { finalizers: ['plat'] });
  assert.deepEqual(merged.status, { phase: 'Active', conditions: [{ type: 'C', status: 'True' }] });
  assert.deepEqual(merged.metadata.labels, { via: 'status' });
  assert.deepEqual(status.validateUpdate(merged, old, plat), []);
});

const phaseCases: { name: string; phase: string | undefined; deleting: boolean; want: string[] }[] = [
  { name: 'Active while not deleting', phase: 'Active', deleting: false, want: [] },
  { name: 'Terminating while deleting', phase: 'Terminating', deleting: true, want: [] },
  {
    name: 'Terminating while not deleting',
    phase: 'Terminating',
    deleting: false,
    want: ['status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty'],
  },
  {
    name: 'Active while deleting',
    phase: 'Active',
    deleting: true,
    want: ['status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty'],
  },
  {
    name: 'no phase',
    phase: undefined,
    deleting: false,
    want: ['status.Phase: Invalid value: "": may only be \'Active\' if `deletionTimestamp` is empty'],
  },
];
for (const c of phaseCases) {
  test(`namespace status: ${c.name}`, () => {
    const old = create(namespaceDefinition, ns('a')).object;
    if (c.deleting) old.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    // The store carries deletionTimestamp over from the stored object before validation.
    const metadata = { name: 'a', ...(c.deleting && { deletionTimestamp: old.metadata.deletionTimestamp! }) };
    const merged = status.merge({ metadata, status: c.phase ? { phase: c.phase as 'Active' } : {} }, old);
    assert.deepEqual(messages(status.validateUpdate(merged, old, plat)), c.want);
  });
}

test('namespace finalize: PUT keeps the status and takes spec and metadata from the request', () => {
  const old = create(namespaceDefinition, ns('a')).object;
  const merged = finalize.merge(ns('a', { spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } }), old);
  assert.deepEqual(merged.spec, { finalizers: ['example.com/x'] });
  assert.deepEqual(merged.status, { phase: 'Active' });
  assert.deepEqual(finalize.validateUpdate(merged, old, plat), []);
  assert.equal(finalize.merge(ns('a'), old).spec, undefined);
});

test('namespace finalize: errors name the index', () => {
  const old = create(namespaceDefinition, ns('a')).object;
  const merged = finalize.merge(ns('a', { spec: { finalizers: ['plat', 'cleanup'] } }), old);
  assert.deepEqual(summary(finalize.validateUpdate(merged, old, plat)), ['FieldValueInvalid spec.finalizers[1]']);
});

const pendingCases: { name: string; object: Namespace; want: boolean }[] = [
  { name: 'nothing pending', object: ns('a'), want: false },
  { name: 'spec.finalizers', object: ns('a', { spec: { finalizers: ['plat'] } }), want: true },
  { name: 'metadata.finalizers', object: { metadata: { name: 'a', finalizers: ['example.com/x'] } }, want: true },
  { name: 'empty lists', object: { metadata: { name: 'a', finalizers: [] }, spec: { finalizers: [] } }, want: false },
];
for (const c of pendingCases) {
  test(`namespace hasPendingFinalizers: ${c.name}`, () => assert.equal(strategy.hasPendingFinalizers(c.object), c.want));
}

test('namespace deletion: the phase becomes Terminating', () => {
  const object = create(namespaceDefinition, ns('a')).object;
  strategy.prepareForDeletion(object);
  assert.deepEqual(object.status, { phase: 'Terminating' });
});

test('namespace: selectable fields, columns, verbs', () => {
  const object = create(namespaceDefinition, ns('a')).object;
  assert.deepEqual(namespaceDefinition.selectableFields(object), { 'status.phase': 'Active', name: 'a' });
  object.metadata.creationTimestamp = new Date(Date.now() - 90_000).toISOString();
  const columns = namespaceDefinition.tableColumns;
  assert.deepEqual(columns.map((c) => c.name), ['Name', 'Status', 'Age']);
  assert.deepEqual(columns.map((c) => c.value(object, { domain: 'plat.io' })), ['a', 'Active', '90s']);
  assert.deepEqual([...namespaceDefinition.verbs].sort(), ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  assert.equal(namespaceDefinition.allowCreateOnUpdate, false);
  assert.deepEqual(namespaceDefinition.shortNames, ['ns']);
  assert.equal(namespaceDefinition.namespaced, false);
});
