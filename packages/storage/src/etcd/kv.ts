// The etcd backend's KV: each primitive is one etcd request (a range, or a transaction comparing
// mod_revision), over the channel (channel.ts) that carries all of this replica's etcd traffic.
import type { CompareResult, KV, KeyValue, RangeRequest, RangeResult, StoredValue, WatchHandle, WatchSink } from '../kv.js';
import { toStorageError, isCompactedError } from './errors.js';
import { EtcdWatch, toKeyValue } from './watch.js';
import type { EtcdChannel } from './channel.js';
import { LeaseManager } from './lease-manager.js';
import {
  EMPTY_REQUEST,
  decodeLeaseGrantResponse,
  encodeLeaseGrantRequest,
  decodeRangeResponse,
  decodeStatusResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  type RangeRequest as WireRangeRequest,
  type RangeResponse,
  type StatusResponse,
  type TxnRequest,
  type TxnResponse,
} from './wire.js';

const RANGE = '/etcdserverpb.KV/Range';
const TXN = '/etcdserverpb.KV/Txn';
const COMPACT = '/etcdserverpb.KV/Compact';
const STATUS = '/etcdserverpb.Maintenance/Status';
const LEASE_GRANT = '/etcdserverpb.Lease/LeaseGrant';
const HEALTH_KEY = Buffer.from('health');
const HEALTH_REQUEST = encodeRangeRequest({ key: HEALTH_KEY, countOnly: true });
/** See checkHealth: with the probe's 1.8 s, a store gone fails the check within 5 s. */
const HEALTH_GRACE_MS = 3000;

const firstKeyValue = (response: RangeResponse | undefined): KeyValue | null => {
  const kv = response?.kvs[0];
  return kv ? toKeyValue(kv) : null;
};

const rangeOf = (response: TxnResponse, index: number): RangeResponse | undefined => {
  const op = response.responses[index];
  return op && 'range' in op ? op.range : undefined;
};

export class EtcdKV implements KV {
  private readonly watches = new Set<EtcdWatch>();
  /** Watch streams opened so far, resumptions included. */
  watchStreamsOpened = 0;
  /** The first revision asked of the most recently opened watch stream, and the member it went to. */
  lastWatchStreamStart = 0;
  lastWatchStreamEndpoint = '';

  private progressRequestsSafe: Promise<boolean> | undefined;
  /** Leases of the writes with a time to live, shared by writes close together. */
  private readonly leases = new LeaseManager((ttl) => this.grantLease(ttl));

  /** @param healthTimeoutMs how long checkHealth waits for some member to answer */
  constructor(
    readonly channel: EtcdChannel,
    private readonly healthTimeoutMs = 2000,
  ) {}

  private async rangeCall(request: WireRangeRequest): Promise<RangeResponse> {
    return decodeRangeResponse(await this.channel.call(RANGE, encodeRangeRequest(request), { retry: 'safe' }));
  }

  /**
   * A transaction, retried on another member after any failure: every transaction here is guarded
   * by a compare, so one applied before the failure fails its compare when retried. `resent` says
   * the answer may be such a retry.
   */
  async txn(request: TxnRequest): Promise<{ response: TxnResponse; resent: boolean }> {
    const { body, resent } = await this.channel.callResent(TXN, encodeTxnRequest(request), { retry: 'safe', retryStale: true });
    return { response: decodeTxnResponse(body), resent };
  }

  /** The status of the member in use. */
  async status(): Promise<StatusResponse> {
    return decodeStatusResponse(await this.channel.call(STATUS, EMPTY_REQUEST, { retry: 'safe' }));
  }

  /**
   * Whether etcd answers a progress request only once the watch has sent every earlier event:
   * before 3.4.25 and 3.5.8 it answers at once with its current revision (etcd-io/etcd#15220),
   * which would let a watch cache believe it has seen writes it has not; before 3.4.31 and 3.5.13
   * a new watch that no event has reached may never answer one (etcd-io/etcd#17507).
   */
  private progressRequestsAreSafe(): Promise<boolean> {
    this.progressRequestsSafe ??= this.status().then(
      (status) => progressRequestsSafeIn(status.version),
      () => {
        this.progressRequestsSafe = undefined;
        return false;
      },
    );
    return this.progressRequestsSafe;
  }

  private async call<T>(revision: number, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw await toStorageError(error, revision, () => this.currentRevision());
    }
  }

  async get(key: string, revision: number): Promise<KeyValue | null> {
    const response = await this.call(revision, () => this.rangeCall({ key: Buffer.from(key), revision }));
    return firstKeyValue(response);
  }

  async range({ start, end, revision, limit }: RangeRequest): Promise<RangeResult> {
    const response = await this.call(revision, () =>
      this.rangeCall({ key: Buffer.from(start), rangeEnd: Buffer.from(end), revision, limit }),
    );
    const kvs = response.kvs.map(toKeyValue);
    // The header carries etcd's current revision even for a read at an older one.
    const readAt = revision > 0 ? revision : response.revision;
    return { kvs, revision: readAt, remaining: response.count - kvs.length };
  }

  /**
   * A new lease of `ttlSeconds`. A grant retried after a failure may leave an unused lease behind,
   * which etcd expires in its time: harmless, so it is retried as a read is.
   */
  private async grantLease(ttlSeconds: number): Promise<bigint> {
    const response = await this.call(0, async () =>
      decodeLeaseGrantResponse(await this.channel.call(LEASE_GRANT, encodeLeaseGrantRequest(ttlSeconds), { retry: 'safe' })),
    );
    if (response.error || !response.id) throw new Error(`etcd granted no lease of ${ttlSeconds}s: ${response.error || 'no lease ID'}`);
    return response.id;
  }

  async compareAndPut(key: string, expectedModRevision: number, value: StoredValue, ttlSeconds = 0): Promise<CompareResult> {
    const keyBytes = Buffer.from(key);
    const valueBytes = typeof value === 'string' ? Buffer.from(value) : value;
    // etcd's leases count whole seconds; a put without one detaches the key from any it had.
    const lease = ttlSeconds > 0 ? await this.leases.lease(Math.ceil(ttlSeconds)) : 0n;
    const { response, resent } = await this.call(0, () =>
      this.txn({
        compare: [{ key: keyBytes, result: 'Equal', modRevision: expectedModRevision }],
        success: [{ put: { key: keyBytes, value: valueBytes, lease } }],
        failure: [{ range: { key: keyBytes } }],
      }),
    );
    if (!response.succeeded) {
      const current = rangeOf(response, 0)?.kvs[0];
      // A retry whose first try was applied: the key holds exactly this value, written after the
      // revision compared against.
      if (resent && current && current.modRevision > expectedModRevision && current.value.equals(valueBytes)) {
        return { succeeded: true, revision: current.modRevision };
      }
      return { succeeded: false, current: current ? toKeyValue(current) : null };
    }
    return { succeeded: true, revision: response.revision };
  }

  async compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult> {
    const keyBytes = Buffer.from(key);
    const { response, resent } = await this.call(0, () =>
      this.txn({
        compare: [{ key: keyBytes, result: 'Equal', modRevision: expectedModRevision }],
        success: [{ deleteRange: { key: keyBytes, prevKv: true } }],
        failure: [{ range: { key: keyBytes } }],
      }),
    );
    if (!response.succeeded) {
      const current = firstKeyValue(rangeOf(response, 0));
      // A retry whose first try was applied: the key is gone. (Had someone else deleted it, the
      // caller's object is gone all the same.)
      if (resent && !current) return { succeeded: true, revision: response.revision };
      return { succeeded: false, current };
    }
    const op = response.responses[0];
    const previous = op && 'deleteRange' in op ? op.deleteRange.prevKvs[0] : undefined;
    const revision = response.revision;
    return previous ? { succeeded: true, revision, previous: toKeyValue(previous) } : { succeeded: true, revision };
  }

  async watch(start: string, end: string, afterRevision: number, sink: WatchSink): Promise<WatchHandle> {
    // "From now" is pinned to a revision before returning, so that no later write can be missed.
    const after = afterRevision > 0 ? afterRevision : await this.currentRevision();
    const progressRequests = sink.progress ? await this.progressRequestsAreSafe() : false;
    const watch = new EtcdWatch(this.channel, start, end, after, sink, {
      progressRequests,
      onStreamOpened: (startRevision, endpoint) => {
        this.watchStreamsOpened++;
        this.lastWatchStreamStart = startRevision;
        this.lastWatchStreamEndpoint = endpoint;
      },
      onStop: () => this.watches.delete(watch),
    });
    this.watches.add(watch);
    watch.start();
    return watch;
  }

  async currentRevision(): Promise<number> {
    const response = await this.call(0, () => this.rangeCall({ key: HEALTH_KEY, countOnly: true }));
    return response.revision;
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.channel.call(COMPACT, encodeCompactionRequest(revision), { retry: 'safe' });
    } catch (error) {
      if (isCompactedError(error)) return; // someone already compacted at or past it
      throw await toStorageError(error, revision, () => this.currentRevision());
    }
  }

  /**
   * Passes when some member answers a linearizable read (so a quorum stands), asking the others
   * when the member in use is silent, and waiting out a leader election within its time. A probe
   * that fails within HEALTH_GRACE_MS of the store's last answer passes still: a member that froze
   * while it led takes a second or two of election before any member serves again, which is not the
   * store gone. The probe's own limit is a little under the caller's (the server's
   * --etcd-healthcheck-timeout), so that its reason, naming each member, is the one reported.
   */
  async checkHealth(): Promise<void> {
    try {
      await this.channel.probe(RANGE, HEALTH_REQUEST, Math.max(100, Math.floor(this.healthTimeoutMs * 0.9)));
    } catch (error) {
      if (Date.now() - this.channel.lastAnsweredAt < HEALTH_GRACE_MS) return;
      throw error;
    }
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.stop();
    this.channel.close();
  }
}

/**
 * etcd versions whose progress requests wait for the watch to be synced and are always answered
 * (3.4.31+, 3.5.13+, 3.6+), as upstream's RequestWatchProgress feature check.
 */
export function progressRequestsSafeIn(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
