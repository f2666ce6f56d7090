// A watch cache's state: the current objects by key, and the window of recent events after the
// revision it starts at (upstream's watch_cache.go). Fed one event at a time by the inner watch.
import type { StoredObject, WatchEvent } from '../interface.js';
import { firstIndex } from '../sorted.js';
import { prefixEnd as prefixEndOf } from '../kv.js';

export interface EventWindowSettings {
  /** Events younger than this are always kept (unless `maxHistoryEvents` is reached). */
  historyWindowMs: number;
  /** The most events kept, however young. */
  maxHistoryEvents: number;
}

interface HistoryEntry {
  event: WatchEvent;
  at: number;
}

export class EventWindow {
  /** Current objects by key (as the store returns them: resourceVersion set). Never mutated. */
  private objects = new Map<string, StoredObject>();
  /**
   * The keys of `objects` in order, once a list or a count has asked for them (null before):
   * kept in order as keys come and go, not sorted again, which for 100,000 keys took tens of
   * milliseconds on every list that followed a create.
   */
  private sorted: string[] | null = null;
  private history: HistoryEntry[] = [];
  private historyHead = 0;
  /** The state is that at this revision (raised by events and by progress notifications). */
  revision = 0;
  /** Every event after this revision is in the window. */
  start = 0;
  /**
   * While past events are being filled in (see `backfill`): the revision they start after, and
   * the highest one trimmed off meanwhile. Undefined otherwise.
   */
  private filling: { after: number; trimmed: number } | undefined;
  /** The revision of the newest event in the window (the listed revision before the first). */
  lastEventRevision = 0;

  constructor(private readonly settings: EventWindowSettings) {}

  get size(): number {
    return this.objects.size;
  }

  get length(): number {
    return this.history.length - this.historyHead;
  }

  /** Starts over from a list: `objects` at `revision`, no events yet. */
  reset(objects: Map<string, StoredObject>, revision: number): void {
    this.objects = objects;
    this.sorted = null;
    this.history = [];
    this.historyHead = 0;
    this.revision = revision;
    this.lastEventRevision = revision;
    this.start = revision;
    this.filling = undefined;
  }

  /** Drops every event, keeping the state as it is (at `revision`). */
  clearHistory(revision: number): void {
    this.history = [];
    this.historyHead = 0;
    this.lastEventRevision = revision;
    this.start = revision;
    this.filling = undefined;
  }

  /**
   * Starts filling in the events after `after` up to the listed revision, which happened before
   * the list (`backfill` adds them); until `filled`, watches still start at the listed revision.
   */
  beginFill(after: number): void {
    this.filling = { after, trimmed: after };
  }

  /** Whether past events are still being filled in. */
  get isFilling(): boolean {
    return this.filling !== undefined;
  }

  /**
   * Adds an event from before the listed revision to the history only: the state already has it.
   * An object still current at that revision is the state's own, so that it is held once.
   */
  backfill(event: WatchEvent): void {
    const key = event.key;
    if (key === undefined) throw new Error('the inner watch does not report keys; it cannot be cached');
    let entry = event;
    if (event.type !== 'DELETED') {
      const current = this.objects.get(key);
      if (current && current.metadata?.resourceVersion === String(event.revision)) entry = { ...event, object: current };
    }
    const now = Date.now();
    this.history.push({ event: entry, at: now });
    this.trim(now);
  }

  /** Every past event is in: watches may start from the revision the filling started after. */
  filled(): void {
    if (!this.filling) return;
    this.start = Math.min(this.start, Math.max(this.filling.after, this.filling.trimmed));
    this.filling = undefined;
  }

  apply(event: WatchEvent): void {
    const key = event.key;
    if (key === undefined) throw new Error('the inner watch does not report keys; it cannot be cached');
    if (event.type === 'DELETED') {
      if (this.objects.delete(key)) this.sortedRemove(key);
    } else {
      if (!this.objects.has(key)) this.sortedInsert(key);
      this.objects.set(key, event.object);
    }
    this.revision = Math.max(this.revision, event.revision);
    const now = Date.now();
    this.history.push({ event, at: now });
    this.lastEventRevision = event.revision;
    this.trim(now);
  }

  private trim(now: number): void {
    const { maxHistoryEvents, historyWindowMs } = this.settings;
    let head = this.historyHead;
    while (head < this.history.length) {
      const entry = this.history[head]!;
      if (this.history.length - head <= maxHistoryEvents && now - entry.at <= historyWindowMs) break;
      // An event filled in from before the listed revision leaves watches' start where it is.
      if (this.filling && entry.event.revision <= this.start) this.filling.trimmed = entry.event.revision;
      else this.start = Math.max(this.start, entry.event.revision);
      head++;
    }
    if (head > 1024 && head * 2 > this.history.length) {
      this.history = this.history.slice(head);
      head = 0;
    }
    this.historyHead = head;
  }

  /** The events after `after` whose keys `matches` takes, in order. */
  eventsAfter(after: number, matches: (key: string) => boolean): WatchEvent[] {
    const events: WatchEvent[] = [];
    for (let i = firstIndex(this.history, (entry) => entry.event.revision > after, this.historyHead); i < this.history.length; i++) {
      const event = this.history[i]!.event;
      if (matches(event.key!)) events.push(event);
    }
    return events;
  }

  /** The current object at `key` (shared: not to be mutated). */
  get(key: string): StoredObject | undefined {
    return this.objects.get(key);
  }

  /** How many current objects there are below `prefix`. */
  count(prefix: string): number {
    const { first, end } = this.range(prefix);
    return end - first;
  }

  /** Where the keys below `prefix` lie in the sorted keys: [first, end). */
  private range(prefix: string): { sorted: string[]; first: number; end: number } {
    const sorted = this.sortedKeys();
    const first = firstIndex(sorted, (key) => key >= prefix);
    const after = prefixEndOf(prefix);
    return { sorted, first, end: firstIndex(sorted, (key) => key >= after, first) };
  }

  private sortedInsert(key: string): void {
    const sorted = this.sorted;
    if (sorted) sorted.splice(firstIndex(sorted, (other) => other > key), 0, key);
  }

  private sortedRemove(key: string): void {
    const sorted = this.sorted;
    if (!sorted) return;
    const index = firstIndex(sorted, (other) => other >= key);
    if (sorted[index] === key) sorted.splice(index, 1);
  }

  private sortedKeys(): string[] {
    if (!this.sorted) this.sorted = [...this.objects.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.sorted;
  }

  /** Up to `count` current objects below `prefix`, spread evenly through them (what they weigh, for a list's estimate). */
  sample(prefix: string, count: number): StoredObject[] {
    const { sorted, first, end } = this.range(prefix);
    const total = end - first;
    const taken = Math.min(count, total);
    const objects: StoredObject[] = [];
    for (let i = 0; i < taken; i++) objects.push(this.objects.get(sorted[first + Math.floor((i * total) / taken)]!)!);
    return objects;
  }

  /** The current objects below `prefix`, in key order. */
  list(prefix: string, filter?: (object: StoredObject) => boolean): { items: StoredObject[]; keys: string[]; revision: number } {
    const sorted = this.sortedKeys();
    const items: StoredObject[] = [];
    const keys: string[] = [];
    for (let i = firstIndex(sorted, (key) => key >= prefix); i < sorted.length; i++) {
      const key = sorted[i]!;
      if (!key.startsWith(prefix)) break;
      const object = this.objects.get(key)!;
      if (filter && !filter(object)) continue;
      items.push(object);
      keys.push(key);
    }
    return { items, keys, revision: this.revision };
  }
}
