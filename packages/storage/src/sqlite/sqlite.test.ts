import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { runStorageConformance } from '../testing/conformance.js';
import { SqliteStorage } from './store.js';

const root = mkdtempSync(join(tmpdir(), 'plat-sqlite-conformance-'));
after(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;

runStorageConformance({ name: 'sqlite', newStore: async () => new SqliteStorage({ dir: join(root, String(++stores)) }) });
