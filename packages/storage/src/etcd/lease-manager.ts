// Leases for writes with a time to live. A lease is a round trip to etcd and a record etcd keeps
// and expires, so writes close together share one (as upstream's etcd3 lease manager does): a lease
// is granted for a little longer than asked, and reused while it still outlives the TTL a new write
// asks for, by no more than that extra. An object may so live up to the extra longer than its TTL
// (5% of it, at most a minute: an hour's Event lives up to 61 minutes), never shorter.

export interface LeaseManagerOptions {
  /** The most a lease may outlive a TTL asked for, in seconds (upstream's 60). */
  reuseSeconds?: number;
  /** The same as a share of the TTL (upstream's 0.05); the smaller of the two applies. */
  reuseShare?: number;
  /** Writes one lease may carry (upstream's 1,000), so that its expiry deletes no more at once. */
  maxAttached?: number;
}

interface CurrentLease {
  id: Promise<bigint>;
  /** Epoch milliseconds. */
  expiresAt: number;
  attached: number;
}

export class LeaseManager {
  private current: CurrentLease | undefined;
  private readonly reuseSeconds: number;
  private readonly reuseShare: number;
  private readonly maxAttached: number;

  /** @param grant asks etcd for a lease of that many seconds, resolving with its ID */
  constructor(
    private readonly grant: (ttlSeconds: number) => Promise<bigint>,
    options: LeaseManagerOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.reuseSeconds = options.reuseSeconds ?? 60;
    this.reuseShare = options.reuseShare ?? 0.05;
    this.maxAttached = options.maxAttached ?? 1000;
  }

  /** A lease that expires no sooner than `ttlSeconds` from now (whole seconds, above 0). */
  lease(ttlSeconds: number): Promise<bigint> {
    const now = this.now();
    const extra = Math.min(this.reuseSeconds, Math.floor(this.reuseShare * ttlSeconds));
    const current = this.current;
    if (
      current &&
      current.attached < this.maxAttached &&
      now + ttlSeconds * 1000 < current.expiresAt &&
      now + (ttlSeconds + extra) * 1000 >= current.expiresAt
    ) {
      current.attached++;
      return current.id;
    }
    const granted = ttlSeconds + extra;
    // Writes that come while the grant is on its way wait for the same lease.
    const id = this.grant(granted);
    const lease: CurrentLease = { id, expiresAt: now + granted * 1000, attached: 1 };
    this.current = lease;
    id.catch(() => {
      if (this.current === lease) this.current = undefined;
    });
    return id;
  }
}
