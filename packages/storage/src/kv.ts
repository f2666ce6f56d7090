// The KV contract: the few primitive operations a backend provides. KVStorage (kv-storage.ts)
// builds every Storage verb from these, so that the backends share one set of semantics.

/**
 * A stored value: the encoded object as JSON text, or bytes (what a value transformer wrote, or
 * anything etcd returns: the store tells them apart, not the backend).
 */
export type StoredValue = string | Buffer;

export interface KeyValue {
  key: string;
  value: StoredValue;
  modRevision: number;
  createRevision: number;
}

export type CompareResult =
  | { succeeded: true; revision: number; previous?: KeyValue }
  /** The key had another mod revision (or was absent / present against expectations). */
  | { succeeded: false; current: KeyValue | null };

export interface RangeRequest {
  /** Keys in [start, end) are returned in key order. */
  start: string;
  end: string;
  /** 0: the current revision. */
  revision: number;
  /** 0: no limit. */
  limit: number;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** The revision the range was read at. */
  revision: number;
  /** Keys in the range at that revision beyond those returned. */
  remaining: number;
}

export interface KVEvent {
  type: 'put' | 'delete';
  /** For put: the new value. For delete: key and modRevision (the delete's revision) only. */
  kv: KeyValue;
  /** The value before this event, when it existed. */
  previous?: KeyValue;
}

export interface WatchSink {
  push(event: KVEvent): void;
  fail(error: unknown): void;
  /** Every event up to `revision` has been pushed (a progress notification). */
  progress?(revision: number): void;
}

export interface WatchHandle {
  stop(): void;
  /** Asks the backend to stop sending for a while (the consumer is behind). */
  pause(): void;
  resume(): void;
  /** Asks for a progress notification (`WatchSink.progress`); backends may ignore it. */
  requestProgress?(): void;
}

export interface KV {
  get(key: string, revision: number): Promise<KeyValue | null>;
  range(request: RangeRequest): Promise<RangeResult>;
  /**
   * Puts only when the key's mod revision is `expectedModRevision` (0: the key must be absent). With
   * `ttlSeconds` above 0 the backend deletes this version of the key once that time has passed (a
   * delete as any other: a new revision, an event); a later put replaces the expiry with its own.
   */
  compareAndPut(key: string, expectedModRevision: number, value: StoredValue, ttlSeconds?: number): Promise<CompareResult>;
  compareAndDelete(key: string, expectedModRevision: number): Promise<CompareResult>;
  /**
   * Sends the events on keys in [start, end) with revisions above `afterRevision` (0: from now on)
   * to `sink`; resolves once the start is fixed, so a write made after that is always seen. Sends, in order and each once. A failure (such as Gone) reaches `sink.fail` and ends it.
   */
  watch(start: string, end: string, afterRevision: number, sink: WatchSink): Promise<WatchHandle>;
  currentRevision(): Promise<number>;
  compact(revision: number): Promise<void>;
  checkHealth(): Promise<void>;
  close(): Promise<void>;
}

/** The first key after every key that starts with `prefix`. Keys are ASCII, so one code unit will do. */
export function prefixEnd(prefix: string): string {
  if (!prefix) return '\0';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** The first key after `key` itself: [key, keyEnd(key)) holds exactly one key. */
export const keyEnd = (key: string): string => `${key}\0`;
