// A large list written as it is encoded: a readable stream of chunks, each made when the response
// asks for more (the socket drained), never the whole list as one string or buffer. Only the chunk
// being written and the next one are held, however slow the reader: a 100,000-object list (~90 MB
// of JSON) costs a replica a few hundred kilobytes above its objects, not their size again.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { listParts } from '@plat/protobuf';
import { listItem, listObjects, type KubeObject } from '@plat/registry';
import { ItemEncodings } from './item-encodings.js';

/** About this many bytes per chunk handed to the response. */
export const LIST_CHUNK_BYTES = 256 * 1024;

/** Lists with at least this many items are written in chunks; smaller ones in one buffer. */
export const STREAMED_LIST_MIN_ITEMS = 500;

export interface ListObject {
  items: readonly object[];
  [field: string]: unknown;
}

// 16 MiB each: a 10,000-object list's items (bench/api) fit; a 100,000-object resource is not held
// twice over, and its first list raises a replica's memory by little more than the budget.
// An object's JSON as an item is kept apart from its JSON as it is (an unstructured list's item),
// which the same object never needs both of (a resource is served typed or unstructured), but
// which must never be taken for the other.
const jsonEncodings = new ItemEncodings(16 * 1024 * 1024);
const unstructuredJsonEncodings = new ItemEncodings(16 * 1024 * 1024);
const protobufEncodings = new ItemEncodings(16 * 1024 * 1024);

/**
 * What a list is written from: the registry's shared objects where it is a shared list (its items
 * are then never made: see the registry's list-item.ts), else its items.
 */
interface ListSource {
  /** The list's fields but its items, in order. */
  head: Record<string, unknown>;
  /** The objects (or items) the items are written from. */
  objects: readonly object[];
  /** Whether an item is its object without apiVersion and kind (false: the object as it is). */
  strip: boolean;
}

function sourceOf(list: ListObject): ListSource {
  const head: Record<string, unknown> = {};
  // Not a spread or destructuring: they would read `items`, which makes a shared list's items.
  for (const key of Object.keys(list)) if (key !== 'items') head[key] = list[key];
  const shared = listObjects(list);
  if (shared) return { head, objects: shared.objects, strip: !shared.itemsCarryType };
  return { head, objects: list.items, strip: false };
}

/** How many items a list has (without making a shared list's items). */
export function listLength(list: ListObject): number {
  return listObjects(list)?.objects.length ?? list.items.length;
}

/** `{"apiVersion":...,"kind":...,` of the last object asked about: what an item's text must start with to be cut. */
let typePrefix = { apiVersion: '', kind: '', text: '' };

/**
 * An object's JSON without its apiVersion and kind: its text with them cut from the front, where
 * they come first (as the store writes them), else its list item's text.
 */
function itemText(object: object): string {
  const text = JSON.stringify(object);
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  if (apiVersion === undefined && kind === undefined) return text;
  if (typeof apiVersion === 'string' && typeof kind === 'string') {
    if (typePrefix.apiVersion !== apiVersion || typePrefix.kind !== kind) {
      typePrefix = { apiVersion, kind, text: `{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(kind)},` };
    }
    if (text.startsWith(typePrefix.text)) return `{${text.slice(typePrefix.text.length)}`;
  }
  return JSON.stringify(listItem(object as KubeObject));
}

/** The item's JSON: kept from an earlier list, or made now (and kept, within the budget). */
function jsonItem(object: object, strip: boolean): Uint8Array | { text: string; length: number } {
  const encodings = strip ? jsonEncodings : unstructuredJsonEncodings;
  const kept = encodings.get(object);
  if (kept) return kept;
  const text = strip ? itemText(object) : JSON.stringify(object);
  const length = Buffer.byteLength(text);
  return encodings.keepText(object, text, length) ?? { text, length };
}

/** A list of shared items as one buffer of JSON (a list too small to be worth chunks). */
export function jsonListBuffer(list: ListObject): Buffer {
  const { head, objects, strip } = sourceOf(list);
  const open = jsonUpToArray(head, 'items');
  const count = objects.length;
  const encoded = new Array<Uint8Array>(count);
  let size = open.length + Math.max(0, count - 1) + CLOSE.length;
  for (let i = 0; i < count; i++) {
    const item = jsonItem(objects[i]!, strip);
    encoded[i] = item instanceof Uint8Array ? item : Buffer.from(item.text);
    size += encoded[i]!.length;
  }
  const body = Buffer.allocUnsafe(size);
  body.set(open, 0);
  let offset = open.length;
  for (let i = 0; i < count; i++) {
    if (i > 0) body[offset++] = 0x2c; // ,
    body.set(encoded[i]!, offset);
    offset += encoded[i]!.length;
  }
  body.set(CLOSE, offset);
  return body;
}

/**
 * Chunks of about LIST_CHUNK_BYTES from `next` (which makes the next chunk, or returns undefined at
 * the end), one per read: the stream asks again only once what it gave was taken.
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
    let chunk: Uint8Array | undefined;
    try {
      chunk = this.next();
    } catch (error) {
      // The head is written already: the response can only be cut short.
      this.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (chunk === undefined) {
      this.ended = true;
      this.onEnd?.(this.produced);
      this.push(null);
      return;
    }
    this.produced += chunk.length;
    this.push(chunk);
  }
}

/**
 * The text of `object` up to the opening `[` of its array field `field`, which must be its last
 * field (as JSON.stringify would write the object with the array in place).
 */
export function jsonUpToArray(object: Record<string, unknown>, field: string): Buffer {
  const head = JSON.stringify(object);
  return Buffer.from(`${head.length > 2 ? `${head.slice(0, -1)},` : '{'}${JSON.stringify(field)}:[`);
}

/**
 * JSON whose last field is a long array, in chunks: `open` (from jsonUpToArray), the `count`
 * elements from `element` (an element's kept bytes, or its text with its length in UTF-8 bytes),
 * then `]}`. Each chunk is one buffer, its elements' text written into it: an element not kept
 * leaves only a short-lived string behind, not a buffer each, which would stay in the process's
 * memory until a collection (a 100,000-object list made ~60 MB of them).
 */
export function jsonArrayStream(
  open: Uint8Array,
  count: number,
  element: (index: number) => Uint8Array | { text: string; length: number },
  onEnd?: (bytes: number) => void,
): Readable {
  let index = -1;
  /** The chunk's pieces in order: bytes as they are, or an element's text to write (a string). */
  const pieces: (Uint8Array | string)[] = [];
  const lengths: number[] = [];
  const add = (piece: Uint8Array | string, length: number): number => {
    pieces.push(piece);
    lengths.push(length);
    return length;
  };
  return new ChunkStream(() => {
    if (index > count) return undefined;
    pieces.length = 0;
    lengths.length = 0;
    let size = 0;
    if (index === -1) {
      size += add(open, open.length);
      index = 0;
    }
    for (; index < count && size < LIST_CHUNK_BYTES; index++) {
      if (index > 0) size += add(COMMA, 1);
      const made = element(index);
      size += made instanceof Uint8Array ? add(made, made.length) : add(made.text, made.length);
    }
    if (index === count) {
      size += add(CLOSE, CLOSE.length);
      index++;
    }
    const chunk = Buffer.allocUnsafe(size);
    let offset = 0;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (typeof piece === 'string') offset += chunk.write(piece, offset, lengths[i]!, 'utf8');
      else {
        chunk.set(piece, offset);
        offset += piece.length;
      }
    }
    pieces.length = 0;
    return chunk;
  }, onEnd);
}

/** The JSON of a list of shared items, in chunks (jsonArrayStream), their encodings kept within the budget. */
export function jsonListStream(list: ListObject, onEnd?: (bytes: number) => void): Readable {
  const { head, objects, strip } = sourceOf(list);
  return jsonArrayStream(jsonUpToArray(head, 'items'), objects.length, (index) => jsonItem(objects[index]!, strip), onEnd);
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** How long the sizing pass encodes before letting other work run. */
const SIZING_SLICE_MS = 5;

/**
 * The Protobuf of a list, in chunks: its length comes first, so each item is sized first (encoded
 * into a scratch buffer, in slices of a few milliseconds, not in one stretch that would hold up
 * every other request), then written: a chunk is one buffer of the size its items were found to
 * have, each item encoded into the scratch buffer again and copied there, or copied as kept
 * (within the shared budget). Its length in bytes comes with it, for Content-Length.
 */
export async function protobufListStream(list: ListObject): Promise<{ stream: Readable; length: number }> {
  // An item's message has no apiVersion and kind: a shared list's objects are written as they are.
  const { head: fields, objects: items } = sourceOf(list);
  const parts = listParts({ ...fields, items: [] });
  const sizes = new Uint32Array(items.length);
  let messageLength = parts.metadata.length;
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    let size = protobufEncodings.get(item)?.length;
    if (size === undefined) {
      const encoded = parts.encodeItem(item);
      protobufEncodings.keep(item, encoded);
      size = encoded.length;
    }
    sizes[i] = size;
    messageLength += size;
    if ((i & 63) === 63 && performance.now() - sliceStart > SIZING_SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  const head = parts.head(messageLength);
  let index = -1;
  const stream = new ChunkStream(() => {
    if (index > items.length) return undefined;
    let size = 0;
    const first = index === -1 ? index + 1 : index;
    let end = first;
    for (; end < items.length && size < LIST_CHUNK_BYTES; end++) size += sizes[end]!;
    if (index === -1) size += head.length + parts.metadata.length;
    if (end === items.length) size += parts.tail.length;
    const chunk = Buffer.allocUnsafe(size);
    let offset = 0;
    const put = (bytes: Uint8Array): void => {
      chunk.set(bytes, offset);
      offset += bytes.length;
    };
    if (index === -1) {
      put(head);
      put(parts.metadata);
    }
    for (let i = first; i < end; i++) {
      const item = items[i]!;
      const bytes = protobufEncodings.get(item) ?? parts.encodeItem(item);
      // Sized before, and shared items never change: a difference would make the length a lie.
      if (bytes.length !== sizes[i]) throw new Error('list items changed while the list was written');
      put(bytes);
    }
    if (end === items.length) put(parts.tail);
    index = end === items.length ? items.length + 1 : end;
    return chunk;
  });
  return { stream, length: head.length + messageLength + parts.tail.length };
}
