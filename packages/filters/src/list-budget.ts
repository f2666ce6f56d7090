// A memory-aware budget for lists: each list reserves what it is estimated to hold in memory while
// it is served, and one that would not fit in what the heap has left (less what the lists in
// flight hold) is refused with 429 and Retry-After, rather than served into an out-of-memory crash.
// The in-flight limit bounds how many lists run at once; this bounds what they hold between them,
// which for a Table of 100,000 objects, or a list read whole from etcd, is hundreds of megabytes.
// What watchers hold (events written and not yet taken by the kernel, and kept for their next
// drain) is counted with the reservations: it is outside the heap, where the heap's figures never
// show it, and a thousand watchers that stop reading hold it between them.
import { getHeapStatistics } from 'node:v8';

export interface ListEstimate {
  /** Objects the list is expected to hold (the resource's count, or the limit). */
  items: number;
  /** Their average JSON size, as learned from earlier lists of the resource. */
  bytesPerItem: number;
  /** Written in chunks from shared objects (the watch cache): only a few chunks are held. */
  streamed: boolean;
  /** Read from the store: its values and decoded objects are held as well. */
  fromStore: boolean;
}

/** A JSON object's size once decoded into the heap, roughly, in multiples of its text (bench/scale). */
const DECODED_FACTOR = 3;
/** What a chunked list holds besides its items: the chunk being written and the next. */
const STREAM_OVERHEAD_BYTES = 1024 * 1024;
/** A list's array of items and each item's wrapper, per item. */
const ITEM_REFERENCE_BYTES = 64;
/** Assumed until a list of the resource has been written. */
export const DEFAULT_BYTES_PER_ITEM = 2048;

/** The memory a list holds while it is served, in bytes: an estimate, not a measure. */
export function listCost({ items, bytesPerItem, streamed, fromStore }: ListEstimate): number {
  let cost = items * ITEM_REFERENCE_BYTES;
  // Read from etcd: the values as they came, and the objects decoded from them.
  if (fromStore) cost += items * bytesPerItem * (1 + DECODED_FACTOR);
  // Encoded whole (a Table, YAML, ?pretty, a small list): the representation built, and its text.
  cost += streamed ? STREAM_OVERHEAD_BYTES : items * bytesPerItem * (1 + DECODED_FACTOR);
  return cost;
}

export interface HeapNow {
  /** The most the heap may grow to (--max-old-space-size and the young generation). */
  limit: number;
  used: number;
}

const heapNow = (): HeapNow => {
  const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
  return { limit, used };
};

/** Something that holds a varying amount of memory (a watcher's unsent bytes), counted by the budget. */
export interface MemoryHolder {
  /** What it holds now, in bytes. */
  set(bytes: number): void;
  /** It holds nothing any more. */
  release(): void;
}

export class ListMemoryBudget {
  private reservedBytes = 0;
  private heldBytes = 0;
  private readonly bytesPerItem = new Map<string, number>();

  /**
   * @param heapShare the share of the heap's limit lists may take the heap to (default 0.85: the
   *   rest is left to everything else, and to the collector's own work)
   */
  constructor(
    private readonly heapShare = 0.85,
    private readonly heap: () => HeapNow = heapNow,
  ) {}

  /** Bytes reserved by the lists in flight. */
  get reserved(): number {
    return this.reservedBytes;
  }

  /** Bytes the holders (watchers) hold now. */
  get held(): number {
    return this.heldBytes;
  }

  /** A holder whose bytes count against what lists may reserve. */
  holder(): MemoryHolder {
    let bytes = 0;
    const set = (now: number): void => {
      this.heldBytes += now - bytes;
      bytes = now;
    };
    return { set, release: () => set(0) };
  }

  /**
   * Reserves `bytes`; returns the release (call it once the response has closed), or undefined when
   * they do not fit. A list alone (nothing reserved or held) is always let through: the estimate is rough, and the heap's own
   * limit is then the judge, as it would be without this budget.
   */
  reserve(bytes: number): (() => void) | undefined {
    const taken = this.reservedBytes + this.heldBytes;
    if (taken > 0) {
      const { limit, used } = this.heap();
      // What the heap holds already counts what the lists in flight have built so far: counting it
      // again with their reservations errs on the side of refusing.
      if (used + taken + bytes > limit * this.heapShare) return undefined;
    }
    this.reservedBytes += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reservedBytes -= bytes;
    };
  }

  /**
   * The average JSON size of a resource's objects, as the lists written of it said; before any
   * was, as a sample of its objects weighs (`sample`, from the watch cache), or else a guess.
   */
  averageItemBytes(resource: string, sample?: () => readonly object[] | undefined): number {
    const learned = this.bytesPerItem.get(resource);
    if (learned !== undefined) return learned;
    const objects = sample?.();
    if (!objects?.length) return DEFAULT_BYTES_PER_ITEM;
    const bytes = objects.reduce((sum, object) => sum + Buffer.byteLength(JSON.stringify(object)), 0);
    this.learn(resource, bytes, objects.length);
    return this.bytesPerItem.get(resource)!;
  }

  /** A list of `items` objects of `resource` came to `bytes` of JSON. */
  learn(resource: string, bytes: number, items: number): void {
    if (items > 0) this.bytesPerItem.set(resource, Math.max(64, Math.round(bytes / items)));
  }
}
