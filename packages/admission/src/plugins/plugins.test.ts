import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, newNotFound } from '@plat/apimachinery';
import { resolveResource, type AdmissionAttributes, type KubeObject, type ResourceDefinition } from '@plat/registry';
import { alwaysDeny } from './always.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import { taintNodesByCondition } from './taint-nodes-by-condition.js';

const resolved = (resource: string, kind: string, namespaced: boolean) =>
  resolveResource({ group: '', version: 'v1', kind, resource, namespaced, schema: {} } as unknown as ResourceDefinition, 'plat.io');
const write = (resource: ReturnType<typeof resolved>, fields: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  uid: 'u',
  operation: 'CREATE',
  resource,
  kind: { group: '', version: 'v1', kind: resource.kind },
  namespace: '',
  name: 'x',
  dryRun: false,
  ...fields,
});
const nodes = resolved('nodes', 'Node', false);
const configMaps = resolved('configmaps', 'ConfigMap', true);
const namespaces = resolved('namespaces', 'Namespace', false);

test('TaintNodesByCondition: a Node is created with the not-ready NoSchedule taint, once; nothing else is touched', () => {
  for (const [domain, key] of [['k8s.io', 'node.kubernetes.io/not-ready'], ['plat.io', 'node.plat.io/not-ready']] as const) {
    const plugin = taintNodesByCondition(domain);
    const node = { metadata: { name: 'n' }, spec: { taints: [{ key: 'other', effect: 'NoExecute' }] } } as KubeObject;
    const mutated = plugin.mutate!(write(nodes, { object: node })) as KubeObject & { spec: { taints: unknown[] } };
    assert.deepEqual(mutated.spec.taints, [{ key: 'other', effect: 'NoExecute' }, { key, effect: 'NoSchedule' }]);
    assert.deepEqual((node as KubeObject & { spec: { taints: unknown[] } }).spec.taints.length, 1, 'the given object is left as it was');
    // Already tainted (any value), an update, a status write, another kind: nothing to do.
    assert.equal(plugin.mutate!(write(nodes, { object: { metadata: {}, spec: { taints: [{ key, value: 'v', effect: 'NoSchedule' }] } } as KubeObject })), undefined);
    assert.equal(plugin.mutate!(write(nodes, { operation: 'UPDATE', object: { metadata: {} } })), undefined);
    assert.equal(plugin.mutate!(write(nodes, { subresource: 'status', object: { metadata: {} } })), undefined);
    assert.equal(plugin.mutate!(write(configMaps, { object: { metadata: {} } })), undefined);
  }
  const bare = taintNodesByCondition('k8s.io').mutate!(write(nodes, { object: { metadata: { name: 'n' } } })) as KubeObject & { spec: unknown };
  assert.deepEqual(bare.spec, { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
});

test('AlwaysDeny refuses every write in upstream\'s words', () => {
  assert.throws(() => alwaysDeny.validate!(write(configMaps, { name: 'c' })), (error: unknown) => isStatusError(error) && error.code === 403 && error.message === 'configmaps "c" is forbidden: admission control is denying all modifications');
});

test('NamespaceLifecycle: 404 in a missing namespace, 403 in a terminating one, the immortal ones kept', async () => {
  const stored: Record<string, KubeObject> = { live: { metadata: { name: 'live' } }, dying: { metadata: { name: 'dying' }, status: { phase: 'Terminating' } } as KubeObject, fresh: { metadata: { name: 'fresh' } } };
  const cached = new Set(['live', 'dying']);
  const reads: string[] = [];
  const plugin = namespaceLifecycle(
    {
      peek: async (name) => {
        if (!cached.has(name)) throw newNotFound({ group: '', resource: 'namespaces' }, name);
        return stored[name]!;
      },
      get: async (name) => {
        reads.push(name);
        if (!stored[name]) throw newNotFound({ group: '', resource: 'namespaces' }, name);
        return stored[name]!;
      },
    },
    ['default'],
  );
  await plugin.mutate!(write(configMaps, { namespace: 'live', name: 'c' }));
  await plugin.mutate!(write(configMaps, { namespace: 'fresh', name: 'c' }));
  assert.deepEqual(reads, ['fresh'], 'only a namespace the cache has not seen is read from storage');
  await assert.rejects(async () => plugin.mutate!(write(configMaps, { namespace: 'gone', name: 'c' })), (error: unknown) => isStatusError(error) && error.code === 404 && error.message === 'namespaces "gone" not found');
  await assert.rejects(
    async () => plugin.mutate!(write(configMaps, { namespace: 'dying', name: 'c' })),
    (error: unknown) => isStatusError(error) && error.code === 403 && /unable to create new content in namespace dying because it is being terminated/.test(error.message),
  );
  await assert.rejects(async () => plugin.mutate!(write(namespaces, { operation: 'DELETE', name: 'default' })), (error: unknown) => isStatusError(error) && error.code === 403 && /this namespace may not be deleted/.test(error.message));
  await plugin.mutate!(write(configMaps, { operation: 'UPDATE', namespace: 'dying', name: 'c' }));
});
