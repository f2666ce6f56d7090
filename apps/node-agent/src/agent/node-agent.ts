// One node's agent loops: registration (or adoption), the Lease heartbeat and status posting, over
// one client, and a graceful stop that reports the node not ready first. The servers are apart
// (server/); the bench runs many of these in one process.
import type { Lease } from '@plat/apimachinery';
import type { Node } from '@plat/api';
import { Informer, leaseResource, type Client, type Logger } from '@plat/client';
import type { NodeEvents } from './node-events.js';
import { NodeLease } from './node-lease.js';
import { nodeConditions, nowRFC3339, type NodeFacts } from './node-object.js';
import { register } from './registration.js';
import { StatusReporter } from './status-reporter.js';

/** How long a stopping agent waits at least for its queued Events to be written. */
const EVENTS_FLUSH_MS = 1000;

export const nodesRef = { group: '', version: 'v1', resource: 'nodes', namespaced: false, kind: 'Node' } as const;

export interface NodeAgentOptions {
  client: Client;
  facts: NodeFacts;
  /** plat-node-lease, or kube-node-lease under Kubernetes' names. */
  leaseNamespace: string;
  leaseDurationSeconds: number;
  statusUpdateFrequencyMs: number;
  statusReportFrequencyMs: number;
  /** Register the Node (registerNode); false: only adopt one that exists. */
  registerNode: boolean;
  logger: Logger;
  /** Where the agent's Events about its Node go (none: not recorded). */
  events?: NodeEvents;
  onLeaseRenewed?(lease: Lease): void;
  onStatusPosted?(node: Node): void;
}

export class NodeAgent {
  private readonly stop = new AbortController();
  private readonly ownNode: Informer<Node>;
  private readonly lease: NodeLease;
  private readonly status: StatusReporter;
  private node: Node | undefined;
  private loops: Promise<unknown> | undefined;

  constructor(private readonly options: NodeAgentOptions) {
    const { client, facts, logger } = options;
    const nodes = client.resource<Node>(nodesRef);
    // The agent's view of its own Node, as the kubelet's node informer: what others wrote shows here.
    this.ownNode = new Informer<Node>(nodes, { fieldSelector: `metadata.name=${facts.name}`, logger });
    this.lease = new NodeLease({
      leases: client.resource<Lease>(leaseResource(facts.domain)).namespace(options.leaseNamespace),
      namespace: options.leaseNamespace,
      nodeName: facts.name,
      leaseDurationSeconds: options.leaseDurationSeconds,
      nodeUid: () => this.currentNode()?.metadata.uid,
      logger,
      ...(options.onLeaseRenewed && { onRenewed: options.onLeaseRenewed }),
    });
    this.status = new StatusReporter({
      nodes,
      facts,
      updateFrequencyMs: options.statusUpdateFrequencyMs,
      reportFrequencyMs: options.statusReportFrequencyMs,
      current: () => this.ownNode.get(facts.name),
      logger,
      onPosted: (node, before) => {
        this.node = node;
        options.events?.conditionsChanged(before, node.status?.conditions ?? []);
        options.onStatusPosted?.(node);
      },
    });
  }

  get name(): string {
    return this.options.facts.name;
  }

  /** The Node as last seen (watched, registered or posted). */
  currentNode(): Node | undefined {
    return this.ownNode.get(this.name) ?? this.node;
  }

  /** When the lease was last renewed and status last posted (ms since the epoch; 0: not yet). */
  heartbeats(): { leaseRenewedAt: number; statusPostedAt: number } {
    return { leaseRenewedAt: this.lease.renewedAt, statusPostedAt: this.status.postedAt };
  }

  /**
   * Registers (or adopts) the Node, then starts the lease and status loops. Resolves once the node
   * is registered; false when stopped first.
   */
  async start(): Promise<boolean> {
    const { facts, logger } = this.options;
    const signal = this.stop.signal;
    this.options.events?.starting();
    this.ownNode.start();
    if (this.options.registerNode) {
      const registration = await register(
        this.options.client.resource<Node>(nodesRef),
        facts,
        () => nodeConditions(facts.domain, { ready: true }, undefined, nowRFC3339()),
        logger,
        signal,
      );
      if (!registration) return false;
      this.node = registration.node;
      // A Node it created carries its first conditions; an adopted one changes at the first report.
      if (registration.outcome === 'registered') this.options.events?.conditionsChanged(undefined, registration.node.status?.conditions ?? []);
    } else if (!(await this.ownNode.waitForSync(signal))) {
      return false;
    }
    this.loops = Promise.all([this.lease.run(signal), this.status.run(signal)]);
    // The first status now, not a period later: an adopted Node may be marked Unknown.
    void this.status.report().catch((err: unknown) => logger.warn({ err }, 'failed to post the first node status'));
    return true;
  }

  /**
   * Stops the loops. With a grace period, the node is first reported not ready ("node is shutting
   * down", a Shutdown event before it), the post bounded by the grace period. The events still
   * queued are then written within what is left of it (at least EVENTS_FLUSH_MS).
   */
  async shutdown(gracePeriodMs: number): Promise<void> {
    const deadline = Date.now() + gracePeriodMs;
    if (gracePeriodMs > 0 && this.loops) {
      this.options.events?.shuttingDown();
      this.status.setReadiness({ ready: false, message: 'node is shutting down' });
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, gracePeriodMs)));
      await Promise.race([this.status.report(true).catch((err: unknown) => this.options.logger.warn({ err }, 'failed to report the node shutting down')), expired]);
      clearTimeout(timer);
    }
    this.stop.abort();
    await this.loops;
    await this.ownNode.stop();
    await this.options.events?.close(Math.max(deadline - Date.now(), EVENTS_FLUSH_MS));
  }
}
