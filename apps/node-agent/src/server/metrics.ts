// The agent's metrics (prom-client): the kubelet's node-name gauge, counts of its heartbeats, and the
// process's default metrics.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export class AgentMetrics {
  readonly registry = new Registry();
  private readonly leaseRenewals: Counter;
  private readonly statusPosts: Counter;

  constructor(nodeName: string) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    new Gauge({ name: 'kubelet_node_name', help: "The node's name. The count is always 1.", labelNames: ['node'], registers }).set({ node: nodeName }, 1);
    this.leaseRenewals = new Counter({ name: 'plat_agent_node_lease_renewals_total', help: 'Renewals of the node Lease the API accepted.', registers });
    this.statusPosts = new Counter({ name: 'plat_agent_node_status_posts_total', help: 'Node status posts the API accepted.', registers });
  }

  leaseRenewed(): void {
    this.leaseRenewals.inc();
  }

  statusPosted(): void {
    this.statusPosts.inc();
  }
}
