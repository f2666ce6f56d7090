// The agent's client: the kubeconfig's server and credentials, with the configuration's rate limit
// (platAPIQPS, platAPIBurst) and content type; and the one it records Events with.
import type { NodeAgentConfiguration } from '@plat/agent-config';
import type { ClientConfig } from '@plat/client';
import { protobufCodec, protobufMediaType } from './protobuf-codec.js';

export const AGENT_USER_AGENT = 'plat-agent';

/** contentType's default (the spec's): Protobuf by its name under plat.io. */
const DEFAULT_PROTOBUF = protobufMediaType('plat.io');

/**
 * The client config with the agent's rate limit and content type. The default contentType names
 * Protobuf as plat.io does; under another --api-domain it means that domain's Protobuf (under k8s.io
 * application/vnd.kubernetes.protobuf), as every other plat.io name does. Any other type that is
 * neither JSON nor the domain's Protobuf throws.
 */
export function agentClientConfig(base: ClientConfig, config: NodeAgentConfiguration, domain: string): ClientConfig {
  const contentType = config.contentType ?? '';
  const json = contentType === '' || contentType === 'application/json';
  if (!json && contentType !== protobufMediaType(domain) && contentType !== DEFAULT_PROTOBUF) {
    throw new Error(`contentType ${JSON.stringify(contentType)} is not served under --api-domain=${domain}: use application/json or ${protobufMediaType(domain)}`);
  }
  return {
    ...base,
    userAgent: AGENT_USER_AGENT,
    qps: config.platAPIQPS ?? 50,
    burst: config.platAPIBurst ?? 100,
    ...(!json && { codec: protobufCodec(domain) }),
  };
}

/**
 * The client the agent records Events with, apart from the other (upstream's event client): the
 * same connection settings, its own rate limit, eventRecordQPS (0: no limit) and eventBurst.
 */
export function eventClientConfig(agent: ClientConfig, config: NodeAgentConfiguration): ClientConfig {
  const qps = config.eventRecordQPS ?? 50;
  return { ...agent, qps: qps > 0 ? qps : -1, burst: config.eventBurst ?? 100 };
}
