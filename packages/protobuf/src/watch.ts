// The Protobuf watch stream, as upstream serves it: each event is one frame, a 4-byte big-endian
// length and then a meta/v1 WatchEvent. The WatchEvent itself is written bare: upstream's stream
// serializer is the raw one (no prefix, no Unknown). Its object is a RawExtension whose raw is the
// object's complete Protobuf form, prefix and Unknown included (upstream's embedded encoder).
import protobuf from 'protobufjs';
import { decodeObject, encodeObject, readerOf } from './codec.js';
import type { JsonObject } from './compile.js';
import { ProtobufError } from './errors.js';

export interface WatchEventJson {
  /** ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
  type: string;
  object: JsonObject;
}

/** One frame of a Protobuf watch stream, for an event whose object is in its JSON form. */
export function encodeWatchEvent(type: string, object: object): Uint8Array {
  const writer = protobuf.Writer.create();
  // Room for the length, set once the event is written.
  writer.fixed32(0);
  // WatchEvent: type 1, object 2 (RawExtension: raw 1).
  writer.uint32((1 << 3) | 2).string(type);
  writer.uint32((2 << 3) | 2).fork();
  writer.uint32((1 << 3) | 2).bytes(encodeObject(object));
  writer.ldelim();
  const frame = writer.finish();
  new DataView(frame.buffer, frame.byteOffset, frame.byteLength).setUint32(0, frame.length - 4, false);
  return frame;
}

/** Every event in a buffer of whole frames. Throws ProtobufError Malformed on a partial frame. */
export function decodeWatchFrames(buffer: Uint8Array): WatchEventJson[] {
  const events: WatchEventJson[] = [];
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let pos = 0;
  while (pos < buffer.length) {
    if (buffer.length - pos < 4) throw new ProtobufError('Malformed', 'partial frame length at the end of the stream');
    const length = view.getUint32(pos, false);
    pos += 4;
    if (buffer.length - pos < length) {
      throw new ProtobufError('Malformed', `partial frame: ${length} bytes announced, ${buffer.length - pos} left`);
    }
    const { type, raw } = readWatchEvent(buffer.subarray(pos, pos + length));
    pos += length;
    if (!raw || raw.length === 0) throw new ProtobufError('Malformed', `${type} event without an object`);
    events.push({ type, object: decodeObject(raw) });
  }
  return events;
}

function readWatchEvent(bytes: Uint8Array): { type: string; raw: Uint8Array | undefined } {
  const r = readerOf(bytes);
  let type = '';
  let raw: Uint8Array | undefined;
  try {
    while (r.pos < r.len) {
      const t = r.tag();
      if (t === 10) type = r.string();
      else if (t === 18) {
        const length = r.uint32();
        const end = r.pos + length;
        while (r.pos < end) {
          const u = r.tag();
          if (u === 10) raw = r.bytes();
          else r.skipType(u & 7, 0, u >>> 3);
        }
        if (r.pos !== end) throw new Error('object runs past its end');
      } else r.skipType(t & 7, 0, t >>> 3);
    }
  } catch (cause) {
    throw new ProtobufError('Malformed', `cannot decode WatchEvent: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  return { type, raw };
}
