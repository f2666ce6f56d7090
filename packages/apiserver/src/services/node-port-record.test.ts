// The node-port record (one storage key, changed by compare-and-swap) under two replicas: two
// allocators on one storage racing for the last port, one gets it and the other upstream's
// "range is full"; a requested port held by the other replica refused; a release seen by both.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStorage } from '@plat/storage';
import { ERR_PORT_ALLOCATED, ERR_PORTS_FULL, NodePortAllocator } from '@plat/api';
import { storageNodePorts } from './node-port-record.js';

const range = { base: 30000, size: 3 };

function replicas() {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  return [new NodePortAllocator(range, storageNodePorts(storage, range)), new NodePortAllocator(range, storageNodePorts(storage, range))] as const;
}

describe('node ports in one compare-and-swap record', () => {
  it('two replicas racing for the last port: one wins, the other gets range is full', async () => {
    const [a, b] = replicas();
    await a.allocate({ requested: [30000, 30001], dynamic: 0 });
    const results = await Promise.allSettled([a.allocate({ requested: [], dynamic: 1 }), b.allocate({ requested: [], dynamic: 1 })]);
    const won = results.filter((r): r is PromiseFulfilledResult<number[]> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.deepEqual(won[0]!.value, [30002]);
    assert.equal(lost.length, 1);
    assert.equal((lost[0]!.reason as Error).message, ERR_PORTS_FULL);
  });

  it('a port one replica holds is refused to the other; released, the other may have it', async () => {
    const [a, b] = replicas();
    await a.allocate({ requested: [30001], dynamic: 0 });
    await assert.rejects(b.allocate({ requested: [30001], dynamic: 0 }), { message: ERR_PORT_ALLOCATED });
    await a.release([30001]);
    assert.deepEqual(await b.allocate({ requested: [30001], dynamic: 0 }), []);
    assert.ok((await b.allocate({ requested: [], dynamic: 2 })).every((port) => port !== 30001));
  });

  it('dry run checks and reserves nothing', async () => {
    const [a, b] = replicas();
    await a.allocate({ requested: [30000], dynamic: 0 });
    await assert.rejects(b.allocate({ requested: [30000], dynamic: 0 }, true), { message: ERR_PORT_ALLOCATED });
    await b.allocate({ requested: [30001], dynamic: 0 }, true);
    assert.deepEqual(await a.allocate({ requested: [30001], dynamic: 0 }), []);
  });
});

describe('dry run as upstream dry-run port operation', () => {
  it('a requested port out of the range passes; the chosen ones are dummies from 32769', async () => {
    const [a] = replicas();
    assert.deepEqual(await a.allocate({ requested: [80], dynamic: 0 }, true), []);
    assert.deepEqual(await a.allocate({ requested: [], dynamic: 2 }, true), [32769, 32770]);
  });
});
