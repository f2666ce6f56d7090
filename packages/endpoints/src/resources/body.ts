// Request bodies of create and update: size limit, media type, JSON parsing, duplicate keys.
import {
  MAX_NESTING_DEPTH,
  MAX_OBJECT_BYTES,
  depthExceededMessage,
  exceededJsonLimit,
  newBadRequest,
  newRequestEntityTooLarge,
  newUnsupportedMediaType,
} from '@plat/apimachinery';
import type { RequestContext } from '@plat/filters';
import { decodeJson, JsonDecodeError } from './json-scan.js';
import { parseYaml } from './yaml-body.js';
import { ProtobufError, decodeObject } from '@plat/protobuf';

/** Upstream's limit on a request body (3 MiB). */
export const MAX_BODY_BYTES = MAX_OBJECT_BYTES;
const ACCEPTED = ['application/json', 'application/yaml'];

export interface DecodedBody {
  value: unknown;
  /** Paths of keys given twice in one object. */
  duplicates: string[];
}

/**
 * How far past the limit an oversized body is read (and dropped) before the 413. A client still
 * sending when its connection closes gets the close (a reset, EPIPE) instead of the answer, as a
 * Node client reliably does; read to its end, the body leaves the connection whole and the 413
 * arrives. Beyond this the 413 goes at once and the connection is dropped.
 */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The request's body, at most `limit` bytes (413 beyond: see DISCARD_MAX_BYTES). Read through the
 * stream's events: an async iterator over the request cost a create 2% of its CPU.
 */
export function readBody(ctx: RequestContext, limit = MAX_BODY_BYTES, discardMax = DISCARD_MAX_BYTES): Promise<Buffer> {
  const tooLarge = () => newRequestEntityTooLarge(`limit is ${limit}`);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit + discardMax) return Promise.reject(tooLarge());
  const req = ctx.req;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error): void => {
      req.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (error) return reject(error);
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      ctx.state.audit?.noteRequestBody(body, mediaType(ctx));
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Past the limit: dropped as it comes, and answered at its end.
      chunks.length = 0;
      if (size > limit + discardMax) {
        finish(tooLarge());
        req.destroy();
      }
    };
    const onEnd = (): void => finish(size > limit ? tooLarge() : undefined);
    // Closed before its end: the client went away (the error filtered from the log as such).
    const onClose = (): void => finish(Object.assign(new Error('the request closed before its body ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', onData).on('end', onEnd).on('error', finish).on('close', onClose);
  });
}

/** The media type of the body, without parameters, lower-cased. */
export function mediaType(ctx: RequestContext): string {
  return (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
}

export interface ProtobufBody {
  /** The resource's Protobuf media type. */
  mediaType: string;
  group: string;
  version: string;
  kind: string;
}

/** A create or update body: JSON, YAML, or Protobuf where the resource has that form. */
export async function decodeBody(ctx: RequestContext, protobuf?: ProtobufBody): Promise<DecodedBody> {
  const type = mediaType(ctx) || 'application/json';
  const accepted = protobuf ? [...ACCEPTED, protobuf.mediaType] : ACCEPTED;
  if (!accepted.includes(type)) throw newUnsupportedMediaType([...accepted]);
  if (protobuf && type === protobuf.mediaType) {
    const bytes = await readBody(ctx);
    let value: unknown;
    try {
      value = decodeObject(bytes, { group: protobuf.group, version: protobuf.version, kind: protobuf.kind });
    } catch (error) {
      if (error instanceof ProtobufError) throw newBadRequest(`the Protobuf body could not be decoded: ${error.message}`);
      throw error;
    }
    // A Protobuf body nests no deeper than a JSON one may (every step after decoding recurses):
    // JSON texts inside it (FieldsV1, a schema's default) and JSONSchemaProps nest as they please.
    // Its size is the body's own, already bounded.
    if (exceededJsonLimit(value, { depth: MAX_NESTING_DEPTH, bytes: Infinity }) === 'depth') {
      throw newBadRequest(`the Protobuf body could not be decoded: ${depthExceededMessage}`);
    }
    return { value, duplicates: [] };
  }
  const text = (await readBody(ctx)).toString('utf8');
  if (!text.trim()) {
    throw newBadRequest(`the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  }
  if (type === 'application/yaml') {
    const parsed = parseYaml(text);
    if (parsed.tooLarge) throw newRequestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`);
    if (parsed.error !== undefined) throw newBadRequest(`error converting YAML to JSON: ${parsed.error}`);
    return { value: parsed.value, duplicates: parsed.duplicates };
  }
  try {
    return decodeJson(text);
  } catch (error) {
    if (error instanceof JsonDecodeError) throw newBadRequest(`couldn't get version/kind; json parse error: ${error.message}`);
    throw error;
  }
}
