// The etcd backend's KV: each primitive is one etcd request (a range, or a transaction comparing
// mod_revision), made with the etcd3 client's generated RPC stubs.
import type { Etcd3, IRangeResponse } from 'etcd3';
import type { CompareResult, KV, KeyValue, RangeRequest, RangeResult, WatchHandle, WatchSink } from '../kv.js';
import { toStorageError, isCompactedError } from './errors.js';
import { EtcdWatch } from './watch.js';
import { toKeyValue } from './key-value.js';

const HEALTH_KEY = Buffer.from('health');
const HEALTH_TIMEOUT_MS = 2000;

const firstKeyValue = (response: IRangeResponse | undefined): KeyValue | null => {
  const kv = response?.kvs[0];
  return kv ? toKeyValue(kv) : null;
};

export class EtcdKV implements KV {
  private readonly watches = new Set<EtcdWatch>();
  /** Watch streams opened so far, resumptions included. */
  watchStreamsOpened = 0;
  /** The first revision asked of the most recently opened watch stream. */
  lastWatchStreamStart = 0;

  private progressRequestsSafe: Promise<boolean> | undefined;

  constructor(readonly client: Etcd3) {}

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
    const response = await this.call(revision, () =>
      this.client.kv.range({ key: Buffer.from(key), ...(revision > 0 && { revision }) }),
    );
    return firstKeyValue(response);
  }

  async range({ start, end, revision, limit }: RangeRequest): Promise<RangeResult> {
    const response = await this.call(revision, () =>
      this.client.kv.range({
        key: Buffer.from(start),
        range_end: Buffer.from(end),
        ...(revision > 0 && { revision }),
        ...(limit > 0 && { limit }),
      }),
    );
    const kvs = response.kvs.map(toKeyValue);
    // The header carries etcd's current revision even for a read at an older one.
    const readAt = revision > 0 ? revision : Number(response.header.revision);
    return { kvs, revision: readAt, remaining: Number(response.count) - kvs.length };
  }

  async compareAndPut(key: string, expectedModRevision: number, value: string): Promise<CompareResult> {
    const keyBytes = Buffer.from(key);
    const response = await this.call(0, () =>
      this.client.kv.txn({
        compare: [{ key: keyBytes, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
        success: [{ request_put: { key: keyBytes, value: Buffer.from(value) } }],
        failure: [{ request_range: { key: keyBytes } }],
      }),
    );
    if (!response.succeeded) return { succeeded: false, current: firstKeyValue(response.responses[0]?.response_range) };
    return { succeeded: true, revision: Number(response.header.revision) };
  }

  async compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult> {
    const keyBytes = Buffer.from(key);
    const response = await this.call(0, () =>
      this.client.kv.txn({
        compare: [{ key: keyBytes, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
        success: [{ request_delete_range: { key: keyBytes, prev_kv: true } }],
        failure: [{ request_range: { key: keyBytes } }],
      }),
    );
    if (!response.succeeded) return { succeeded: false, current: firstKeyValue(response.responses[0]?.response_range) };
    const previous = response.responses[0]?.response_delete_range.prev_kvs[0];
    const revision = Number(response.header.revision);
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
    const response = await this.call(0, () => this.client.kv.range({ key: HEALTH_KEY, count_only: true }));
    return Number(response.header.revision);
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
      await Promise.race([
        this.client.kv.range({ key: HEALTH_KEY, count_only: true }, { deadline: Date.now() + HEALTH_TIMEOUT_MS }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.stop();
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
