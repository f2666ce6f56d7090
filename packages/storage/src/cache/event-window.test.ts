import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredObject, WatchEvent } from '../interface.js';
import { EventWindow } from './event-window.js';

const object = (name: string, revision: number): StoredObject => ({ metadata: { name, resourceVersion: String(revision) } }) as StoredObject;

/** A small deterministic generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('lists and counts stay in key order as keys come and go between them', () => {
  const window = new EventWindow({ historyWindowMs: 60_000, maxHistoryEvents: 100 });
  const next = random(7);
  const model = new Map<string, StoredObject>();
  const prefixes = ['/a/', '/a/x/', '/b/', '/'];
  let revision = 1;
  for (let step = 0; step < 3000; step++) {
    const key = `/${next() < 0.5 ? 'a' : 'b'}/${next() < 0.3 ? 'x/' : ''}${Math.floor(next() * 200)}`;
    revision++;
    const event: WatchEvent = model.has(key) && next() < 0.4
      ? { type: 'DELETED', key, revision, object: model.get(key)! }
      : { type: model.has(key) ? 'MODIFIED' : 'ADDED', key, revision, object: object(key, revision) };
    if (event.type === 'DELETED') model.delete(key);
    else model.set(key, event.object);
    window.apply(event);
    // Lists now and then: the order is built once, then kept as keys come and go.
    if (next() < 0.1) {
      const prefix = prefixes[Math.floor(next() * prefixes.length)]!;
      const expected = [...model.keys()].filter((k) => k.startsWith(prefix)).sort();
      const listed = window.list(prefix);
      assert.deepEqual(listed.keys, expected, `step ${step}, ${prefix}`);
      assert.deepEqual(listed.items, expected.map((k) => model.get(k)));
      assert.equal(window.count(prefix), expected.length);
    }
  }
});

test('a sample is spread through the objects below the prefix, at most as many as asked', () => {
  const window = new EventWindow({ historyWindowMs: 60_000, maxHistoryEvents: 100 });
  const objects = new Map<string, StoredObject>();
  for (let i = 0; i < 100; i++) objects.set(`/a/${String(i).padStart(3, '0')}`, object(`a${i}`, i + 1));
  objects.set('/b/x', object('bx', 200));
  window.reset(objects, 300);
  const names = (prefix: string, count: number) => window.sample(prefix, count).map((o) => o.metadata!.name);
  assert.deepEqual(names('/a/', 4), ['a0', 'a25', 'a50', 'a75']);
  assert.deepEqual(names('/b/', 4), ['bx']);
  assert.deepEqual(names('/c/', 4), []);
  assert.equal(names('/', 16).length, 16);
});
