// A large list written as it is encoded: a readable stream of chunks, each made when the response
// asks for more (the socket drained), never the whole list as one string or buffer. Only the chunk
// being written and the next one are held, however slow the reader: a 100,000-object list (~90 MB
// of JSON) costs a replica a few hundred kilobytes above its objects, not their size again.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { listParts } from '@plat/protobuf';
import { ItemEncodings } from './item-encodings.js';

/** About this many bytes per chunk handed to the response. */
export const LIST_CHUNK_BYTES = 256 * 1024;

/** Lists with at least this many items are written in chunks; smaller ones in one buffer. */
export const STREAMED_LIST_MIN_ITEMS = 500;

export interface ListObject {
  items: readonly object[];
  [field: string]: unknown;
}

const jsonEncodings = new ItemEncodings(24 * 1024 * 1024);
const protobufEncodings = new ItemEncodings(24 * 1024 * 1024);

const encodeJson = (item: object): Uint8Array => Buffer.from(JSON.stringify(item));

/** The list's JSON as JSON.stringify writes it (items last, as the registry builds lists). */
function jsonParts(list: ListObject): { head: Buffer; item: (index: number) => Uint8Array; separator: Buffer; tail: Buffer } {
  const { items, ...rest } = list;
  const head = JSON.stringify(rest);
  return {
    head: Buffer.from(`${head.length > 2 ? `${head.slice(0, -1)},` : '{'}"items":[`),
    item: (index) => jsonEncodings.of(items[index]!, encodeJson),
    separator: Buffer.from(','),
    tail: Buffer.from(']}'),
  };
}

/** A list of shared items as one buffer of JSON (a list too small to be worth chunks). */
export function jsonListBuffer(list: ListObject): Buffer {
  const parts = jsonParts(list);
  const count = list.items.length;
  const encoded = new Array<Uint8Array>(count);
  let size = parts.head.length + Math.max(0, count - 1) + parts.tail.length;
  for (let i = 0; i < count; i++) {
    encoded[i] = parts.item(i);
    size += encoded[i]!.length;
  }
  const body = Buffer.allocUnsafe(size);
  body.set(parts.head, 0);
  let offset = parts.head.length;
  for (let i = 0; i < count; i++) {
    if (i > 0) body[offset++] = 0x2c; // ,
    body.set(encoded[i]!, offset);
    offset += encoded[i]!.length;
  }
  body.set(parts.tail, offset);
  return body;
}

/**
 * Chunks of about LIST_CHUNK_BYTES from `next` (which returns the next piece, or undefined at the
 * end), made one per read: the stream asks again only once what it gave was taken.
 */
class ChunkStream extends Readable {
  private ended = false;
  private produced = 0;

  constructor(
    private readonly next: () => Uint8Array | undefined,
    /** Told how many bytes there were, once the last is made. */
    private readonly onEnd?: (bytes: number) => void,
  ) {
    // One chunk waits while one is written: backpressure keeps it at that.
    super({ highWaterMark: LIST_CHUNK_BYTES });
  }

  override _read(): void {
    if (this.ended) return;
    const pieces: Uint8Array[] = [];
    let size = 0;
    while (size < LIST_CHUNK_BYTES) {
      let piece: Uint8Array | undefined;
      try {
        piece = this.next();
      } catch (error) {
        // The head is written already: the response can only be cut short.
        this.destroy(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (piece === undefined) {
        this.ended = true;
        break;
      }
      pieces.push(piece);
      size += piece.length;
    }
    this.produced += size;
    if (size > 0) this.push(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, size));
    if (this.ended) {
      this.onEnd?.(this.produced);
      this.push(null);
    }
  }
}

/** The JSON of a list of shared items, in chunks. */
export function jsonListStream(list: ListObject, onEnd?: (bytes: number) => void): Readable {
  const parts = jsonParts(list);
  const count = list.items.length;
  let index = -1;
  let separate = false;
  return new ChunkStream(() => {
    if (index === -1) {
      index = 0;
      return parts.head;
    }
    if (index > count) return undefined;
    if (index === count) {
      index++;
      return parts.tail;
    }
    if (separate) {
      separate = false;
      return parts.separator;
    }
    const item = parts.item(index++);
    separate = index < count;
    return item;
  }, onEnd);
}

/** How long the sizing pass encodes before letting other work run. */
const SIZING_SLICE_MS = 5;
/** Item encodings the sizing pass keeps for the writing pass (past them, items are encoded twice). */
const SIZING_KEEP_BYTES = 8 * 1024 * 1024;

/**
 * The Protobuf of a list, in chunks: its length comes first, so each item is encoded once to size
 * it (in slices of a few milliseconds, not in one stretch that would hold up every other request)
 * and again as it is written, but for the first few megabytes kept from the sizing and what the
 * shared budget keeps. Its length in bytes comes with it, for Content-Length.
 */
export async function protobufListStream(list: ListObject): Promise<{ stream: Readable; length: number }> {
  const parts = listParts(list);
  const { items } = list;
  const encode = (item: object): Uint8Array => parts.item(item);
  const sizes = new Uint32Array(items.length);
  const kept: (Uint8Array | undefined)[] = [];
  let keptBytes = 0;
  let messageLength = parts.metadata.length;
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    const encoded = protobufEncodings.of(items[i]!, encode);
    sizes[i] = encoded.length;
    messageLength += encoded.length;
    if (keptBytes < SIZING_KEEP_BYTES) {
      kept[i] = encoded;
      keptBytes += encoded.length;
    }
    if ((i & 63) === 63 && performance.now() - sliceStart > SIZING_SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  const head = parts.head(messageLength);
  let index = -2;
  const stream = new ChunkStream(() => {
    if (index === -2) {
      index++;
      return head;
    }
    if (index === -1) {
      index++;
      return parts.metadata;
    }
    if (index > items.length) return undefined;
    if (index === items.length) {
      index++;
      return parts.tail;
    }
    const i = index++;
    const encoded = kept[i] ?? protobufEncodings.of(items[i]!, encode);
    kept[i] = undefined;
    // An item changed between the passes would make the length a lie: they are shared and
    // never changed, but say so rather than send a broken body.
    if (encoded.length !== sizes[i]) throw new Error(`list item ${i} changed while the list was written`);
    return encoded;
  });
  return { stream, length: head.length + messageLength + parts.tail.length };
}
