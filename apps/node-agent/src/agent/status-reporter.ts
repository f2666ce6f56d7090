// Posting the node's status (the kubelet's node status loop): every nodeStatusUpdateFrequency (up
// to 4 % more, at random, as upstream's) the status is computed against the Node as the API last
// showed it; it is posted when it changed (a controller marking the node Unknown is a change) or
// when nodeStatusReportFrequency has passed since the last post, as a strategic merge patch of
// nodes/status.
import type { Node, NodeCondition } from '@plat/api';
import { HEARTBEAT_JITTER, jitter, sleep, type Logger, type ResourceClient } from './client-support.js';
import { nodeConditions, nodeStatus, nowRFC3339, statusChanged, type NodeFacts, type Readiness } from './node-object.js';

export interface StatusReporterOptions {
  nodes: ResourceClient<Node>;
  facts: NodeFacts;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
  /** The Node as the API last showed it: the agent's watch of its own Node, else a GET. */
  current(): Node | undefined;
  logger: Logger;
  /** After a post: the Node the API answered with, and the conditions it had before as the agent saw them. */
  onPosted?(node: Node, before: readonly NodeCondition[] | undefined): void;
  now?: () => number;
}

// The kubelet's nodeStatusUpdateRetry: tries per round before waiting for the next.
const UPDATE_RETRIES = 5;

export class StatusReporter {
  private lastPostedAt = 0;
  private readiness: Readiness = { ready: true };
  private readonly now: () => number;
  /** The last Node the API answered a post with. */
  private latest: Node | undefined;

  constructor(private readonly options: StatusReporterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** When status was last posted (ms since the epoch), 0 before the first post. */
  get postedAt(): number {
    return this.lastPostedAt;
  }

  /** Changes what the Ready condition says from the next report on (shutdown: not ready). */
  setReadiness(readiness: Readiness): void {
    this.readiness = readiness;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(jitter(this.options.updateFrequencyMs, HEARTBEAT_JITTER), signal);
      if (signal.aborted) return;
      await this.report().catch((err: unknown) => {
        if (!signal.aborted) this.options.logger.warn({ err }, 'failed to post the node status; will retry');
      });
    }
  }

  /** One round: up to five tries to post what changed (or a heartbeat when the report is due). */
  async report(force = false): Promise<boolean> {
    let lastError: unknown;
    for (let i = 0; i < UPDATE_RETRIES; i++) {
      try {
        return await this.tryReport(force || i > 0);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  private async tryReport(fresh: boolean): Promise<boolean> {
    const { nodes, facts } = this.options;
    // After a failure the cached Node may be stale: read it again, as the kubelet does.
    const current = (!fresh && this.newest()) || (await nodes.get(facts.name));
    const now = this.now();
    const status = nodeStatus(facts, nodeConditions(facts.domain, this.readiness, current.status?.conditions, nowRFC3339(now)));
    const due = now - this.lastPostedAt >= this.options.reportFrequencyMs;
    if (!due && !statusChanged(current.status, status)) return false;
    // Conditions and addresses merge by their type, as upstream's patch strategy for them says.
    const posted = await nodes.patch(facts.name, 'strategic', { status }, { subresource: 'status' });
    this.latest = posted;
    this.lastPostedAt = now;
    this.options.onPosted?.(posted, current.status?.conditions);
    return true;
  }

  /**
   * The watched Node (it shows what others wrote, a controller's Unknown), else the last one a post
   * returned. A watch behind the last post only costs a post that changes nothing.
   */
  private newest(): Node | undefined {
    return this.options.current() ?? this.latest;
  }
}
