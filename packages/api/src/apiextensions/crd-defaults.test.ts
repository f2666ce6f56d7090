import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  prepareCustomResourceDefinitionForCreate,
  prepareCustomResourceDefinitionForUpdate,
  prepareCustomResourceDefinitionStatusUpdate,
  setCustomResourceDefinitionDefaults,
} from './crd-defaults.js';
import type { CustomResourceDefinition } from './types.js';

const crd = (): CustomResourceDefinition => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [
      { name: 'v1', served: true, storage: false },
      { name: 'v2', served: true, storage: true },
    ],
  },
});

test('crd defaults: singular, listKind and the conversion strategy', () => {
  const object = crd();
  setCustomResourceDefinitionDefaults(object);
  assert.deepEqual(object.spec.names, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
  assert.deepEqual(object.spec.conversion, { strategy: 'None' });
  assert.equal(object.status, undefined);
});

test('crd defaults: given values are kept, and defaulting twice changes nothing', () => {
  const object = crd();
  object.spec.names.singular = 'wdg';
  object.spec.names.listKind = 'Widgets';
  object.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'ns', name: 'conv' } } } };
  setCustomResourceDefinitionDefaults(object);
  const once = structuredClone(object);
  setCustomResourceDefinitionDefaults(object);
  assert.deepEqual(object, once);
  assert.equal(object.spec.names.singular, 'wdg');
  assert.equal(object.spec.names.listKind, 'Widgets');
  assert.equal(object.spec.conversion.webhook?.clientConfig?.service?.port, 443);
});

test('crd defaults: no listKind without a kind; an empty storedVersions gets the storage version', () => {
  const object = crd();
  object.spec.names.kind = '';
  object.status = { storedVersions: [] };
  setCustomResourceDefinitionDefaults(object);
  assert.equal(object.spec.names.singular, '');
  assert.equal(object.spec.names.listKind, undefined);
  assert.deepEqual(object.status.storedVersions, ['v2']);
});

test('crd prepare for create: the status is the server\'s, with the storage version stored; generation 1', () => {
  const object = crd();
  object.metadata.generation = 7;
  object.status = {
    conditions: [{ type: 'Established', status: 'True' }],
    acceptedNames: { plural: 'x', kind: 'X' },
    storedVersions: ['v0', 'v1'],
  };
  prepareCustomResourceDefinitionForCreate(object);
  assert.deepEqual(object.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v2'] });
  assert.equal(object.metadata.generation, 1);
});

test('crd prepare for create: no storage version, no stored versions (validation reports it)', () => {
  const object = crd();
  object.spec.versions[1]!.storage = false;
  prepareCustomResourceDefinitionForCreate(object);
  assert.deepEqual(object.status, { acceptedNames: { plural: '', kind: '' } });
});

const stored = (): CustomResourceDefinition => {
  const object = crd();
  object.metadata.generation = 3;
  object.spec.conversion = { strategy: 'None' };
  object.status = { conditions: [{ type: 'Established', status: 'True' }], acceptedNames: { plural: 'widgets', kind: 'Widget' }, storedVersions: ['v1', 'v2'] };
  return object;
};

test('crd prepare for update: the status stays as stored, a client cannot change it', () => {
  const old = stored();
  const object = stored();
  object.status = { storedVersions: [] };
  prepareCustomResourceDefinitionForUpdate(object, old);
  assert.deepEqual(object.status, old.status);
  assert.notEqual(object.status, old.status);
  assert.equal(object.metadata.generation, 3);
});

test('crd prepare for update: a spec change counts a generation, zero values left out change nothing', () => {
  const old = stored();
  const unchanged = stored();
  unchanged.spec.versions[0]!.deprecated = false;
  unchanged.spec.names.shortNames = [];
  prepareCustomResourceDefinitionForUpdate(unchanged, old);
  assert.equal(unchanged.metadata.generation, 3);

  const changed = stored();
  changed.spec.versions[0]!.served = false;
  prepareCustomResourceDefinitionForUpdate(changed, old);
  assert.equal(changed.metadata.generation, 4);
});

test('crd prepare for update: a new storage version is appended to the stored ones', () => {
  const old = stored();
  const object = stored();
  object.spec.versions.push({ name: 'v3', served: true, storage: true });
  object.spec.versions[1]!.storage = false;
  prepareCustomResourceDefinitionForUpdate(object, old);
  assert.deepEqual(object.status?.storedVersions, ['v1', 'v2', 'v3']);
  assert.deepEqual(old.status?.storedVersions, ['v1', 'v2']);
  assert.equal(object.metadata.generation, 4);
});

test('crd status update: the spec stays as stored', () => {
  const old = stored();
  const object = stored();
  object.spec.group = 'example.org';
  object.status = { acceptedNames: { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' }, storedVersions: ['v2'] };
  prepareCustomResourceDefinitionStatusUpdate(object, old);
  assert.deepEqual(object.spec, old.spec);
  assert.deepEqual(object.status.storedVersions, ['v2']);
});
