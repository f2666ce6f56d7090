// What the persistent backend adds to the conformance suite: the data, its revisions, its history
// and its compaction outlive the process, a kill -9 included, and one process owns a database.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { StoredObject, WatchEvent } from '../interface.js';
import { isStorageError } from '../errors.js';
import { SqliteStorage } from './store.js';

interface Thing extends StoredObject {
  metadata: { name: string; resourceVersion?: string };
  count?: number;
}

const thing = (name: string, count = 0): Thing => ({ metadata: { name }, count });

async function take<T extends StoredObject>(watch: AsyncIterable<WatchEvent<T>> & { stop(): void }, count: number): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  const timer = setTimeout(() => watch.stop(), 10_000);
  for await (const event of watch) {
    events.push(event);
    if (events.length === count) break;
  }
  clearTimeout(timer);
  return events;
}

describe('sqlite backend: persistence', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'plat-sqlite-durability-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('objects, revisions, history and compaction survive a restart; a watch resumes from an old revision', async () => {
    const dir = join(root, 'restart');
    const first = new SqliteStorage({ dir, prefix: '/registry' });
    const a = await first.create('/things/a', thing('a', 1));
    const a2 = await first.guaranteedUpdate<Thing>('/things/a', (current) => ({ ...current!, count: 2 }));
    await first.create('/things/b', thing('b'));
    const beforeCompaction = await first.currentRevision();
    await first.create('/things/c', thing('c'));
    await first.compact(beforeCompaction);
    const resumeFrom = await first.currentRevision();
    await first.delete('/things/b');
    const last = await first.currentRevision();
    await first.close();

    const second = new SqliteStorage({ dir, prefix: '/registry' });
    try {
      assert.equal(await second.currentRevision(), last);
      assert.deepEqual(await second.get<Thing>('/things/a'), a2);
      assert.equal((await second.get<Thing>('/things/a', { revision: beforeCompaction })).count, 2);
      const listed = await second.list<Thing>('/things/');
      assert.deepEqual(listed.items.map((item) => item.metadata.name), ['a', 'c']);
      assert.deepEqual((await second.list<Thing>('/things/', { revision: resumeFrom })).items.map((item) => item.metadata.name), ['a', 'b', 'c']);
      // The compaction is remembered: the revisions below it stay gone.
      await assert.rejects(second.get('/things/a', { revision: Number(a.metadata?.resourceVersion) }), (error: unknown) => isStorageError(error, 'Gone'));
      const watch = await second.watch<Thing>('/things/', { recursive: true, revision: resumeFrom });
      const created = second.create('/things/d', thing('d'));
      const events = await take(watch, 2);
      watch.stop();
      assert.equal((await created).metadata?.resourceVersion, String(last + 1), 'revisions go on from where they were');
      assert.deepEqual(
        events.map((event) => [event.type, event.object.metadata.name, event.revision]),
        [
          ['DELETED', 'b', last],
          ['ADDED', 'd', last + 1],
        ],
      );
      assert.equal(events[0]!.previous?.metadata.name, 'b');
    } finally {
      await second.close();
    }
  });

  it('a second store on the same folder is refused while the first has it open', async () => {
    const dir = join(root, 'locked');
    const owner = new SqliteStorage({ dir });
    try {
      await owner.create('/x', thing('x'));
      assert.throws(() => new SqliteStorage({ dir }), /in use by another process/);
      assert.equal((await owner.get<Thing>('/x')).metadata.name, 'x');
    } finally {
      await owner.close();
    }
    const next = new SqliteStorage({ dir });
    assert.equal((await next.get<Thing>('/x')).metadata.name, 'x');
    await next.close();
  });

  it('a kill -9 in the middle of 1,000 writes loses no acknowledged write', async () => {
    const dir = join(root, 'killed');
    const store = fileURLToPath(new URL('./store.js', import.meta.url));
    // The writer: 1,000 writes, 16 in flight (so commits are grouped), creates and updates mixed;
    // it prints each write once acknowledged.
    const writer = `
      const { SqliteStorage } = await import(${JSON.stringify(store)});
      const storage = new SqliteStorage({ dir: ${JSON.stringify(dir)}, prefix: '/registry' });
      let next = 0;
      const write = async (i) => {
        const name = 'item-' + (i >> 1);
        const object = i % 2 === 0
          ? await storage.create('/things/' + name, { metadata: { name }, count: 0 })
          : await storage.guaranteedUpdate('/things/' + name, (current) => ({ ...current, count: i }));
        process.stdout.write('ack ' + name + ' ' + i + ' ' + object.metadata.resourceVersion + '\\n');
      };
      // Pairs: the update of a key follows its create.
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (next < 1000) { const i = next; next += 2; await write(i); await write(i + 1); }
      }));
      process.stdout.write('done\\n');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked = new Map<string, { count: number; revision: number }>();
    let killedAfter = 0;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    for await (const line of createInterface({ input: child.stdout })) {
      const [word, name, count, revision] = line.split(' ');
      if (word !== 'ack') continue;
      acked.set(name!, { count: Number(count) % 2 === 0 ? 0 : Number(count), revision: Number(revision) });
      if (++killedAfter === 400) child.kill('SIGKILL');
    }
    assert.equal(await exited, 'SIGKILL', 'the writer was killed before it finished');
    assert.ok(acked.size >= 200, `acknowledged ${acked.size} keys before the kill`);

    const reopened = new SqliteStorage({ dir, prefix: '/registry' });
    try {
      const { items } = await reopened.list<Thing>('/things/');
      const found = new Map(items.map((item) => [item.metadata.name, item]));
      for (const [name, { count, revision }] of acked) {
        const item = found.get(name);
        assert.ok(item, `${name} was acknowledged at revision ${revision} and is missing`);
        // The acknowledged write, or a later one of the same key.
        assert.ok(Number(item.metadata.resourceVersion) >= revision, `${name}: ${item.metadata.resourceVersion} < ${revision}`);
        if (Number(item.metadata.resourceVersion) === revision) assert.equal(item.count, count);
      }
      // The store goes on past every acknowledged revision.
      const highest = Math.max(...[...acked.values()].map((ack) => ack.revision));
      const created = await reopened.create('/things/after', thing('after'));
      assert.ok(Number(created.metadata?.resourceVersion) > highest);
    } finally {
      await reopened.close();
    }
  });
});
