// Encodings kept beside shared list items (the registry's list-item.ts: the watch cache's objects,
// the same from list to list), so that a list from the cache encodes only what changed since the
// last: a 10,000-object list spent 30-40 ms in JSON.stringify and 10-20 ms more turning the text
// into bytes (bench/api), where copying kept bytes takes a few. The kept bytes are bounded: past the
// budget an item is encoded for each list, so that a resource of 100,000 objects does not hold a
// second copy of itself (its JSON, ~90 MB) for as long as it is cached.
//
// The bytes live in slabs of this class's own, never in buffers from node's shared pool: a kept
// buffer of the pool holds its whole 8 KiB slab, and with it whatever else was cut from it, so
// that 16 MiB kept held 70 MiB (bench/scale, Protobuf). A slab is counted against the budget until
// every item in it has been collected, so the budget is what is really held.

/** Slabs of this size; an encoding larger than a quarter of it gets a slab of its own. */
export const SLAB_BYTES = 64 * 1024;

/** Kept encodings, at most this many bytes, unless told otherwise. */
export const DEFAULT_ENCODING_BUDGET_BYTES = 16 * 1024 * 1024;

interface Slab {
  readonly bytes: Buffer;
  /** Where the next encoding goes. */
  used: number;
  /** Items of this slab not yet collected. */
  live: number;
  /** No more encodings go into it (its bytes are released once `live` is 0). */
  full: boolean;
}

export class ItemEncodings {
  private readonly kept = new WeakMap<object, Uint8Array>();
  private heldBytes = 0;
  private current: Slab | undefined;
  /** An item collected takes its encoding with it: its slab is free once all of its items are. */
  private readonly released = new FinalizationRegistry<Slab>((slab) => {
    slab.live--;
    this.releaseIfEmpty(slab);
  });

  constructor(private readonly budgetBytes = DEFAULT_ENCODING_BUDGET_BYTES) {}

  /** Bytes held now: the slabs with an item not yet collected, and the one being filled. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** The item's kept encoding, if there is one. */
  get(item: object): Uint8Array | undefined {
    return this.kept.get(item);
  }

  /** Whether `bytes` more could still be kept. */
  hasRoom(bytes: number): boolean {
    if (this.current && this.current.bytes.length - this.current.used >= bytes) return true;
    return this.heldBytes + Math.max(bytes, SLAB_BYTES) <= this.budgetBytes;
  }

  /** Copies `encoded` beside the item, if the budget allows; the kept bytes, or undefined. */
  keep(item: object, encoded: Uint8Array): Uint8Array | undefined {
    const place = this.place(item, encoded.length);
    place?.set(encoded);
    return place;
  }

  /**
   * Keeps the UTF-8 of `text` (`length` bytes, as Buffer.byteLength counts them) beside the item,
   * written straight into a slab, if the budget allows; the kept bytes, or undefined.
   */
  keepText(item: object, text: string, length: number): Uint8Array | undefined {
    const place = this.place(item, length);
    place?.write(text, 0, length, 'utf8');
    return place;
  }

  /** A place of `length` bytes kept for the item, or undefined when it has one or there is no room. */
  private place(item: object, length: number): Buffer | undefined {
    if (this.kept.has(item) || !this.hasRoom(length)) return undefined;
    let slab = this.current;
    if (!slab || slab.bytes.length - slab.used < length) {
      const size = length > SLAB_BYTES / 4 ? length : SLAB_BYTES;
      slab = { bytes: Buffer.allocUnsafeSlow(size), used: 0, live: 0, full: false };
      this.heldBytes += size;
      if (size === SLAB_BYTES) {
        if (this.current) this.retire(this.current);
        this.current = slab;
      } else slab.full = true;
    }
    const place = slab.bytes.subarray(slab.used, slab.used + length);
    slab.used += length;
    slab.live++;
    this.kept.set(item, place);
    this.released.register(item, slab);
    return place;
  }

  private retire(slab: Slab): void {
    slab.full = true;
    this.releaseIfEmpty(slab);
  }

  private releaseIfEmpty(slab: Slab): void {
    if (slab.full && slab.live === 0) this.heldBytes -= slab.bytes.length;
  }
}
