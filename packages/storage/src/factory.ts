// Picks a storage backend by name: the one place that knows every backend.
import type { Storage } from './interface.js';
import { MemoryStorage } from './memory/store.js';
import { EtcdStorage } from './etcd/store.js';

export type StorageBackendName = 'etcd3' | 'memory';

export interface StorageConfig {
  backend: StorageBackendName;
  /** etcd client URLs, for etcd3. */
  etcdServers?: string[];
  /** Prefix of every key this server writes (kube-apiserver's --etcd-prefix). */
  prefix?: string;
  /** How often to compact history, keeping at least this much; 0 turns compaction off. */
  compactionIntervalMs?: number;
  /** Where background failures (compaction) are reported. */
  onBackgroundError?: (error: unknown, what: string) => void;
}

export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;

export function createStorage(config: StorageConfig): Storage {
  const compactionIntervalMs = config.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  const onBackgroundError = config.onBackgroundError ?? (() => {});
  switch (config.backend) {
    case 'memory':
      return new MemoryStorage({ compactionIntervalMs, onBackgroundError });
    case 'etcd3':
      if (!config.etcdServers?.length) throw new Error('the etcd3 storage backend needs at least one etcd server');
      return new EtcdStorage({
        hosts: config.etcdServers,
        prefix: config.prefix ?? '/registry',
        compactionIntervalMs,
        onBackgroundError,
      });
  }
}
