// Picks a storage backend by name: the one place that knows every backend.
import type { Storage } from './interface.js';
import { MemoryStorage } from './memory/store.js';
import { EtcdStorage } from './etcd/store.js';
import { SqliteStorage } from './sqlite/store.js';
import type { EndpointEvent as EtcdEndpointEvent } from './etcd/channel.js';
import type { ResourceTransformers } from './value/resource-transformers.js';

export type { EtcdEndpointEvent };

export type StorageBackendName = 'etcd3' | 'sqlite' | 'memory';

export interface StorageConfig {
  backend: StorageBackendName;
  /** For sqlite: the folder that keeps the database. */
  dir?: string;
  /** etcd client URLs, for etcd3. */
  etcdServers?: string[];
  /** For https etcd URLs: the CA to trust (default: the system's), this client's certificate and key (PEM). */
  etcdTls?: { ca?: string; cert?: string; key?: string };
  /** How long the health check waits for some etcd member to answer; default 2 s. */
  healthTimeoutMs?: number;
  /** An etcd member failed, or answers again (for the log). */
  onEtcdEndpointEvent?: (event: EtcdEndpointEvent) => void;
  /** Prefix of every key this server writes (kube-apiserver's --etcd-prefix), etcd3 and sqlite. */
  prefix?: string;
  /** How often to compact history, keeping at least this much; 0 turns compaction off. */
  compactionIntervalMs?: number;
  /** Where background failures (compaction) are reported. */
  onBackgroundError?: (error: unknown, what: string) => void;
  /** What each resource's values go through in the store (--encryption-provider-config). */
  transformers?: ResourceTransformers;
}

const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;

export function createStorage(config: StorageConfig): Storage {
  const compactionIntervalMs = config.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  const onBackgroundError = config.onBackgroundError ?? (() => {});
  const transformers = config.transformers && { transformers: config.transformers };
  switch (config.backend) {
    case 'memory':
      return new MemoryStorage({ compactionIntervalMs, onBackgroundError, ...transformers });
    case 'sqlite':
      if (!config.dir) throw new Error('the sqlite storage backend needs a folder for its database');
      return new SqliteStorage({ dir: config.dir, prefix: config.prefix ?? '/registry', compactionIntervalMs, onBackgroundError, ...transformers });
    case 'etcd3':
      if (!config.etcdServers?.length) throw new Error('the etcd3 storage backend needs at least one etcd server');
      return new EtcdStorage({
        hosts: config.etcdServers,
        prefix: config.prefix ?? '/registry',
        compactionIntervalMs,
        onBackgroundError,
        ...transformers,
        ...(config.etcdTls && { tls: config.etcdTls }),
        ...(config.healthTimeoutMs !== undefined && { healthTimeoutMs: config.healthTimeoutMs }),
        ...(config.onEtcdEndpointEvent && { onEndpointEvent: config.onEtcdEndpointEvent }),
      });
  }
}
