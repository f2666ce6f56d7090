// Compaction of etcd's history, shared by every replica through one key.
//
// Each replica ticks once an interval. A tick is a transaction: if the compaction key's version is
// the one this replica last saw, bump it (claiming the interval) and record the current revision;
// otherwise adopt the version someone else wrote. Only the claimant compacts, and it compacts the
// revision recorded one interval earlier, so at least one interval of history is always kept and
// replicas with any phase between their timers compact at most once per interval between them.
import type { EtcdKV } from './kv.js';

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
    private readonly kv: EtcdKV,
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
    // Guarded by the version compare: a retry after the first try was applied fails it, and the
    // interval goes to whoever holds the version then, as if another replica had claimed it.
    const { response } = await this.kv.txn({
      compare: [{ key, result: 'Equal', version: this.seenVersion }],
      success: [{ put: { key, value: Buffer.from(String(this.revisionToCompact)) } }],
      failure: [{ range: { key } }],
    });
    const currentRevision = response.revision;
    if (!response.succeeded) {
      // Another replica claimed this interval.
      const op = response.responses[0];
      this.seenVersion = (op && 'range' in op ? op.range.kvs[0]?.version : undefined) ?? 0;
      this.revisionToCompact = currentRevision;
      return;
    }
    this.seenVersion += 1;
    const target = this.revisionToCompact;
    this.revisionToCompact = currentRevision;
    if (target === 0) return;
    await this.kv.compact(target);
    this.options.onCompacted?.(target);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
