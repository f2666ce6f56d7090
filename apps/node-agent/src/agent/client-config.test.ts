import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeAgentConfiguration } from '@plat/agent-config';
import { agentClientConfig, eventClientConfig } from './client-config.js';

const base = { server: 'https://127.0.0.1:6443', token: 't' };
const config = (fields: Partial<NodeAgentConfiguration>): NodeAgentConfiguration => ({ apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration', ...fields });

const cases: { name: string; fields: Partial<NodeAgentConfiguration>; domain: string; mediaType: string | undefined; qps: number; burst: number }[] = [
  { name: 'the default Protobuf under plat.io', fields: { contentType: 'application/vnd.plat.protobuf' }, domain: 'plat.io', mediaType: 'application/vnd.plat.protobuf', qps: 50, burst: 100 },
  { name: "the default Protobuf under k8s.io is Kubernetes'", fields: { contentType: 'application/vnd.plat.protobuf' }, domain: 'k8s.io', mediaType: 'application/vnd.kubernetes.protobuf', qps: 50, burst: 100 },
  { name: "Kubernetes' Protobuf named under k8s.io", fields: { contentType: 'application/vnd.kubernetes.protobuf' }, domain: 'k8s.io', mediaType: 'application/vnd.kubernetes.protobuf', qps: 50, burst: 100 },
  { name: 'JSON, with its own rate limit', fields: { contentType: 'application/json', platAPIQPS: 5, platAPIBurst: 7 }, domain: 'plat.io', mediaType: undefined, qps: 5, burst: 7 },
  { name: 'no content type is JSON', fields: {}, domain: 'plat.io', mediaType: undefined, qps: 50, burst: 100 },
];

for (const { name, fields, domain, mediaType, qps, burst } of cases) {
  test(`client config: ${name}`, () => {
    const client = agentClientConfig(base, config(fields), domain);
    assert.equal(client.codec?.mediaType, mediaType);
    assert.deepEqual([client.qps, client.burst, client.userAgent, client.server], [qps, burst, 'plat-agent', base.server]);
  });
}

test("client config: Kubernetes' Protobuf under plat.io, or a type nobody serves, is refused with the usable ones", () => {
  assert.throws(() => agentClientConfig(base, config({ contentType: 'application/vnd.kubernetes.protobuf' }), 'plat.io'), {
    message: 'contentType "application/vnd.kubernetes.protobuf" is not served under --api-domain=plat.io: use application/json or application/vnd.plat.protobuf',
  });
  assert.throws(() => agentClientConfig(base, config({ contentType: 'application/yaml' }), 'k8s.io'), /use application\/json or application\/vnd.kubernetes.protobuf$/);
});

test('event client config: eventRecordQPS and eventBurst; 0 QPS is no limit', () => {
  const agent = agentClientConfig(base, config({}), 'plat.io');
  assert.deepEqual([eventClientConfig(agent, config({})).qps, eventClientConfig(agent, config({})).burst], [50, 100]);
  assert.deepEqual([eventClientConfig(agent, config({ eventRecordQPS: 3, eventBurst: 4 })).qps, eventClientConfig(agent, config({ eventRecordQPS: 3, eventBurst: 4 })).burst], [3, 4]);
  assert.equal(eventClientConfig(agent, config({ eventRecordQPS: 0 })).qps, -1);
  assert.equal(eventClientConfig(agent, config({})).token, base.token);
});
