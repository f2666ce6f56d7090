// The in-memory backend: KVStorage over MemoryKV, compacting on a timer like the etcd one.
import { KVStorage } from '../kv-storage.js';
import { startIntervalCompaction } from '../interval-compaction.js';
import { MemoryKV } from './kv.js';
import type { ResourceTransformers } from '../value/resource-transformers.js';

export interface MemoryStorageOptions {
  /** Keep at least this much history; 0: never compact. */
  compactionIntervalMs?: number;
  onBackgroundError?: (error: unknown, what: string) => void;
  /** Encryption at rest per resource. */
  transformers?: ResourceTransformers;
}

export class MemoryStorage extends KVStorage {
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStorageOptions = {}) {
    const kv = new MemoryKV();
    super(kv, '', options.transformers);
    const interval = options.compactionIntervalMs ?? 0;
    if (interval > 0) this.timer = startIntervalCompaction(kv, interval, options.onBackgroundError ?? (() => {}));
  }

  override async close(): Promise<void> {
    clearInterval(this.timer);
    await super.close();
  }
}
