// A kind's allocator (allocation.ts) through the store's writes: reserved after validation and
// before storing, committed when stored, reverted when the write fails (a name taken, a conflict
// retried, a dry run reserving nothing), released when the object is deleted, and never run for a
// status write, as upstream's service REST storage runs its BeginCreate / BeginUpdate / AfterDelete.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { createStorage } from '@plat/storage';
import type { KubeObject, ResourceDefinition } from './definition.js';
import { WriteAllocation, type AllocationContext, type ResourceAllocator } from './allocation.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';

interface Ticket extends KubeObject {
  seat?: number;
  status?: { note?: string };
}

/** Seats handed out in order; every call logged. */
class Seats implements ResourceAllocator<Ticket> {
  readonly held = new Set<number>();
  readonly log: string[] = [];
  private next = 1;

  async allocate(ticket: Ticket, old: Ticket | undefined, context: AllocationContext) {
    if (old?.seat) {
      ticket.seat = old.seat;
      return { commit: async () => void this.log.push('commit'), revert: async () => void this.log.push('revert') };
    }
    const seat = context.dryRun ? 0 : this.next++;
    if (!context.dryRun) this.held.add(seat);
    ticket.seat = seat;
    this.log.push(`allocate ${seat}${context.dryRun ? ' (dry run)' : ''}`);
    return {
      commit: async () => void this.log.push(`commit ${seat}`),
      revert: async () => {
        this.held.delete(seat);
        this.log.push(`revert ${seat}`);
      },
    };
  }

  async release(ticket: Ticket, context: AllocationContext) {
    if (!context.dryRun) this.held.delete(ticket.seat!);
    this.log.push(`release ${ticket.seat}${context.dryRun ? ' (dry run)' : ''}`);
  }
}

function setUp() {
  const seats = new Seats();
  const definition: ResourceDefinition<Ticket> = {
    group: 'things.{domain}',
    version: 'v1',
    kind: 'Ticket',
    resource: 'tickets',
    singularName: 'ticket',
    namespaced: true,
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
    schema: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        seat: { type: 'integer' },
        status: { type: 'object', properties: { note: { type: 'string' } } },
      },
    },
    strategy: { validate: () => [], validateUpdate: () => [] },
    subresources: { status: { merge: (object, old) => ({ ...old, status: object.status ?? {} }), validateUpdate: () => [] } },
    allowCreateOnUpdate: false,
    allocator: seats,
  };
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const store = new ResourceStore(resolveResource(definition, 'example.com'), { storage, context: { domain: 'example.com' } });
  return { store, seats };
}

describe('store: a kind allocator', () => {
  it('a create reserves before storing, the stored object holds what was reserved, then commits', async () => {
    const { store, seats } = setUp();
    const created = await store.create('ns', { metadata: { name: 'a' } });
    assert.equal(created.seat, 1);
    assert.equal((await store.get('ns', 'a')).seat, 1);
    assert.deepEqual(seats.log, ['allocate 1', 'commit 1']);
  });

  it('a create whose write fails (the name is taken) gives its reservation back', async () => {
    const { store, seats } = setUp();
    await store.create('ns', { metadata: { name: 'a' } });
    await assert.rejects(store.create('ns', { metadata: { name: 'a' } }), (e: unknown) => isStatusError(e, 'AlreadyExists'));
    assert.deepEqual(seats.log, ['allocate 1', 'commit 1', 'allocate 2', 'revert 2']);
    assert.deepEqual([...seats.held], [1]);
  });

  it('a dry run reserves nothing and stores nothing', async () => {
    const { store, seats } = setUp();
    const answer = await store.create('ns', { metadata: { name: 'a' } }, { dryRun: true });
    assert.equal(answer.seat, 0);
    assert.equal(seats.held.size, 0);
    await assert.rejects(store.get('ns', 'a'), (e: unknown) => isStatusError(e, 'NotFound'));
  });

  it('a delete releases what the object held; a dry-run delete says so', async () => {
    const { store, seats } = setUp();
    await store.create('ns', { metadata: { name: 'a' } });
    await store.delete('ns', 'a', { dryRun: true });
    assert.deepEqual([...seats.held], [1]);
    await store.delete('ns', 'a');
    assert.deepEqual([...seats.held], []);
    assert.deepEqual(seats.log.slice(-2), ['release 1 (dry run)', 'release 1']);
  });

  it('a delete of the collection releases what each object held', async () => {
    const { store, seats } = setUp();
    await store.create('ns', { metadata: { name: 'a' } });
    await store.create('ns', { metadata: { name: 'b' } });
    assert.equal(seats.held.size, 2);
    await store.deleteCollection('ns', {});
    assert.deepEqual([...seats.held], []);
  });

  it('an update is given the stored object (its seat kept); a stale resourceVersion is refused before anything is reserved', async () => {
    const { store, seats } = setUp();
    await store.create('ns', { metadata: { name: 'a' } });
    const current = structuredClone(await store.get('ns', 'a'));
    const changed = structuredClone(current);
    delete changed.seat;
    changed.metadata.labels = { changed: 'yes' };
    await store.update('ns', 'a', changed);
    assert.equal((await store.get('ns', 'a')).seat, 1, 'the update kept the seat the stored object holds');
    const logged = seats.log.length;
    await assert.rejects(store.update('ns', 'a', structuredClone(current)), (e: unknown) => isStatusError(e, 'Conflict'));
    assert.deepEqual(seats.held.size, 1);
    // A stale resourceVersion is refused before anything is reserved.
    assert.equal(seats.log.length, logged);
  });

  it('a status write reserves nothing', async () => {
    const { store, seats } = setUp();
    await store.create('ns', { metadata: { name: 'a' } });
    const logged = seats.log.length;
    const current = await store.get('ns', 'a');
    await store.update('ns', 'a', { ...current, status: { note: 'x' } }, { subresource: 'status' });
    assert.equal(seats.log.length, logged);
  });

  it('a write retried by the storage (guaranteedUpdate) gives back what its last attempt reserved before reserving again', async () => {
    const seats = new Seats();
    const write = new WriteAllocation<Ticket>(seats, { domain: 'example.com', dryRun: false });
    await write.reserve({ metadata: { name: 'a' } }, undefined);
    await write.reserve({ metadata: { name: 'a' } }, undefined);
    await write.around(async () => 'stored');
    assert.deepEqual(seats.log, ['allocate 1', 'revert 1', 'allocate 2', 'commit 2']);
    assert.deepEqual([...seats.held], [2]);
  });
});
