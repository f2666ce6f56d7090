// What a recorder does to an event before it reaches the API, as client-go's tools/record does, so
// that a controller failing in a loop costs the API a counter's update rather than an object a try:
// - aggregation: events that differ only by message (same source, object, type and reason) seen 10
//   times within 10 minutes become one event "(combined from similar events): <message>";
// - deduplication: an event seen before (or the aggregate of one) is the same event again, its
//   count one more and its lastTimestamp now, written as a PATCH of those fields;
// - a spam filter: each source may record about one object 25 events at once, then one every 5
//   minutes (a token bucket per source and object); the rest are dropped.
// Every cache is bounded (least recently used dropped first), as upstream's 4,096 entries.
import type { KubeObject } from '../types.js';

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A core v1 Event, as the recorder writes it. */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

export interface CorrelatorOptions {
  /** Entries of each cache (upstream's 4,096). */
  cacheSize?: number;
  /** Events a source may record about one object at once (upstream's 25). */
  burst?: number;
  /** Tokens a second that refill it (upstream's one per 300 s). */
  qps?: number;
  /** Distinct messages within the interval before similar events are combined (upstream's 10). */
  maxSimilar?: number;
  /** The interval of aggregation, in ms (upstream's 10 minutes). */
  aggregateIntervalMs?: number;
  now?: () => number;
}

/** What the recorder does with an event. */
export type Correlated =
  | { skip: true }
  | {
      skip: false;
      event: CoreEvent;
      /** The fields to PATCH (strategic merge) onto the event written before; absent: create it. */
      patch?: { count: number; lastTimestamp: string; message: string };
      /** The key its outcome is remembered under (updateState). */
      key: string;
    };

/** A map that forgets its least recently used entries beyond `size`. */
class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
  }
}

/** A time as metav1.Time writes it: whole seconds, UTC. */
const time = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

// Keys join their parts with nothing between, as upstream's do (collisions are as unlikely there).
const source = (e: CoreEvent): string[] => [e.source?.component ?? '', e.source?.host ?? ''];
const object = (e: CoreEvent, withFieldPath: boolean): string[] => {
  const o = e.involvedObject;
  return [o.kind ?? '', o.namespace ?? '', o.name ?? '', ...(withFieldPath ? [o.fieldPath ?? ''] : []), o.uid ?? '', o.apiVersion ?? ''];
};

/** The whole identity of an event: two events with the same key are the same event again. */
export const eventKey = (e: CoreEvent): string => [...source(e), ...object(e, true), e.type ?? '', e.reason ?? '', e.message ?? ''].join('');
const spamKey = (e: CoreEvent): string => [...source(e), ...object(e, false)].join('');
/** Events alike but for their message. */
const aggregateKey = (e: CoreEvent): string =>
  [...source(e), ...object(e, false), e.type ?? '', e.reason ?? '', e.reportingComponent ?? '', e.reportingInstance ?? ''].join('');

interface Observation {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class EventCorrelator {
  private readonly aggregates: LruCache<{ messages: Set<string>; lastMs: number }>;
  private readonly observations: LruCache<Observation>;
  private readonly buckets: LruCache<Bucket>;
  private readonly burst: number;
  private readonly qps: number;
  private readonly maxSimilar: number;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(options: CorrelatorOptions = {}) {
    const size = options.cacheSize ?? 4096;
    this.aggregates = new LruCache(size);
    this.observations = new LruCache(size);
    this.buckets = new LruCache(size);
    this.burst = options.burst ?? 25;
    this.qps = options.qps ?? 1 / 300;
    this.maxSimilar = options.maxSimilar ?? 10;
    this.intervalMs = options.aggregateIntervalMs ?? 600_000;
    this.now = options.now ?? Date.now;
  }

  /** What to write for `event` (a new event the recorder made), or that it is to be dropped. */
  correlate(event: CoreEvent): Correlated {
    const { event: aggregated, key } = this.aggregate(event);
    const observed = this.observe(aggregated, key);
    if (!this.allow(observed.event)) return { skip: true };
    return { skip: false, ...observed, key };
  }

  /** The server's answer: later occurrences update this event (its name and resourceVersion). */
  updateState(key: string, written: CoreEvent): void {
    this.observations.set(key, {
      count: written.count ?? 1,
      firstTimestamp: written.firstTimestamp ?? '',
      name: written.metadata.name ?? '',
      resourceVersion: written.metadata.resourceVersion ?? '',
    });
  }

  private aggregate(event: CoreEvent): { event: CoreEvent; key: string } {
    const now = this.now();
    const key = aggregateKey(event);
    let record = this.aggregates.get(key);
    if (!record || now - record.lastMs > this.intervalMs) record = { messages: new Set(), lastMs: now };
    record.messages.add(event.message ?? '');
    record.lastMs = now;
    this.aggregates.set(key, record);
    if (record.messages.size < this.maxSimilar) return { event, key: eventKey(event) };
    // Kept below the threshold, so that each further message is combined too.
    record.messages.delete(record.messages.values().next().value!);
    const at = time(now);
    const combined: CoreEvent = {
      metadata: { name: `${event.involvedObject.name ?? ''}.${nanoHex(now)}`, namespace: event.metadata.namespace! },
      involvedObject: event.involvedObject,
      reason: event.reason ?? '',
      message: `(combined from similar events): ${event.message ?? ''}`,
      source: event.source ?? {},
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      type: event.type ?? '',
    };
    return { event: combined, key };
  }

  private observe(event: CoreEvent, key: string): { event: CoreEvent; patch?: { count: number; lastTimestamp: string; message: string } } {
    const last = this.observations.get(key);
    let observed = event;
    let patch: { count: number; lastTimestamp: string; message: string } | undefined;
    if (last && last.count > 0) {
      observed = {
        ...event,
        metadata: { ...event.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: observed.count!, lastTimestamp: observed.lastTimestamp ?? '', message: observed.message ?? '' };
    }
    this.observations.set(key, {
      count: observed.count ?? 1,
      firstTimestamp: observed.firstTimestamp ?? '',
      name: observed.metadata.name ?? '',
      resourceVersion: observed.metadata.resourceVersion ?? '',
    });
    return patch ? { event: observed, patch } : { event: observed };
  }

  /** A token of the source's bucket for the object, if one is left. */
  private allow(event: CoreEvent): boolean {
    const now = this.now();
    const key = spamKey(event);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.qps);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return allowed;
  }
}

/** A time in nanoseconds since the epoch, in hex: what upstream appends to an event's name. */
export function nanoHex(ms: number): string {
  return (BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.floor((ms % 1) * 1e6))).toString(16);
}
