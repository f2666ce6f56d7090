// The database file of the persistent embedded backend: how it is opened, locked and laid out.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/** Bumped when the tables change; a server refuses a file of another version rather than guess. */
export const SCHEMA_VERSION = 2;

const TABLES = `
  -- Every write, its revision the row id. value NULL: the key was deleted at rev.
  -- prev_rev: the live version this write replaced (the previous object of its watch event).
  -- value: JSON text, or a BLOB where a value transformer (encryption at rest) wrote bytes.
  CREATE TABLE IF NOT EXISTS log (
    rev INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    create_rev INTEGER NOT NULL,
    prev_rev INTEGER,
    value TEXT
  );
  CREATE INDEX IF NOT EXISTS log_by_key ON log (key, rev);
  -- Each live key's newest row: reads at the current revision and their counts go by it.
  CREATE TABLE IF NOT EXISTS current (key TEXT PRIMARY KEY, rev INTEGER NOT NULL) WITHOUT ROWID;
  -- The versions written with a time to live (at most one a key: its current one): deleted at
  -- "at" (epoch ms) if still current. Kept here so that they expire after a restart too.
  CREATE TABLE IF NOT EXISTS expiry (key TEXT PRIMARY KEY, rev INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
  -- schema: SCHEMA_VERSION; compacted: the revision below which history is gone.
  CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
`;

/**
 * better-sqlite3, loaded when a database is opened: it is an optional dependency (a native addon,
 * built at install), so that a server on etcd never needs it to load.
 */
function loadSqlite(): typeof Database {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (error) {
    throw new Error(
      `the sqlite storage backend needs the better-sqlite3 package, which did not install or does not load (its native addon is built at npm install, with python3, make and g++): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Opens (creating when absent) the database in `file` for this process alone: a second server on the
 * same file would not see the first one's writes in its watches, so it is refused at once.
 */
export function openDatabase(file: string): Database.Database {
  let db: Database.Database;
  try {
    // timeout 0: a database another process holds is an error now, not after a wait.
    db = new (loadSqlite())(file, { timeout: 0 });
  } catch (error) {
    throw new Error(`cannot open the database ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    // The lock is taken at the first write and held until the connection closes (released by the
    // kernel if the process dies). In WAL mode with it, SQLite keeps the WAL index in memory.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // The write-ahead log is synced at every commit: a write is acknowledged only once on disk.
    db.pragma('synchronous = FULL');
    db.exec('BEGIN IMMEDIATE');
    db.exec(TABLES);
    db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run('schema', SCHEMA_VERSION);
    // Version 1 lacked only the expiry table, which TABLES has just made.
    db.prepare("UPDATE meta SET value = ? WHERE name = 'schema' AND value = 1").run(SCHEMA_VERSION);
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    const busy = error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_BUSY');
    throw new Error(
      busy
        ? `the database ${file} is in use by another process (another plat-apiserver on the same --storage-dir?)`
        : `cannot open the database ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return db;
}
