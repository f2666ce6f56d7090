import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LeaseManager } from './lease-manager.js';

/** A manager over a fake clock whose grants are recorded, each granted lease numbered from 1. */
function manager(options: ConstructorParameters<typeof LeaseManager>[1] = {}) {
  let now = 1_000_000;
  const grants: number[] = [];
  const leases = new LeaseManager(async (ttl) => BigInt(grants.push(ttl)), options, () => now);
  return { leases, grants, advance: (ms: number) => (now += ms) };
}

describe('etcd lease manager', () => {
  it('grants an hour with a minute more, and reuses it for writes within that minute', async () => {
    const { leases, grants, advance } = manager();
    assert.equal(await leases.lease(3600), 1n);
    advance(59_000);
    assert.equal(await leases.lease(3600), 1n, 'still outlives a new hour, by under a minute');
    advance(1_000);
    assert.equal(await leases.lease(3600), 2n, 'it would expire before a new hour has passed');
    assert.deepEqual(grants, [3660, 3660]);
  });

  it('the extra is 5% of a short TTL, and none below 20 s: such leases are never shared', async () => {
    const { leases, grants, advance } = manager();
    await leases.lease(100);
    advance(1);
    assert.equal(await leases.lease(100), 1n);
    await leases.lease(10);
    advance(1);
    await leases.lease(10);
    assert.deepEqual(grants, [105, 10, 10]);
  });

  it('a lease carries at most maxAttached writes', async () => {
    const { leases, grants, advance } = manager({ maxAttached: 2 });
    const ids: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await leases.lease(3600));
      advance(1);
    }
    assert.deepEqual(ids, [1n, 1n, 2n]);
    assert.equal(grants.length, 2);
  });

  it('writes that come while a grant is on its way wait for that lease; a failed grant is not reused', async () => {
    let fail = true;
    let grants = 0;
    const leases = new LeaseManager(async () => {
      grants++;
      if (fail) throw new Error('no leader');
      return 9n;
    });
    const both = [leases.lease(3600), leases.lease(3600)];
    await Promise.all(both.map((lease) => assert.rejects(lease, /no leader/)));
    assert.equal(grants, 1);
    fail = false;
    assert.equal(await leases.lease(3600), 9n);
    assert.equal(grants, 2);
  });
});
