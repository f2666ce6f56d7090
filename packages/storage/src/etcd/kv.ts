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

  constructor(readonly client: Etcd3) {}

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
    const watch = new EtcdWatch(this.client, start, end, after, sink, {
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
