// Registering the node (the kubelet's registerWithAPIServer): create the Node; when one of that name
// exists, adopt it: keep it, bring back the labels the agent owns and set providerID where it is
// unset. Tried again with a backoff from 100 ms to 7 s until it succeeds or the agent stops.
import type { Node } from '@plat/api';
import { Backoff, isAlreadyExists, sleep, type Logger, type ResourceClient } from './client-support.js';
import { defaultLabels, nodeToRegister, type NodeFacts } from './node-object.js';
import type { NodeCondition } from '@plat/api';

export type Registration = { node: Node; outcome: 'registered' | 'adopted' };

/** One attempt: the created or adopted Node. */
export async function registerOnce(nodes: ResourceClient<Node>, facts: NodeFacts, conditions: NodeCondition[]): Promise<Registration> {
  try {
    return { node: await nodes.create(nodeToRegister(facts, conditions)), outcome: 'registered' };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const existing = await nodes.get(facts.name);
  const labels = defaultLabels(facts);
  const missingLabels = Object.entries(labels).filter(([key, value]) => existing.metadata.labels?.[key] !== value);
  const setProvider = facts.providerID && !existing.spec?.providerID;
  if (!missingLabels.length && !setProvider) return { node: existing, outcome: 'adopted' };
  // A merge patch changes only what the agent owns; registerWithTaints applies to new Nodes only.
  const patch = {
    metadata: { labels: Object.fromEntries(missingLabels) },
    ...(setProvider && { spec: { providerID: facts.providerID } }),
  };
  return { node: await nodes.patch(facts.name, 'merge', patch), outcome: 'adopted' };
}

/** Registers, retrying with backoff; undefined when `signal` aborted first. */
export async function register(
  nodes: ResourceClient<Node>,
  facts: NodeFacts,
  conditions: () => NodeCondition[],
  logger: Logger,
  signal: AbortSignal,
): Promise<Registration | undefined> {
  const backoff = new Backoff({ initialMs: 100, maxMs: 7000 });
  while (!signal.aborted) {
    try {
      const registration = await registerOnce(nodes, facts, conditions());
      logger.info({ node: facts.name, outcome: registration.outcome }, registration.outcome === 'registered' ? 'registered the node' : 'adopted the existing node');
      return registration;
    } catch (err) {
      if (signal.aborted) break;
      logger.warn({ err, node: facts.name }, 'unable to register the node with the API server; will retry');
      await sleep(backoff.step(), signal);
    }
  }
  return undefined;
}
