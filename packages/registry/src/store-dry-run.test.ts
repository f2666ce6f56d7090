// Dry run (conventions 4.10) through every write verb: the answer the real request would give,
// admission told it is a dry run, and nothing stored.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStorage, type Storage } from '@plat/storage';
import type { KubeObject, ResourceDefinition } from './definition.js';
import type { AdmissionAttributes } from './requests.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';

interface Widget extends KubeObject {
  size?: number;
}

const widgets: ResourceDefinition<Widget> = {
  group: 'things.{domain}',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singularName: 'widget',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
  schema: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      size: { type: 'integer' },
    },
  },
  strategy: { validate: () => [], validateUpdate: () => [] },
  allowCreateOnUpdate: true,
};

async function setUp(): Promise<{ store: ResourceStore<Widget>; storage: Storage; admitted: AdmissionAttributes[]; validated: AdmissionAttributes[]; revision: () => Promise<number> }> {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const admitted: AdmissionAttributes[] = [];
  const validated: AdmissionAttributes[] = [];
  const store = new ResourceStore(resolveResource(widgets, 'example.com'), {
    storage,
    context: { domain: 'example.com' },
    admission: {
      mutate: async (attributes) => void admitted.push(attributes),
      validate: async (attributes) => void validated.push(attributes),
    },
  });
  await store.create('ns', { metadata: { name: 'a' }, size: 1 });
  await store.create('ns', { metadata: { name: 'held', finalizers: ['example.com/hold'] }, size: 1 });
  admitted.length = 0;
  validated.length = 0;
  return { store, storage, admitted, validated, revision: () => storage.currentRevision() };
}

const apiVersion = 'things.example.com/v1';

describe('store: dry run', () => {
  const cases: [string, (store: ResourceStore<Widget>) => Promise<unknown>, (result: any) => void][] = [
    ['create', (s) => s.create('ns', { metadata: { name: 'new' }, size: 2 }, { dryRun: true }), (r) => assert.equal(r.size, 2)],
    [
      'create with generateName',
      (s) => s.create('ns', { metadata: { generateName: 'gen-' } }, { dryRun: true }),
      (r) => assert.match(r.metadata.name, /^gen-/),
    ],
    ['update', (s) => s.update('ns', 'a', { metadata: { name: 'a' }, size: 5 }, { dryRun: true }), (r) => assert.equal(r.object.size, 5)],
    [
      'update that creates',
      (s) => s.update('ns', 'made', { metadata: { name: 'made' }, size: 5 }, { dryRun: true }),
      (r) => assert.equal(r.created, true),
    ],
    ...(['json', 'merge', 'strategic'] as const).map(
      (type): [string, (s: ResourceStore<Widget>) => Promise<unknown>, (r: any) => void] => [
        `${type} patch`,
        (s) => s.patch('ns', 'a', { type, patch: type === 'json' ? [{ op: 'replace', path: '/size', value: 7 }] : { size: 7 }, dryRun: true }),
        (r) => assert.equal(r.object.size, 7),
      ],
    ),
    [
      'apply that updates',
      (s) => s.patch('ns', 'a', { type: 'apply', patch: { apiVersion, kind: 'Widget', metadata: { name: 'a' }, size: 8 }, manager: 'm', force: true, dryRun: true }),
      (r) => assert.equal(r.object.size, 8),
    ],
    [
      'apply that creates',
      (s) => s.patch('ns', 'applied', { type: 'apply', patch: { apiVersion, kind: 'Widget', metadata: { name: 'applied' }, size: 8 }, manager: 'm', dryRun: true }),
      (r) => assert.equal(r.created, true),
    ],
    ['delete', (s) => s.delete('ns', 'a', { dryRun: true }), (r) => assert.equal(r.deleted, true)],
    [
      'delete of an object held by a finalizer',
      (s) => s.delete('ns', 'held', { dryRun: true }),
      (r) => assert.ok(r.object.metadata.deletionTimestamp && r.deleted === false),
    ],
    ['deletecollection', (s) => s.deleteCollection('ns', {}, { dryRun: true }), (r) => assert.equal(r.items.length, 2)],
  ];
  for (const [name, run, check] of cases) {
    it(`${name}: answers, tells admission it is a dry run, stores nothing`, async () => {
      const { store, storage, admitted, validated, revision } = await setUp();
      const before = await revision();
      check(await run(store));
      assert.equal(await revision(), before, 'no write');
      assert.deepEqual((await storage.list('/things.example.com/widgets/')).items.map((o) => o.metadata?.name).sort(), ['a', 'held']);
      assert.ok(admitted.length > 0, 'admission ran');
      assert.ok(admitted.every((a) => a.dryRun), `admission saw dryRun: ${JSON.stringify(admitted.map((a) => [a.operation, a.dryRun]))}`);
      // Validating admission (policies) checks a dry run as it checks a real request.
      assert.deepEqual(validated.map((a) => [a.operation, a.dryRun]), admitted.map((a) => [a.operation, true]));
    });
  }

  it('validating admission comes after the kind\'s validation: an invalid object never reaches it', async () => {
    const { store, validated } = await setUp();
    await assert.rejects(store.create('ns', { metadata: { name: 'Bad_Name' }, size: 1 }, { dryRun: true }), /Invalid value: "Bad_Name"/);
    assert.equal(validated.length, 0);
    await store.create('ns', { metadata: { name: 'good' }, size: 1 }, { dryRun: true, operationOptions: { kind: 'CreateOptions', dryRun: ['All'] } });
    assert.deepEqual(validated.map((a) => a.options), [{ kind: 'CreateOptions', dryRun: ['All'] }]);
  });

  it('a dry run fails where the real request would: a taken name, a stale resourceVersion, a failed precondition', async () => {
    const { store } = await setUp();
    await assert.rejects(store.create('ns', { metadata: { name: 'a' } }, { dryRun: true }), /already exists/);
    await assert.rejects(store.update('ns', 'a', { metadata: { name: 'a', resourceVersion: '1' } }, { dryRun: true }), /the object has been modified/);
    await assert.rejects(store.delete('ns', 'a', { dryRun: true, preconditions: { uid: 'other' } }), /Precondition failed: UID in precondition: other/);
  });
});
