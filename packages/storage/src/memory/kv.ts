// The embedded backend's KV: etcd's data model in process memory. One global revision counter,
// every key's history of versions, an event log for watches from past revisions, and compaction.
import type { CompareResult, KV, KVEvent, KeyValue, RangeRequest, RangeResult, StoredValue, WatchHandle, WatchSink } from '../kv.js';
import { gone, tooLargeResourceVersion } from '../errors.js';
import { firstIndex } from '../sorted.js';
import { LocalWatchers } from '../local-watchers.js';
import { checkCompareAndPutSize } from '../request-size.js';
import { ExpiryTimer, expiryTime } from '../expiry.js';

interface Version {
  modRevision: number;
  createRevision: number;
  /** null: the key was deleted at modRevision. */
  value: StoredValue | null;
}


const toKeyValue = (key: string, version: Version): KeyValue | null =>
  version.value === null
    ? null
    : { key, value: version.value, modRevision: version.modRevision, createRevision: version.createRevision };

export class MemoryKV implements KV {
  private revision = 1;
  private compacted = 0;
  private readonly histories = new Map<string, Version[]>();
  private sortedKeys: string[] = [];
  private log: KVEvent[] = [];
  private readonly watchers = new LocalWatchers(() => this.revision);
  /** Versions written with a TTL, deleted when it has passed (as etcd revokes a lease). */
  private readonly expiry = new ExpiryTimer((key, modRevision) => this.compareAndDelete(key, modRevision));
  private closed = false;

  private checkReadRevision(revision: number): number {
    if (revision === 0) return this.revision;
    if (revision > this.revision) throw tooLargeResourceVersion(revision, this.revision);
    if (revision < this.compacted) throw gone(revision, this.compacted);
    return revision;
  }

  /** The live version of `key` at `revision`, or null. */
  private at(key: string, revision: number): KeyValue | null {
    const history = this.histories.get(key);
    if (!history) return null;
    const index = firstIndex(history, (version) => version.modRevision > revision) - 1;
    return index < 0 ? null : toKeyValue(key, history[index]!);
  }

  async get(key: string, revision: number): Promise<KeyValue | null> {
    return this.at(key, this.checkReadRevision(revision));
  }

  async range({ start, end, revision, limit }: RangeRequest): Promise<RangeResult> {
    const readAt = this.checkReadRevision(revision);
    const kvs: KeyValue[] = [];
    let remaining = 0;
    for (let i = firstIndex(this.sortedKeys, (key) => key >= start); i < this.sortedKeys.length; i++) {
      const key = this.sortedKeys[i]!;
      if (key >= end) break;
      const kv = this.at(key, readAt);
      if (!kv) continue;
      if (limit > 0 && kvs.length === limit) remaining++;
      else kvs.push(kv);
    }
    return { kvs, revision: readAt, remaining };
  }

  async compareAndPut(key: string, expectedModRevision: number, value: StoredValue, ttlSeconds = 0): Promise<CompareResult> {
    const current = this.at(key, this.revision);
    checkCompareAndPutSize(key, value, expectedModRevision);
    if ((current?.modRevision ?? 0) !== expectedModRevision) return { succeeded: false, current };
    const revision = ++this.revision;
    const version = { modRevision: revision, createRevision: current?.createRevision ?? revision, value };
    this.append(key, version);
    if (ttlSeconds > 0) this.expiry.add(key, revision, expiryTime(ttlSeconds));
    else this.expiry.forget(key);
    const kv = toKeyValue(key, version)!;
    this.emit(current ? { type: 'put', kv, previous: current } : { type: 'put', kv });
    return current ? { succeeded: true, revision, previous: current } : { succeeded: true, revision };
  }

  async compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult> {
    const current = this.at(key, this.revision);
    if (!current || current.modRevision !== expectedModRevision) return { succeeded: false, current };
    const revision = ++this.revision;
    this.append(key, { modRevision: revision, createRevision: 0, value: null });
    this.expiry.forget(key);
    this.emit({ type: 'delete', kv: { key, value: '', modRevision: revision, createRevision: 0 }, previous: current });
    return { succeeded: true, revision, previous: current };
  }

  private append(key: string, version: Version): void {
    const history = this.histories.get(key);
    if (history) {
      history.push(version);
      return;
    }
    this.histories.set(key, [version]);
    this.sortedKeys.splice(firstIndex(this.sortedKeys, (other) => other > key), 0, key);
  }

  private emit(event: KVEvent): void {
    this.log.push(event);
    this.watchers.emit(event);
  }

  async watch(start: string, end: string, afterRevision: number, sink: WatchSink): Promise<WatchHandle> {
    return this.watchers.add(start, end, afterRevision, this.compacted, sink, () => {
      const from = afterRevision === 0 ? this.revision : afterRevision;
      for (let i = firstIndex(this.log, (event) => event.kv.modRevision > from); i < this.log.length; i++) {
        const event = this.log[i]!;
        if (event.kv.key >= start && event.kv.key < end) sink.push(event);
      }
    });
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compact(revision: number): Promise<void> {
    if (revision > this.revision) throw tooLargeResourceVersion(revision, this.revision);
    if (revision <= this.compacted) return;
    this.compacted = revision;
    this.log = this.log.slice(firstIndex(this.log, (event) => event.kv.modRevision >= revision));
    for (const [key, history] of this.histories) {
      // Keep what is readable at `revision` (its latest version then) and everything newer.
      const firstNewer = firstIndex(history, (version) => version.modRevision > revision);
      const kept = history.slice(Math.max(0, firstNewer - 1));
      if (kept[0]?.value === null && kept[0].modRevision <= revision) kept.shift();
      if (kept.length === 0) this.histories.delete(key);
      else this.histories.set(key, kept);
    }
    if (this.sortedKeys.length !== this.histories.size) {
      this.sortedKeys = this.sortedKeys.filter((key) => this.histories.has(key));
    }
  }

  async checkHealth(): Promise<void> {
    if (this.closed) throw new Error('storage is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.expiry.stop();
    this.watchers.failAll(new Error('storage is closed'));
  }
}
