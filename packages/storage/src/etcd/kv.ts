// The etcd backend's KV: each primitive is one etcd request (a range, or a transaction comparing
// mod_revision). Ranges and transactions go through our unary channel (unary.ts); watches,
// compaction and maintenance through the etcd3 client.
import type { Etcd3 } from 'etcd3';
import type { CompareResult, KV, KeyValue, RangeRequest, RangeResult, WatchHandle, WatchSink } from '../kv.js';
import { toStorageError, isCompactedError } from './errors.js';
import { EtcdWatch } from './watch.js';
import type { UnaryChannel } from './unary.js';
import {
  decodeRangeResponse,
  decodeTxnResponse,
  encodeRangeRequest,
  encodeTxnRequest,
  type RangeRequest as WireRangeRequest,
  type RangeResponse,
  type RawKeyValue,
  type TxnRequest,
  type TxnResponse,
} from './wire.js';

const HEALTH_KEY = Buffer.from('health');
const HEALTH_TIMEOUT_MS = 2000;

const toKeyValue = (kv: RawKeyValue): KeyValue => ({
  key: kv.key.toString(),
  value: kv.value.toString(),
  modRevision: kv.modRevision,
  createRevision: kv.createRevision,
});

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
  /** The first revision asked of the most recently opened watch stream. */
  lastWatchStreamStart = 0;

  private progressRequestsSafe: Promise<boolean> | undefined;

  constructor(
    readonly client: Etcd3,
    private readonly unary: UnaryChannel,
  ) {}

  private async rangeCall(request: WireRangeRequest): Promise<RangeResponse> {
    return decodeRangeResponse(await this.unary.call('/etcdserverpb.KV/Range', encodeRangeRequest(request)));
  }

  private async txnCall(request: TxnRequest): Promise<TxnResponse> {
    return decodeTxnResponse(await this.unary.call('/etcdserverpb.KV/Txn', encodeTxnRequest(request)));
  }

  /**
   * Whether etcd answers a progress request only once the watch has sent every earlier event:
   * before 3.4.25 and 3.5.8 it answers at once with its current revision (etcd-io/etcd#15220),
   * which would let a watch cache believe it has seen writes it has not.
   */
  private progressRequestsAreSafe(): Promise<boolean> {
    this.progressRequestsSafe ??= this.client.maintenance.status().then(
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

  async compareAndPut(key: string, expectedModRevision: number, value: string): Promise<CompareResult> {
    const keyBytes = Buffer.from(key);
    const response = await this.call(0, () =>
      this.txnCall({
        compare: [{ key: keyBytes, result: 'Equal', modRevision: expectedModRevision }],
        success: [{ put: { key: keyBytes, value: Buffer.from(value) } }],
        failure: [{ range: { key: keyBytes } }],
      }),
    );
    if (!response.succeeded) return { succeeded: false, current: firstKeyValue(rangeOf(response, 0)) };
    return { succeeded: true, revision: response.revision };
  }

  async compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult> {
    const keyBytes = Buffer.from(key);
    const response = await this.call(0, () =>
      this.txnCall({
        compare: [{ key: keyBytes, result: 'Equal', modRevision: expectedModRevision }],
        success: [{ deleteRange: { key: keyBytes, prevKv: true } }],
        failure: [{ range: { key: keyBytes } }],
      }),
    );
    if (!response.succeeded) return { succeeded: false, current: firstKeyValue(rangeOf(response, 0)) };
    const op = response.responses[0];
    const previous = op && 'deleteRange' in op ? op.deleteRange.prevKvs[0] : undefined;
    const revision = response.revision;
    return previous ? { succeeded: true, revision, previous: toKeyValue(previous) } : { succeeded: true, revision };
  }

  async watch(start: string, end: string, afterRevision: number, sink: WatchSink): Promise<WatchHandle> {
    // "From now" is pinned to a revision before returning, so that no later write can be missed.
    const after = afterRevision > 0 ? afterRevision : await this.currentRevision();
    const progressRequests = sink.progress ? await this.progressRequestsAreSafe() : false;
    const watch = new EtcdWatch(this.client, start, end, after, sink, {
      progressRequests,
      onStreamOpened: (startRevision) => {
        this.watchStreamsOpened++;
        this.lastWatchStreamStart = startRevision;
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
      await this.client.kv.compact({ revision, physical: false });
    } catch (error) {
      if (isCompactedError(error)) return; // someone already compacted at or past it
      throw await toStorageError(error, revision, () => this.currentRevision());
    }
  }

  async checkHealth(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`etcd did not answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.rangeCall({ key: HEALTH_KEY, countOnly: true }), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.stop();
    this.unary.close();
    this.client.close();
  }
}

/** etcd versions whose progress requests wait for the watch to be synced (3.4.25+, 3.5.8+, 3.6+). */
export function progressRequestsSafeIn(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 25;
  if (minor === 5) return patch >= 8;
  return minor > 5;
}
