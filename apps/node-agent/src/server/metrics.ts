// The agent's metrics (prom-client): the kubelet's node-name gauge, counts of its heartbeats, and the
// process's default metrics; each declared with its stability class (1-conventions 9.2) through
// @plat/serving, as every component's.
import { Counter, Gauge, Registry } from 'prom-client';
import { MetricsStability, collectProcessMetrics } from '@plat/serving';

export class AgentMetrics {
  readonly registry = new Registry();
  private readonly leaseRenewals: Counter;
  private readonly statusPosts: Counter;

  constructor(nodeName: string) {
    collectProcessMetrics(this.registry);
    const stability = new MetricsStability(this.registry);
    const alpha = (help: string) => stability.declare(help, { stabilityLevel: 'ALPHA' });
    new Gauge({ name: 'kubelet_node_name', ...alpha("The node's name. The count is always 1."), labelNames: ['node'] }).set({ node: nodeName }, 1);
    this.leaseRenewals = new Counter({ name: 'plat_agent_node_lease_renewals_total', ...alpha('Renewals of the node Lease the API accepted.') });
    this.statusPosts = new Counter({ name: 'plat_agent_node_status_posts_total', ...alpha('Node status posts the API accepted.') });
  }

  leaseRenewed(): void {
    this.leaseRenewals.inc();
  }

  statusPosted(): void {
    this.statusPosts.inc();
  }
}
