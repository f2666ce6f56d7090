import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { resolveResource, type AdmissionAttributes, type KubeObject, type ResourceDefinition } from '@plat/registry';
import { AdmissionChain } from './chain.js';
import type { AdmissionPlugin } from './plugin.js';
import type { PluginName } from './plugin-names.js';

const nodes = resolveResource({ group: '', version: 'v1', kind: 'Node', resource: 'nodes', namespaced: false, schema: {} } as unknown as ResourceDefinition, 'plat.io');
const attributes = (object: KubeObject): AdmissionAttributes => ({
  uid: 'u',
  operation: 'CREATE',
  resource: nodes,
  kind: { group: '', version: 'v1', kind: 'Node' },
  namespace: '',
  name: 'n',
  object,
  dryRun: false,
});

/** A plugin that records its phases into `log` and, mutating, adds its name as a label. */
const recording = (name: PluginName, log: string[], mutates = true): AdmissionPlugin => ({
  name,
  ...(mutates && {
    mutate: ({ object }: AdmissionAttributes) => {
      log.push(`mutate ${name}: ${Object.keys(object!.metadata.labels ?? {}).join(',')}`);
      return { ...object!, metadata: { ...object!.metadata, labels: { ...object!.metadata.labels, [name]: 'x' } } };
    },
  }),
  validate: ({ object }: AdmissionAttributes) => void log.push(`validate ${name}: ${Object.keys(object!.metadata.labels ?? {}).join(',')}`),
});

test('the chain runs the enabled plugins in order, each mutation seen by the next, validation after', async () => {
  const log: string[] = [];
  const chain = new AdmissionChain(['AlwaysAdmit', 'NamespaceLifecycle', 'TaintNodesByCondition', 'ValidatingAdmissionPolicy']);
  // Provided in another order, and one that is not enabled: left out.
  chain.provide(recording('TaintNodesByCondition', log));
  chain.provide(recording('AlwaysDeny', log));
  chain.provide(recording('NamespaceLifecycle', log));
  chain.provide(recording('ValidatingAdmissionPolicy', log, false));
  chain.provide({ name: 'AlwaysAdmit' });
  assert.deepEqual(chain.missing, []);
  const mutated = await chain.mutate(attributes({ metadata: { name: 'n' } }));
  assert.deepEqual(mutated?.metadata.labels, { NamespaceLifecycle: 'x', TaintNodesByCondition: 'x' });
  await chain.validate(attributes(mutated!));
  assert.deepEqual(log, [
    'mutate NamespaceLifecycle: ',
    'mutate TaintNodesByCondition: NamespaceLifecycle',
    'validate NamespaceLifecycle: NamespaceLifecycle,TaintNodesByCondition',
    'validate TaintNodesByCondition: NamespaceLifecycle,TaintNodesByCondition',
    'validate ValidatingAdmissionPolicy: NamespaceLifecycle,TaintNodesByCondition',
  ]);
});

test('a chain whose plugins change nothing answers undefined: the store keeps its object', async () => {
  const chain = new AdmissionChain(['NamespaceLifecycle']);
  chain.provide({ name: 'NamespaceLifecycle', mutate: () => undefined });
  assert.equal(await chain.mutate(attributes({ metadata: { name: 'n' } })), undefined);
});

test('an enabled plugin not provided fails every write closed, with a 500 and a log line, never admits', async () => {
  const logged: string[] = [];
  const chain = new AdmissionChain(['NamespaceLifecycle', 'ValidatingAdmissionPolicy'], { error: (_fields, message) => void logged.push(message) });
  chain.provide({ name: 'NamespaceLifecycle' });
  assert.deepEqual(chain.missing, ['ValidatingAdmissionPolicy']);
  for (const phase of [() => chain.mutate(attributes({ metadata: {} })), () => chain.validate(attributes({ metadata: {} }))]) {
    await assert.rejects(phase(), (error: unknown) => isStatusError(error) && error.code === 500 && /ValidatingAdmissionPolicy is enabled and not ready/.test(error.message));
  }
  assert.equal(logged.length, 2);
  chain.provide({ name: 'ValidatingAdmissionPolicy' });
  await chain.validate(attributes({ metadata: {} }));
  assert.throws(() => chain.provide({ name: 'ValidatingAdmissionPolicy' }), /provided twice/);
});

test('plugins with nothing to admit here take no slot: only those served run', () => {
  const chain = new AdmissionChain(['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ResourceQuota']);
  assert.deepEqual(chain.names, ['NamespaceLifecycle', 'ValidatingAdmissionPolicy']);
  assert.ok(chain.runs('NamespaceLifecycle'));
  assert.ok(!chain.runs('LimitRanger'));
});
