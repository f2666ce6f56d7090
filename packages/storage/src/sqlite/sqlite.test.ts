import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runStorageConformance } from '../testing/conformance.js';
import { SqliteStorage } from './store.js';

const root = mkdtempSync(join(tmpdir(), 'plat-sqlite-conformance-'));
after(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;

runStorageConformance({ name: 'sqlite', newStore: async () => new SqliteStorage({ dir: join(root, String(++stores)) }) });

describe('sqlite: time to live across a restart', () => {
  it('a version whose time passed while the server was down expires when it opens; a later one waits for its time', async () => {
    const dir = join(root, 'ttl-restart');
    const first = new SqliteStorage({ dir });
    await first.create('/e/soon', { metadata: { name: 'soon' } }, { ttl: 1 });
    await first.create('/e/later', { metadata: { name: 'later' } }, { ttl: 600 });
    await first.close();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = new SqliteStorage({ dir });
    try {
      const watch = await second.watch('/e/', { recursive: true, revision: 1 });
      // The store's timers hold no process open: the test's deadline does, while it waits.
      const deadline = setTimeout(() => watch.stop(), 10_000);
      const seen: string[] = [];
      for await (const event of watch) {
        seen.push(`${event.type} ${event.object.metadata?.name}`);
        if (event.type === 'DELETED') break;
      }
      watch.stop();
      clearTimeout(deadline);
      assert.deepEqual(seen, ['ADDED soon', 'ADDED later', 'DELETED soon']);
      assert.deepEqual((await second.list('/e/')).items.map((item) => item.metadata?.name), ['later']);
    } finally {
      await second.close();
    }
  });
});
