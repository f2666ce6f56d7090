// Compaction of etcd's history, shared by every replica through one key.
//
// Each replica ticks once an interval. A tick is a transaction: if the compaction key's version is
// the one this replica last saw, bump it (claiming the interval) and record the current revision;
// otherwise adopt the version someone else wrote. Only the claimant compacts, and it compacts the
// revision recorded one interval earlier, so at least one interval of history is always kept and
// replicas with any phase between their timers compact at most once per interval between them.
import type { Etcd3 } from 'etcd3';

/** Outside any --etcd-prefix: compaction is of the whole etcd keyspace. */
export const COMPACT_REVISION_KEY = 'compact_rev_key';

export interface CompactorOptions {
  intervalMs: number;
  /** Called after this replica compacted at `revision`. */
  onCompacted?: (revision: number) => void;
  onError: (error: unknown, what: string) => void;
}

export class Compactor {
  private seenVersion = 0;
  private revisionToCompact = 0;
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Etcd3,
    private readonly options: CompactorOptions,
  ) {
    this.timer = setInterval(() => {
      this.running = this.tick().catch((error) => options.onError(error, 'compaction'));
    }, options.intervalMs);
    this.timer.unref();
  }

  /** One interval's turn; exposed for tests that drive the schedule themselves. */
  async tick(): Promise<void> {
    const key = Buffer.from(COMPACT_REVISION_KEY);
    const response = await this.client.kv.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version: this.seenVersion }],
      success: [{ request_put: { key, value: Buffer.from(String(this.revisionToCompact)) } }],
      failure: [{ request_range: { key } }],
    });
    const currentRevision = Number(response.header.revision);
    if (!response.succeeded) {
      // Another replica claimed this interval.
      this.seenVersion = Number(response.responses[0]?.response_range.kvs[0]?.version ?? 0);
      this.revisionToCompact = currentRevision;
      return;
    }
    this.seenVersion += 1;
    const target = this.revisionToCompact;
    this.revisionToCompact = currentRevision;
    if (target === 0) return;
    try {
      await this.client.kv.compact({ revision: target, physical: false });
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('required revision has been compacted'))) throw error;
    }
    this.options.onCompacted?.(target);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
