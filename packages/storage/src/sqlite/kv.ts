// The persistent embedded backend's KV: etcd's data model in one SQLite database (better-sqlite3,
// WAL mode, synchronous=FULL). Every write is a row of `log` (its revision the row id), so the log
// is both the history that reads at a past revision need and the event log that watches from a past
// revision replay; `current` points each live key at its newest row. One process owns the database
// (an exclusive lock): live watches are fed in process, as the in-memory backend's are.
//
// Writes are committed in groups: those that arrive while the event loop is busy wait for the next
// turn, are applied in one transaction (each compare checked against the writes before it) and
// acknowledged once that transaction's commit has reached the disk, so one fsync serves them all.
import type Database from 'better-sqlite3';
import type { CompareResult, KV, KVEvent, KeyValue, RangeRequest, RangeResult, StoredValue, WatchHandle, WatchSink } from '../kv.js';
import { gone, tooLargeResourceVersion, unavailable } from '../errors.js';
import { LocalWatchers } from '../local-watchers.js';
import { checkCompareAndPutSize } from '../request-size.js';
import { SCHEMA_VERSION, openDatabase } from './schema.js';
import { ExpiryTimer, expiryTime } from '../expiry.js';

interface Row {
  rev: number;
  key: string;
  create_rev: number;
  value: StoredValue | null;
}

interface EventRow extends Row {
  prev_rev: number | null;
  prev_create_rev: number | null;
  prev_value: StoredValue | null;
}

interface PendingWrite {
  key: string;
  /** null: a delete. */
  value: StoredValue | null;
  expectedModRevision: number;
  /** Seconds the put version lives; 0: until deleted. */
  ttlSeconds: number;
  resolve(result: CompareResult): void;
  reject(error: unknown): void;
}

const toKeyValue = (row: Row): KeyValue => ({ key: row.key, value: row.value!, modRevision: row.rev, createRevision: row.create_rev });

/** etcd's convention: a range end of "\0" means every key from the start on. */
const UNBOUNDED = '\0';
/** Past every key (keys are ASCII): the upper bound that stands for no bound. */
const PAST_EVERY_KEY = '\u{10FFFF}';
const upperBound = (end: string): string => (end === UNBOUNDED ? PAST_EVERY_KEY : end);

export interface SqliteKVOptions {
  /** The database file; its write-ahead log is `<file>-wal` beside it. */
  file: string;
  /** Told of an expiry's delete that failed (the store closing under it, a disk error). */
  onBackgroundError?: (error: unknown, what: string) => void;
}

export class SqliteKV implements KV {
  private readonly db: Database.Database;
  private revision: number;
  private compacted: number;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly watchers = new LocalWatchers(() => this.revision);
  /** Versions written with a TTL (the expiry table's rows), deleted when it has passed. */
  private readonly expiry: ExpiryTimer;
  private closed = false;
  private readonly statements;

  constructor({ file, onBackgroundError }: SqliteKVOptions) {
    this.db = openDatabase(file);
    const db = this.db;
    this.statements = {
      latest: db.prepare<[string], Row>('SELECT l.rev, l.key, l.create_rev, l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key = ?'),
      at: db.prepare<[string, number], Row>('SELECT rev, key, create_rev, value FROM log WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1'),
      rangeLatest: db.prepare<[string, string, number], Row>(
        'SELECT l.rev, l.key, l.create_rev, l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?',
      ),
      countLatest: db.prepare<[string, string], { count: number }>('SELECT count(*) AS count FROM current WHERE key >= ? AND key < ?'),
      // A key's version at R is its newest row at or below R; a delete's row hides it.
      rangeAt: db.prepare<{ start: string; end: string; revision: number; limit: number }, Row>(
        `SELECT l.rev, l.key, l.create_rev, l.value FROM log l
          WHERE l.key >= :start AND l.key < :end AND l.rev <= :revision AND l.value IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM log n WHERE n.key = l.key AND n.rev > l.rev AND n.rev <= :revision)
          ORDER BY l.key LIMIT :limit`,
      ),
      countAt: db.prepare<{ start: string; end: string; revision: number }, { count: number }>(
        `SELECT count(*) AS count FROM log l
          WHERE l.key >= :start AND l.key < :end AND l.rev <= :revision AND l.value IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM log n WHERE n.key = l.key AND n.rev > l.rev AND n.rev <= :revision)`,
      ),
      events: db.prepare<[number, string, string], EventRow>(
        `SELECT l.rev, l.key, l.create_rev, l.value, p.rev AS prev_rev, p.create_rev AS prev_create_rev, p.value AS prev_value
           FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
          WHERE l.rev > ? AND l.key >= ? AND l.key < ? ORDER BY l.rev`,
      ),
      insert: db.prepare<[number, string, number, number | null, StoredValue | null]>('INSERT INTO log (rev, key, create_rev, prev_rev, value) VALUES (?, ?, ?, ?, ?)'),
      setCurrent: db.prepare<[string, number]>('INSERT INTO current (key, rev) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev'),
      unsetCurrent: db.prepare<[string]>('DELETE FROM current WHERE key = ?'),
      // Kept below R: each key's newest live version (what a read at R finds), and the version each
      // write at R replaced (its event's previous object). Everything at or above R is kept.
      compact: db.prepare<{ revision: number }>(
        `DELETE FROM log WHERE rev < :revision
            AND (value IS NULL OR EXISTS (SELECT 1 FROM log n WHERE n.key = log.key AND n.rev > log.rev AND n.rev < :revision))`,
      ),
      setExpiry: db.prepare<[string, number, number]>(
        'INSERT INTO expiry (key, rev, at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev, at = excluded.at',
      ),
      unsetExpiry: db.prepare<[string]>('DELETE FROM expiry WHERE key = ?'),
      setMeta: db.prepare<[string, number]>('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
      health: db.prepare('SELECT 1'),
    };
    const meta = (name: string): number =>
      (db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?').get(name)?.value ?? 0);
    if (meta('schema') !== SCHEMA_VERSION) throw new Error(`${file}: schema version ${meta('schema')}, this server reads ${SCHEMA_VERSION}`);
    this.compacted = meta('compacted');
    // As etcd, an empty store is at revision 1: the first write is revision 2.
    this.revision = Math.max(1, db.prepare<[], { rev: number | null }>('SELECT max(rev) AS rev FROM log').get()?.rev ?? 0);
    this.expiry = new ExpiryTimer(
      (key, modRevision) => this.compareAndDelete(key, modRevision),
      (error) => onBackgroundError?.(error, 'expiry'),
    );
    // What was due while the server was down expires at once.
    for (const row of db.prepare<[], { key: string; rev: number; at: number }>('SELECT key, rev, at FROM expiry').iterate()) {
      this.expiry.add(row.key, row.rev, row.at);
    }
  }

  private checkOpen(): void {
    if (this.closed) throw unavailable('storage is closed');
  }

  private checkReadRevision(revision: number): number {
    if (revision === 0) return this.revision;
    if (revision > this.revision) throw tooLargeResourceVersion(revision, this.revision);
    if (revision < this.compacted) throw gone(revision, this.compacted);
    return revision;
  }

  private live(key: string, revision: number): KeyValue | null {
    const row = revision === this.revision ? this.statements.latest.get(key) : this.statements.at.get(key, revision);
    return row && row.value !== null ? toKeyValue(row) : null;
  }

  async get(key: string, revision: number): Promise<KeyValue | null> {
    this.checkOpen();
    return this.live(key, this.checkReadRevision(revision));
  }

  async range({ start, end, revision, limit }: RangeRequest): Promise<RangeResult> {
    this.checkOpen();
    const readAt = this.checkReadRevision(revision);
    const bound = upperBound(end);
    // One row past the limit tells whether any remain; only then are they counted.
    const take = limit > 0 ? limit + 1 : -1;
    const rows =
      readAt === this.revision
        ? this.statements.rangeLatest.all(start, bound, take)
        : this.statements.rangeAt.all({ start, end: bound, revision: readAt, limit: take });
    let remaining = 0;
    if (limit > 0 && rows.length > limit) {
      rows.length = limit;
      const total =
        readAt === this.revision
          ? this.statements.countLatest.get(start, bound)!.count
          : this.statements.countAt.get({ start, end: bound, revision: readAt })!.count;
      remaining = total - limit;
    }
    return { kvs: rows.map(toKeyValue), revision: readAt, remaining };
  }

  async compareAndPut(key: string, expectedModRevision: number, value: StoredValue, ttlSeconds = 0): Promise<CompareResult> {
    this.checkOpen();
    checkCompareAndPutSize(key, value, expectedModRevision);
    return this.enqueue(key, expectedModRevision, value, ttlSeconds);
  }

  async compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult> {
    this.checkOpen();
    return this.enqueue(key, expectedModRevision, null, 0);
  }

  private enqueue(key: string, expectedModRevision: number, value: StoredValue | null, ttlSeconds: number): Promise<CompareResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, value, expectedModRevision, ttlSeconds, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Applies the waiting writes in one transaction; answers each once the commit is on disk. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const results: CompareResult[] = [];
    const events: KVEvent[] = [];
    /** The expiries this batch sets (a due time) or ends (undefined), applied once it commits. */
    const expiries = new Map<string, { revision: number; at: number } | undefined>();
    let revision = this.revision;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        for (const write of batch) {
          const row = this.statements.latest.get(write.key);
          const current = row && row.value !== null ? toKeyValue(row) : null;
          const found = current?.modRevision ?? 0;
          // A delete needs the key present; a put with 0 needs it absent.
          if (found !== write.expectedModRevision || (write.value === null && !current)) {
            results.push({ succeeded: false, current });
            continue;
          }
          revision++;
          // A write replaces the expiry of the version before it; a put with a TTL sets its own.
          if (write.ttlSeconds > 0) {
            const at = expiryTime(write.ttlSeconds);
            this.statements.setExpiry.run(write.key, revision, at);
            expiries.set(write.key, { revision, at });
          } else if (this.expiry.has(write.key) || expiries.get(write.key)) {
            this.statements.unsetExpiry.run(write.key);
            expiries.set(write.key, undefined);
          }
          if (write.value === null) {
            this.statements.insert.run(revision, write.key, 0, current!.modRevision, null);
            this.statements.unsetCurrent.run(write.key);
            events.push({ type: 'delete', kv: { key: write.key, value: '', modRevision: revision, createRevision: 0 }, previous: current! });
            results.push({ succeeded: true, revision, previous: current! });
          } else {
            const createRevision = current?.createRevision ?? revision;
            this.statements.insert.run(revision, write.key, createRevision, current?.modRevision ?? null, write.value);
            this.statements.setCurrent.run(write.key, revision);
            const kv = { key: write.key, value: write.value, modRevision: revision, createRevision };
            events.push(current ? { type: 'put', kv, previous: current } : { type: 'put', kv });
            results.push(current ? { succeeded: true, revision, previous: current } : { succeeded: true, revision });
          }
        }
        this.db.exec('COMMIT');
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    } catch (error) {
      const failure = unavailable(`the embedded store could not commit: ${error instanceof Error ? error.message : String(error)}`, error);
      for (const write of batch) write.reject(failure);
      return;
    }
    this.revision = revision;
    for (const [key, expiry] of expiries) {
      if (expiry) this.expiry.add(key, expiry.revision, expiry.at);
      else this.expiry.forget(key);
    }
    for (const event of events) this.watchers.emit(event);
    batch.forEach((write, i) => write.resolve(results[i]!));
  }

  async watch(start: string, end: string, afterRevision: number, sink: WatchSink): Promise<WatchHandle> {
    this.checkOpen();
    const bound = upperBound(end);
    return this.watchers.add(start, bound, afterRevision, this.compacted, sink, () => {
      if (afterRevision === 0 || afterRevision >= this.revision) return;
      for (const row of this.statements.events.iterate(afterRevision, start, bound)) sink.push(toEvent(row));
    });
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.revision) throw tooLargeResourceVersion(revision, this.revision);
    if (revision <= this.compacted) return;
    this.db.transaction(() => {
      this.statements.compact.run({ revision });
      this.statements.setMeta.run('compacted', revision);
    })();
    this.compacted = revision;
  }

  async checkHealth(): Promise<void> {
    this.checkOpen();
    this.statements.health.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes already accepted are committed (and answered) before the database closes.
    this.flush();
    this.closed = true;
    this.expiry.stop();
    this.watchers.failAll(unavailable('storage is closed'));
    this.db.close();
  }
}

function toEvent(row: EventRow): KVEvent {
  const previous =
    row.prev_rev !== null && row.prev_value !== null
      ? { key: row.key, value: row.prev_value, modRevision: row.prev_rev, createRevision: row.prev_create_rev! }
      : undefined;
  if (row.value === null) {
    return { type: 'delete', kv: { key: row.key, value: '', modRevision: row.rev, createRevision: 0 }, ...(previous && { previous }) };
  }
  return { type: 'put', kv: toKeyValue(row), ...(previous && { previous }) };
}
