// The node's heartbeat: a Lease named after the node in the node-lease namespace, owned by the Node,
// renewed every quarter of its duration (the kubelet's node lease controller), that period starting
// when a renewal ends and stretched by up to 4 % at random, as upstream's. A renewal that fails
// is tried again at once (up to 5 times, reading the lease again after a conflict); ensuring the
// lease exists backs off from 200 ms to 7 s while the API does not answer.
import type { Lease } from '@plat/apimachinery';
import { Backoff, HEARTBEAT_JITTER, isNotFoundOrConflict, jitter, microTime, sleep, type Logger, type ResourceClient } from './client-support.js';

export interface NodeLeaseOptions {
  leases: ResourceClient<Lease>;
  namespace: string;
  nodeName: string;
  leaseDurationSeconds: number;
  /** The Node's uid, for the lease's owner reference (absent until the Node is known). */
  nodeUid: () => string | undefined;
  logger: Logger;
  /** Told of every renewal that reached the API (metrics, the bench's counts). */
  onRenewed?(lease: Lease): void;
  now?: () => number;
}

const MAX_UPDATE_RETRIES = 5;

export class NodeLease {
  private latest: Lease | undefined;
  private lastRenewedAt = 0;
  private readonly now: () => number;

  constructor(private readonly options: NodeLeaseOptions) {
    this.now = options.now ?? Date.now;
  }

  /** How often it renews: a quarter of the lease duration. */
  get renewIntervalMs(): number {
    return (this.options.leaseDurationSeconds * 1000) / 4;
  }

  /** When the lease was last renewed (ms since the epoch), 0 before the first renewal. */
  get renewedAt(): number {
    return this.lastRenewedAt;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.sync(signal).catch((err: unknown) => {
        if (!signal.aborted) this.options.logger.warn({ err }, 'failed to renew the node lease; will retry');
      });
      await sleep(jitter(this.renewIntervalMs, HEARTBEAT_JITTER), signal).catch(() => undefined);
    }
  }

  /** One renewal: the lease made to exist, then updated with a new renewTime. */
  async sync(signal: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (!this.latest) this.latest = await this.ensure(signal);
      try {
        const renewed = await this.options.leases.update(this.renewed(this.latest));
        this.latest = renewed;
        this.lastRenewedAt = this.now();
        this.options.onRenewed?.(renewed);
        return;
      } catch (error) {
        // Someone else wrote it (or deleted it): read it again before the next try.
        if (isNotFoundOrConflict(error)) this.latest = undefined;
        if (attempt >= MAX_UPDATE_RETRIES || signal.aborted) throw error;
      }
    }
  }

  private renewed(lease: Lease): Lease {
    const { nodeName, leaseDurationSeconds } = this.options;
    const uid = this.options.nodeUid();
    return {
      ...lease,
      metadata: {
        ...lease.metadata,
        // The lease goes with its Node: the garbage collector removes it when the Node is deleted.
        ...(uid && !lease.metadata.ownerReferences?.length && { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid }] }),
      },
      spec: { ...lease.spec, holderIdentity: nodeName, leaseDurationSeconds, renewTime: microTime(this.now()) },
    };
  }

  /** The current lease, created when missing; retried with backoff until it answers or `signal` aborts. */
  private async ensure(signal: AbortSignal): Promise<Lease> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 7000 });
    const leases = this.options.leases.namespace(this.options.namespace);
    for (;;) {
      try {
        return await leases.get(this.options.nodeName);
      } catch (error) {
        if (!isNotFoundOrConflict(error)) {
          if (signal.aborted) throw error;
          this.options.logger.warn({ err: error }, 'failed to read the node lease; backing off');
          await sleep(backoff.step(), signal);
          continue;
        }
      }
      try {
        return await leases.create({ metadata: { name: this.options.nodeName, namespace: this.options.namespace }, spec: {} });
      } catch (error) {
        if (signal.aborted) throw error;
        // AlreadyExists: another writer was first; read it on the next round.
        await sleep(backoff.step(), signal);
      }
    }
  }
}
