// The storage conformance suite: one table of named cases that every backend runs unchanged.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Storage, StoredObject, WatchEvent, Watch } from '../interface.js';
import { isStorageError, type StorageErrorCode } from '../errors.js';

export interface ConformanceOptions {
  /** The backend's name, shown in the test titles. */
  name: string;
  /** A store for one case; cases use distinct key prefixes, so stores may share a backend. */
  newStore: () => Promise<Storage>;
}

interface Thing extends StoredObject {
  metadata: { name: string; uid?: string; resourceVersion?: string };
  count?: number;
  data?: string;
}

const thing = (name: string, extra: Partial<Thing> = {}): Thing => ({ metadata: { name, uid: `uid-${name}` }, ...extra });

async function rejectsWith(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isStorageError(error), `expected a StorageError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

/** Reads `count` events from a watch, failing if they do not arrive within `timeoutMs`. */
async function take<T extends StoredObject>(watch: Watch<T>, count: number, timeoutMs = 10_000): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  if (count === 0) return events;
  const timer = setTimeout(() => watch.stop(), timeoutMs);
  try {
    for await (const event of watch) {
      events.push(event);
      if (events.length === count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  assert.equal(events.length, count, `expected ${count} watch events, got ${events.length}`);
  return events;
}

let caseNumber = 0;

export function runStorageConformance({ name, newStore }: ConformanceOptions): void {
  describe(`storage conformance: ${name}`, () => {
    let store: Storage;
    let prefix: string;
    const key = (item: string): string => `${prefix}${item}`;

    before(async () => {
      store = await newStore();
    });
    after(async () => {
      await store.close();
    });

    const cases: Record<string, () => Promise<void>> = {
      'create stores the object and sets resourceVersion from the revision': async () => {
        const before = await store.currentRevision();
        const created = await store.create(key('a'), thing('a', { data: 'x' }));
        assert.equal(created.data, 'x');
        const revision = Number(created.metadata?.resourceVersion);
        assert.ok(revision > before, `resourceVersion ${revision} should be above ${before}`);
        assert.equal(await store.currentRevision(), revision);
        const read = await store.get<Thing>(key('a'));
        assert.deepEqual(read, created);
      },

      'create ignores a resourceVersion in the object': async () => {
        const created = await store.create(key('a'), { metadata: { name: 'a', resourceVersion: '999999' } });
        assert.notEqual(created.metadata?.resourceVersion, '999999');
      },

      'create twice gives AlreadyExists': async () => {
        await store.create(key('a'), thing('a'));
        await rejectsWith(store.create(key('a'), thing('a')), 'AlreadyExists');
      },

      'get of a missing key gives NotFound': async () => {
        await rejectsWith(store.get(key('missing')), 'NotFound');
      },

      'get at an old revision returns the object as it was': async () => {
        const first = await store.create(key('a'), thing('a', { count: 1 }));
        await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 2 }));
        const old = await store.get<Thing>(key('a'), { revision: Number(first.metadata?.resourceVersion) });
        assert.equal(old.count, 1);
      },

      'get or list at a revision beyond the current one gives TooLargeResourceVersion': async () => {
        const current = await store.currentRevision();
        await rejectsWith(store.get(key('a'), { revision: current + 100 }), 'TooLargeResourceVersion');
        await rejectsWith(store.list(prefix, { revision: current + 100 }), 'TooLargeResourceVersion');
      },

      'update with a stale resourceVersion precondition gives Conflict': async () => {
        const created = await store.create(key('a'), thing('a', { count: 1 }));
        await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 2 }));
        const stale = { resourceVersion: created.metadata?.resourceVersion ?? '' };
        await rejectsWith(
          store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 3 }), { preconditions: stale }),
          'Conflict',
        );
        assert.equal((await store.get<Thing>(key('a'))).count, 2);
      },

      'update with another uid precondition gives Conflict': async () => {
        await store.create(key('a'), thing('a'));
        await rejectsWith(
          store.guaranteedUpdate<Thing>(key('a'), (current) => current!, { preconditions: { uid: 'other' } }),
          'Conflict',
        );
      },

      'update of a missing key gives NotFound unless ignoreNotFound': async () => {
        await rejectsWith(store.guaranteedUpdate<Thing>(key('a'), () => thing('a')), 'NotFound');
        const created = await store.guaranteedUpdate<Thing>(key('a'), (current) => current ?? thing('a', { count: 7 }), {
          ignoreNotFound: true,
        });
        assert.equal(created.count, 7);
        assert.equal((await store.get<Thing>(key('a'))).count, 7);
      },

      // etcd's default --max-request-bytes (1.5 MiB) counts the whole request, key and framing
      // included: a value just under it is refused too. Above it by 512 KiB etcd's gRPC server
      // refuses the message unread; the store says the same.
      'a write larger than a default etcd takes gives RequestTooLarge and changes nothing': async () => {
        const limit = 1.5 * 1024 * 1024;
        await rejectsWith(store.create(key('a'), thing('a', { data: 'x'.repeat(limit - 64) })), 'RequestTooLarge');
        await rejectsWith(store.create(key('a'), thing('a', { data: 'x'.repeat(2.5 * 1024 * 1024) })), 'RequestTooLarge');
        await rejectsWith(store.get(key('a')), 'NotFound');
        const revision = await store.currentRevision();
        const created = await store.create(key('a'), thing('a', { data: 'x'.repeat(limit - 4096) }));
        assert.equal(Number(created.metadata?.resourceVersion), revision + 1);
        await rejectsWith(
          store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, data: `${current!.data!}${'y'.repeat(4096)}` })),
          'RequestTooLarge',
        );
        assert.equal((await store.get<Thing>(key('a'))).metadata.resourceVersion, created.metadata?.resourceVersion);
        await rejectsWith(store.guaranteedUpdate<Thing>(key('b'), () => thing('b', { data: '\u00e9'.repeat(limit / 2) }), { ignoreNotFound: true }), 'RequestTooLarge');
        assert.equal(await store.currentRevision(), revision + 1);
      },

      'update that changes nothing writes nothing': async () => {
        const created = await store.create(key('a'), thing('a', { count: 1 }));
        const revision = await store.currentRevision();
        const same = await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current! }));
        assert.equal(same.metadata.resourceVersion, created.metadata?.resourceVersion);
        // The same content with its keys in another order is no change either.
        const reordered = await store.guaranteedUpdate<Thing>(key('a'), (current) => Object.fromEntries(Object.entries(current!).reverse()) as Thing);
        assert.equal(reordered.metadata.resourceVersion, created.metadata?.resourceVersion);
        assert.equal(await store.currentRevision(), revision);
        const changed = await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 2 }));
        assert.notEqual(changed.metadata.resourceVersion, created.metadata?.resourceVersion);
      },

      'an error thrown by the update function aborts the update': async () => {
        await store.create(key('a'), thing('a', { count: 1 }));
        await assert.rejects(
          store.guaranteedUpdate<Thing>(key('a'), () => {
            throw new Error('refused');
          }),
          /refused/,
        );
        assert.equal((await store.get<Thing>(key('a'))).count, 1);
      },

      '50 concurrent guaranteed updates of one counter lose no increment': async () => {
        await store.create(key('counter'), thing('counter', { count: 0 }));
        await Promise.all(
          Array.from({ length: 50 }, () =>
            store.guaranteedUpdate<Thing>(key('counter'), async (current) => {
              await new Promise((resolve) => setImmediate(resolve));
              return { ...current!, count: (current!.count ?? 0) + 1 };
            }),
          ),
        );
        assert.equal((await store.get<Thing>(key('counter'))).count, 50);
      },

      'delete returns the last state and removes the key': async () => {
        const created = await store.create(key('a'), thing('a', { count: 4 }));
        const deleted = await store.delete<Thing>(key('a'));
        assert.deepEqual(deleted, created);
        await rejectsWith(store.get(key('a')), 'NotFound');
        await rejectsWith(store.delete(key('a')), 'NotFound');
      },

      'delete with a stale or foreign precondition gives Conflict and keeps the object': async () => {
        const created = await store.create(key('a'), thing('a'));
        await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 1 }));
        const stale = created.metadata?.resourceVersion ?? '';
        await rejectsWith(store.delete(key('a'), { preconditions: { resourceVersion: stale } }), 'Conflict');
        await rejectsWith(store.delete(key('a'), { preconditions: { uid: 'other' } }), 'Conflict');
        await store.get(key('a'));
        await store.delete(key('a'), { preconditions: { uid: 'uid-a' } });
      },

      'validateDeletion can refuse a delete': async () => {
        await store.create(key('a'), thing('a'));
        await assert.rejects(
          store.delete(key('a'), {
            validateDeletion: () => {
              throw new Error('not yet');
            },
          }),
          /not yet/,
        );
        await store.get(key('a'));
      },

      'a list returns the keys below the prefix in order, and only those': async () => {
        for (const item of ['b', 'a', 'c']) await store.create(key(item), thing(item));
        await store.create(`${prefix.slice(0, -1)}x/a`, thing('outside'));
        const result = await store.list<Thing>(prefix);
        assert.deepEqual(
          result.items.map((item) => item.metadata.name),
          ['a', 'b', 'c'],
        );
        assert.equal(result.continue, '');
        assert.equal(result.revision, await store.currentRevision());
        assert.equal(result.remainingItemCount, undefined);
      },

      'a paged list of 1,000 keys with limit 37 returns each key once, all at the first chunk\u2019s revision': async () => {
        const names = Array.from({ length: 1000 }, (_, i) => `item-${String(i).padStart(4, '0')}`);
        for (let i = 0; i < names.length; i += 50) {
          await Promise.all(names.slice(i, i + 50).map((item) => store.create(key(item), thing(item))));
        }
        const seen: string[] = [];
        let token = '';
        let firstRevision = 0;
        let chunks = 0;
        do {
          const page = await store.list<Thing>(prefix, { limit: 37, continue: token });
          chunks++;
          if (!firstRevision) firstRevision = page.revision;
          assert.equal(page.revision, firstRevision);
          assert.ok(page.items.length <= 37);
          seen.push(...page.items.map((item) => item.metadata.name));
          if (page.continue) assert.equal(page.remainingItemCount, 1000 - seen.length);
          token = page.continue;
          // Writes between chunks, inside and outside the listed range, must not show.
          await store.create(key(`item-${String(chunks).padStart(4, '0')}-new`), thing('new'));
          await store.delete(key(names[Math.min(999, chunks * 37 + 3)]!)).catch(() => {});
        } while (token);
        assert.equal(chunks, Math.ceil(1000 / 37));
        assert.deepEqual(seen, names);
      },

      'a filtered paged list counts only matching items against the limit': async () => {
        for (let i = 0; i < 30; i++) await store.create(key(`f${String(i).padStart(2, '0')}`), thing(`f${i}`, { count: i }));
        const even = (object: StoredObject): boolean => ((object as Thing).count ?? 0) % 2 === 0;
        const seen: number[] = [];
        let token = '';
        do {
          const page = await store.list<Thing>(prefix, { limit: 4, continue: token, filter: even });
          assert.ok(page.items.length <= 4);
          assert.equal(page.remainingItemCount, undefined);
          seen.push(...page.items.map((item) => item.count ?? -1));
          token = page.continue;
        } while (token);
        assert.deepEqual(
          seen,
          Array.from({ length: 15 }, (_, i) => i * 2),
        );
      },

      'a list at an old revision shows the collection as it was': async () => {
        await store.create(key('a'), thing('a'));
        const revision = await store.currentRevision();
        await store.create(key('b'), thing('b'));
        await store.delete(key('a'));
        const old = await store.list<Thing>(prefix, { revision });
        assert.deepEqual(
          old.items.map((item) => item.metadata.name),
          ['a'],
        );
        assert.equal(old.revision, revision);
      },

      'a malformed continue token gives InvalidArgument': async () => {
        await rejectsWith(store.list(prefix, { continue: 'not-a-token' }), 'InvalidArgument');
        const climbing = Buffer.from(JSON.stringify({ v: 'meta.plat.io/v1', rv: 1, start: '../../x' })).toString('base64url');
        await rejectsWith(store.list(prefix, { continue: climbing }), 'InvalidArgument');
      },

      'a continue token or a read from a compacted revision gives Gone': async () => {
        for (const item of ['a', 'b', 'c']) await store.create(key(item), thing(item));
        const page = await store.list(prefix, { limit: 1 });
        assert.ok(page.continue);
        await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 1 }));
        await store.create(key('d'), thing('d'));
        await store.compact(await store.currentRevision());
        await rejectsWith(store.list(prefix, { continue: page.continue }), 'Gone');
        await rejectsWith(store.list(prefix, { revision: page.revision }), 'Gone');
        await rejectsWith(store.get(key('a'), { revision: page.revision }), 'Gone');
        // The current state survives compaction.
        assert.equal((await store.list(prefix)).items.length, 4);
      },

      'an expired continue token\u2019s Gone offers a token that resumes from the same key at the latest revision': async () => {
        for (const item of ['a', 'b', 'c']) await store.create(key(item), thing(item));
        const page = await store.list(prefix, { limit: 1 });
        await store.guaranteedUpdate<Thing>(key('b'), (current) => ({ ...current!, count: 1 }));
        await store.create(key('d'), thing('d'));
        const latest = await store.currentRevision();
        await store.compact(latest);
        const error = await store.list(prefix, { limit: 2, continue: page.continue }).then(
          () => assert.fail('expected Gone'),
          (error: unknown) => error,
        );
        assert.ok(isStorageError(error, 'Gone'), String(error));
        assert.ok(error.continue, 'a token to resume with');
        // The rest after "a", as it is now (b updated, d added), read at the latest revision.
        const rest = await store.list<Thing>(prefix, { limit: 2, continue: error.continue });
        assert.deepEqual(
          rest.items.map((item) => [item.metadata.name, item.count ?? 0]),
          [['b', 1], ['c', 0]],
        );
        assert.equal(rest.revision, latest);
        // Its own token continues at that revision.
        const last = await store.list<Thing>(prefix, { limit: 2, continue: rest.continue });
        assert.deepEqual(last.items.map((item) => item.metadata.name), ['d']);
        assert.equal(last.revision, latest);
        assert.equal(last.continue, '');
        // A list that did not continue a token offers none.
        const exact = await store.list(prefix, { revision: page.revision }).catch((e: unknown) => e);
        assert.ok(isStorageError(exact, 'Gone'));
        assert.equal(exact.continue, undefined);
      },

      'a continue token at revision 0 is malformed; a negative one reads the latest revision': async () => {
        for (const item of ['a', 'b']) await store.create(key(item), thing(item));
        const token = (rv: number): string => Buffer.from(JSON.stringify({ v: 'meta.plat.io/v1', rv, start: 'b' })).toString('base64url');
        await rejectsWith(store.list(prefix, { continue: token(0) }), 'InvalidArgument');
        const latest = await store.list<Thing>(prefix, { continue: token(-1) });
        assert.deepEqual(latest.items.map((item) => item.metadata.name), ['b']);
        assert.equal(latest.revision, await store.currentRevision());
      },

      'a watch from a compacted revision gives Gone': async () => {
        const first = await store.create(key('a'), thing('a'));
        await store.create(key('b'), thing('b'));
        await store.create(key('c'), thing('c'));
        await store.compact(await store.currentRevision());
        const watch = await store.watch(prefix, { recursive: true, revision: Number(first.metadata?.resourceVersion) });
        await rejectsWith(take(watch, 1), 'Gone');
      },

      'a watch from revision R delivers exactly the events after R, in order, deletes included': async () => {
        await store.create(key('early'), thing('early'));
        const start = await store.currentRevision();
        const a = await store.create(key('a'), thing('a', { count: 1 }));
        const a2 = await store.guaranteedUpdate<Thing>(key('a'), (current) => ({ ...current!, count: 2 }));
        await store.create(key('b'), thing('b'));
        await store.delete(key('a'));
        const watch = await store.watch<Thing>(prefix, { recursive: true, revision: start });
        const live = store.create(key('c'), thing('c'));
        const events = await take(watch, 5);
        watch.stop();
        await live;
        assert.deepEqual(
          events.map((event) => [event.type, event.object.metadata.name]),
          [
            ['ADDED', 'a'],
            ['MODIFIED', 'a'],
            ['ADDED', 'b'],
            ['DELETED', 'a'],
            ['ADDED', 'c'],
          ],
        );
        const revisions = events.map((event) => event.revision);
        assert.deepEqual(
          revisions,
          [...revisions].sort((x, y) => x - y),
        );
        assert.ok(revisions[0]! > start);
        assert.equal(events[0]!.object.metadata.resourceVersion, a.metadata?.resourceVersion);
        assert.equal(events[1]!.previous?.count, 1);
        const deleted = events[3]!;
        assert.equal(deleted.object.count, 2, 'a deleted object is reported as it last was');
        assert.equal(deleted.object.metadata.resourceVersion, String(deleted.revision));
        assert.equal(deleted.previous?.metadata.resourceVersion, a2.metadata.resourceVersion);
      },

      'a watch from now sees every write made after it started': async () => {
        await store.create(key('old'), thing('old'));
        const watch = await store.watch<Thing>(prefix, { recursive: true });
        await store.create(key('new'), thing('new'));
        const [event] = await take(watch, 1);
        watch.stop();
        assert.equal(event!.type, 'ADDED');
        assert.equal(event!.object.metadata.name, 'new');
      },

      'a watch of one key ignores its siblings, even those it prefixes': async () => {
        const watch = await store.watch<Thing>(key('a'));
        await store.create(key('ab'), thing('ab'));
        await store.create(key('b'), thing('b'));
        await store.create(key('a'), thing('a'));
        const [event] = await take(watch, 1);
        watch.stop();
        assert.equal(event!.object.metadata.name, 'a');
      },

      // etcd grants at least its minimum lease (2 s with default election settings) and checks
      // expiries every 500 ms: a 1 s TTL is gone within a few seconds.
      'a write with a ttl expires as a delete that watchers see; a later write keeps its own ttl or none': async () => {
        const watch = await store.watch<Thing>(prefix, { recursive: true });
        const started = Date.now();
        const expiring = await store.create(key('expiring'), thing('expiring', { count: 1 }), { ttl: 1 });
        await store.create(key('kept'), thing('kept'), { ttl: 1 });
        await store.create(key('renewed'), thing('renewed'), { ttl: 1 });
        await store.create(key('plain'), thing('plain'));
        // Written again without a TTL: it lives until deleted; with a longer one: until that passes.
        await store.guaranteedUpdate<Thing>(key('kept'), (current) => ({ ...current!, count: 2 }));
        await store.guaranteedUpdate<Thing>(key('renewed'), (current) => ({ ...current!, count: 2 }), { ttl: 600 });
        const events = await take(watch, 7, 15_000);
        watch.stop();
        assert.ok(Date.now() - started >= 1000, 'not before its time');
        const deleted = events[6]!;
        assert.equal(deleted.type, 'DELETED');
        assert.equal(deleted.object.metadata.name, 'expiring');
        assert.deepEqual(deleted.previous, expiring, 'reported as it last was');
        assert.ok(deleted.revision > Number(expiring.metadata.resourceVersion));
        await rejectsWith(store.get(key('expiring')), 'NotFound');
        // Past the moment the others would have expired with it (one etcd lease carried all three).
        await new Promise((resolve) => setTimeout(resolve, 700));
        const left = await store.list<Thing>(prefix);
        assert.deepEqual(
          left.items.map((item) => item.metadata.name),
          ['kept', 'plain', 'renewed'],
        );
      },

      'a stopped watch ends its iteration': async () => {
        const watch = await store.watch<Thing>(prefix, { recursive: true });
        const reading = take(watch, 1, 60_000).catch((error: unknown) => error);
        watch.stop();
        const outcome = await reading;
        assert.ok(outcome instanceof Error && /expected 1 watch events, got 0/.test(outcome.message));
      },
    };

    for (const [title, run] of Object.entries(cases)) {
      it(title, async () => {
        prefix = `/conformance/${++caseNumber}/${process.pid}/`;
        await run();
      });
    }
  });
}
