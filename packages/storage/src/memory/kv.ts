// The embedded backend's KV: etcd's data model in process memory. One global revision counter,
// every key's history of versions, an event log for watches from past revisions, and compaction.
import type { CompareResult, KV, KVEvent, KeyValue, RangeRequest, RangeResult, WatchHandle, WatchSink } from '../kv.js';
import { gone, requestTooLarge, tooLargeResourceVersion } from '../errors.js';
import { firstIndex } from '../sorted.js';
import { ETCD_DEFAULT_MAX_REQUEST_BYTES, compareAndPutRequestBytes } from '../request-size.js';

interface Version {
  modRevision: number;
  createRevision: number;
  /** null: the key was deleted at modRevision. */
  value: string | null;
}

interface Watcher {
  start: string;
  end: string;
  sink: WatchSink;
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
  private readonly watchers = new Set<Watcher>();
  private closed = false;

  /** Refuses a write a default etcd would refuse for its size (request-size.ts). */
  private checkRequestSize(key: string, value: string, expectedModRevision: number): void {
    const limit = ETCD_DEFAULT_MAX_REQUEST_BYTES;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most writes are sized without being scanned.
    if (compareAndPutRequestBytes(3 * key.length, 3 * value.length, expectedModRevision) <= limit) return;
    const bytes = compareAndPutRequestBytes(Buffer.byteLength(key), Buffer.byteLength(value), expectedModRevision);
    if (bytes > limit) throw requestTooLarge(key, `request is too large: the write takes ${bytes} bytes as etcd counts them, over its limit of ${limit}`);
  }

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

  async compareAndPut(key: string, expectedModRevision: number, value: string): Promise<CompareResult> {
    const current = this.at(key, this.revision);
    this.checkRequestSize(key, value, expectedModRevision);
    if ((current?.modRevision ?? 0) !== expectedModRevision) return { succeeded: false, current };
    const revision = ++this.revision;
    const version = { modRevision: revision, createRevision: current?.createRevision ?? revision, value };
    this.append(key, version);
    const kv = toKeyValue(key, version)!;
    this.emit(current ? { type: 'put', kv, previous: current } : { type: 'put', kv });
    return current ? { succeeded: true, revision, previous: current } : { succeeded: true, revision };
  }

  async compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult> {
    const current = this.at(key, this.revision);
    if (!current || current.modRevision !== expectedModRevision) return { succeeded: false, current };
    const revision = ++this.revision;
    this.append(key, { modRevision: revision, createRevision: 0, value: null });
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
    const key = event.kv.key;
    for (const watcher of this.watchers) {
      if (key >= watcher.start && key < watcher.end) watcher.sink.push(event);
    }
  }

  async watch(start: string, end: string, afterRevision: number, sink: WatchSink): Promise<WatchHandle> {
    const watcher: Watcher = { start, end, sink };
    const handle: WatchHandle = {
      stop: () => this.watchers.delete(watcher),
      pause() {},
      resume() {},
      // Writes reach every watcher synchronously, so everything up to the current revision is pushed.
      requestProgress: () => {
        if (this.watchers.has(watcher)) sink.progress?.(this.revision);
      },
    };
    if (afterRevision > 0 && afterRevision + 1 < this.compacted) {
      sink.fail(gone(afterRevision, this.compacted));
      return handle;
    }
    const from = afterRevision === 0 ? this.revision : afterRevision;
    for (let i = firstIndex(this.log, (event) => event.kv.modRevision > from); i < this.log.length; i++) {
      const event = this.log[i]!;
      if (event.kv.key >= start && event.kv.key < end) sink.push(event);
    }
    this.watchers.add(watcher);
    return handle;
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
    for (const watcher of this.watchers) watcher.sink.fail(new Error('storage is closed'));
    this.watchers.clear();
  }
}
