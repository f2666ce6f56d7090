// The embedded backend: the generic store over MemoryKV, compacting on a timer like the etcd one.
import { KVStorage } from '../store.js';
import { MemoryKV } from './kv.js';

export interface MemoryStorageOptions {
  /** Keep at least this much history; 0: never compact. */
  compactionIntervalMs?: number;
  onBackgroundError?: (error: unknown, what: string) => void;
}

export class MemoryStorage extends KVStorage {
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStorageOptions = {}) {
    const kv = new MemoryKV();
    super(kv);
    const interval = options.compactionIntervalMs ?? 0;
    if (interval > 0) {
      // Compact at the revision seen one interval ago, so that an interval of history is kept.
      let seenLastTick = 0;
      this.timer = setInterval(() => {
        const target = seenLastTick;
        void kv.currentRevision().then((revision) => (seenLastTick = revision));
        if (target > 0) kv.compact(target).catch((error) => options.onBackgroundError?.(error, 'compaction'));
      }, interval);
      this.timer.unref();
    }
  }

  override async close(): Promise<void> {
    clearInterval(this.timer);
    await super.close();
  }
}
