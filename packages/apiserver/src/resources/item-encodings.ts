// Encodings kept beside shared list items (the registry's list-item.ts: the watch cache's objects,
// the same from list to list), so that a list from the cache encodes only what changed since the
// last: a 10,000-object list spent 30-40 ms in JSON.stringify and 10-20 ms more turning the text
// into bytes (bench/api), where copying kept bytes takes a few. The kept bytes are bounded: past the
// budget an item is encoded for each list, so that a resource of 100,000 objects does not hold a
// second copy of itself (its JSON, ~90 MB) for as long as it is cached.
export type Encode = (item: object) => Uint8Array;

/** Kept encodings, at most this many bytes, unless told otherwise. */
export const DEFAULT_ENCODING_BUDGET_BYTES = 16 * 1024 * 1024;

export class ItemEncodings {
  private readonly kept = new WeakMap<object, Uint8Array>();
  private keptBytes = 0;
  /** An item collected takes its encoding with it: its bytes are free again. */
  private readonly released = new FinalizationRegistry<number>((bytes) => {
    this.keptBytes -= bytes;
  });

  constructor(private readonly budgetBytes = DEFAULT_ENCODING_BUDGET_BYTES) {}

  /** Bytes kept now (of items not yet collected). */
  get bytes(): number {
    return this.keptBytes;
  }

  /** The item's encoding: kept from before, or made now (and kept, if the budget allows). */
  of(item: object, encode: Encode): Uint8Array {
    const known = this.kept.get(item);
    if (known) return known;
    const encoded = encode(item);
    this.keep(item, encoded);
    return encoded;
  }

  /** The item's kept encoding, if there is one. */
  get(item: object): Uint8Array | undefined {
    return this.kept.get(item);
  }

  /** Whether `bytes` more would still be within the budget. */
  hasRoom(bytes: number): boolean {
    return this.keptBytes + bytes <= this.budgetBytes;
  }

  /** Keeps `encoded` beside the item if the budget allows. */
  keep(item: object, encoded: Uint8Array): void {
    if (!this.hasRoom(encoded.length) || this.kept.has(item)) return;
    this.kept.set(item, encoded);
    this.keptBytes += encoded.length;
    this.released.register(item, encoded.length);
  }
}
