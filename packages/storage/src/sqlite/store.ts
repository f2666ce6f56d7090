// The persistent embedded backend: KVStorage over SqliteKV (one database file in a folder
// of its own), compacting on a timer like the in-memory one.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KVStorage } from '../kv-storage.js';
import { startIntervalCompaction } from '../interval-compaction.js';
import { SqliteKV } from './kv.js';
import type { ResourceTransformers } from '../value/resource-transformers.js';

/** The database's name in the storage folder; SQLite keeps `<name>-wal` beside it. */
export const DATABASE_FILE = 'plat.db';

export interface SqliteStorageOptions {
  /** The folder that holds the database (created when missing). */
  dir: string;
  /** Prefix of every key (--etcd-prefix), so that keys read as etcd's do. */
  prefix?: string;
  /** Keep at least this much history; 0: never compact. */
  compactionIntervalMs?: number;
  onBackgroundError?: (error: unknown, what: string) => void;
  /** Encryption at rest per resource. */
  transformers?: ResourceTransformers;
}

export class SqliteStorage extends KVStorage {
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(options: SqliteStorageOptions) {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    const kv = new SqliteKV({ file: join(options.dir, DATABASE_FILE), ...(options.onBackgroundError && { onBackgroundError: options.onBackgroundError }) });
    super(kv, (options.prefix ?? '').replace(/\/+$/, ''), options.transformers);
    const interval = options.compactionIntervalMs ?? 0;
    if (interval > 0) this.timer = startIntervalCompaction(kv, interval, options.onBackgroundError ?? (() => {}));
  }

  override async close(): Promise<void> {
    clearInterval(this.timer);
    await super.close();
  }
}
