// SerializedNodeConfigSource (spec document 3): decoded strictly, as the agent's other kinds are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSerializedNodeConfigSource } from './node-config-source.js';

test('a SerializedNodeConfigSource is decoded with its ConfigMap source; an unknown field or another kind is refused', () => {
  const source = decodeSerializedNodeConfigSource(
    ['apiVersion: agent.config.plat.io/v1beta1', 'kind: SerializedNodeConfigSource', 'source:', '  configMap: {namespace: kube-system, name: agent-config, uid: u1, resourceVersion: "7", agentConfigKey: agent}'].join('\n'),
  );
  assert.deepEqual(source.source?.configMap, { namespace: 'kube-system', name: 'agent-config', uid: 'u1', resourceVersion: '7', agentConfigKey: 'agent' });
  assert.throws(() => decodeSerializedNodeConfigSource('apiVersion: agent.config.plat.io/v1beta1\nkind: SerializedNodeConfigSource\nsorce: {}\n'), /sorce/);
  assert.throws(() => decodeSerializedNodeConfigSource('apiVersion: agent.config.plat.io/v1beta1\nkind: NodeAgentConfiguration\n'));
});
