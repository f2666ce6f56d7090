// A list's Protobuf form in parts, for writing it as it is encoded rather than as one buffer: the
// envelope's head (which carries the length of what follows, so the items' sizes come first), the
// list's metadata, each item, and the envelope's tail. The parts joined are encodeObject's bytes.
import protobuf from 'protobufjs';
import { codecOf, requireString } from './codec.js';
import type { JsonObject } from './compile.js';
import { ProtobufError } from './errors.js';

const PREFIX = [0x6b, 0x38, 0x73, 0x00] as const;
/** Unknown's contentEncoding (3) and contentType (4), both empty, as encodeObject writes them. */
const TAIL: Uint8Array = new Uint8Array([(3 << 3) | 2, 0, (4 << 3) | 2, 0]);

export interface ListParts {
  /** The envelope up to the list message, given the message's length (`metadata` and every item's). */
  head(messageLength: number): Uint8Array;
  /** The list's fields before its items (its metadata). */
  readonly metadata: Uint8Array;
  /** One item as the list message's field 2 (tag, length, the item's message). */
  item(item: object): Uint8Array;
  /** Items in a row, as `item` writes each, in one buffer. */
  items(items: readonly object[]): Uint8Array;
  /**
   * `item(item)`'s bytes in the parts' own scratch buffer: valid only until the next `encodeItem` or
   * `itemLength`, to be copied where they go. No buffer is made per item.
   */
  encodeItem(item: object): Uint8Array;
  /** The length of `item(item)`, encoded into the scratch buffer (no buffer made per item). */
  itemLength(item: object): number;
  readonly tail: Uint8Array;
}

/**
 * The parts of a list object (apiVersion, kind `<Kind>List`, metadata, items): see ListParts.
 * Throws ProtobufError NotRegistered when the list's kind or its items' has no Protobuf form.
 */
export function listParts(list: { apiVersion?: unknown; kind?: unknown; metadata?: unknown; items: readonly object[] }): ListParts {
  const json = list as unknown as JsonObject;
  const apiVersion = requireString(json, 'apiVersion');
  const kind = requireString(json, 'kind');
  if (!kind.endsWith('List')) throw new ProtobufError('InvalidValue', `kind: ${kind} is not a list kind`);
  const listCodec = codecOf(apiVersion, kind);
  const itemCodec = codecOf(apiVersion, kind.slice(0, -'List'.length));
  // The list's own fields, with no items (a repeated field with none is not written).
  const withoutItems = protobuf.Writer.create();
  listCodec.encode({ ...json, items: [] }, withoutItems);
  const metadata = withoutItems.finish();
  const typeMeta = protobuf.Writer.create();
  typeMeta.uint32((1 << 3) | 2).string(apiVersion);
  typeMeta.uint32((2 << 3) | 2).string(kind);
  const typeMetaBytes = typeMeta.finish();
  const writeItem = (item: object, writer: protobuf.Writer): void => {
    writer.uint32((2 << 3) | 2).fork();
    try {
      itemCodec.encode(item as JsonObject, writer);
    } catch (err) {
      if (err instanceof ProtobufError) throw new ProtobufError(err.reason, `${kind}.items.${err.message}`, { cause: err });
      throw err;
    }
    writer.ldelim();
  };
  // protobufjs's writer grows its buffer by doubling from 128 bytes and copies it out at the end:
  // a writer per item would leave four small buffers behind each item, which share the pool's
  // slabs with the buffers kept (and hold them). One writer, reset each time, grows once.
  let scratch = protobuf.Writer.create();
  const encodeScratch = (item: object): Uint8Array => {
    // reset() goes back to the start only when no length is left open (after a failure one may be).
    scratch.reset();
    try {
      writeItem(item, scratch);
    } catch (err) {
      scratch = protobuf.Writer.create();
      throw err;
    }
    return scratch.finish(true);
  };
  return {
    head(messageLength) {
      const writer = protobuf.Writer.create();
      for (const byte of PREFIX) writer.uint32(byte);
      writer.uint32((1 << 3) | 2).bytes(typeMetaBytes);
      writer.uint32((2 << 3) | 2).uint32(messageLength);
      return writer.finish();
    },
    metadata,
    item(item) {
      const writer = protobuf.Writer.create();
      writeItem(item, writer);
      return writer.finish();
    },
    items(items) {
      const writer = protobuf.Writer.create();
      for (const item of items) writeItem(item, writer);
      return writer.finish();
    },
    encodeItem: encodeScratch,
    itemLength: (item) => encodeScratch(item).length,
    tail: TAIL,
  };
}
