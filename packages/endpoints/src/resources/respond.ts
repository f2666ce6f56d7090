// Writing API responses in the negotiated representation: JSON (indented with ?pretty), YAML, and
// gzip for large get and list responses (APIResponseCompression). Large lists of shared items go
// out in chunks as the client takes them (list-stream.ts).
import { pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGzip, gzip } from 'node:zlib';
import { stringify } from 'yaml';
import { encodeObject } from '@plat/protobuf';
import type { RequestContext } from '@plat/filters';
import type { Representation } from './negotiation.js';
import { listObjects } from '@plat/registry';
import { STREAMED_LIST_MIN_ITEMS, jsonListBuffer, jsonListStream, listLength, protobufListStream, type ListObject } from './list-stream.js';

const gzipAsync = promisify(gzip);
/** Upstream compresses only responses at least this large. */
const COMPRESSION_THRESHOLD_BYTES = 128 * 1024;

export interface WriteOptions {
  representation?: Representation;
  /** Compress when the client accepts gzip and the body is large (get and list). */
  compress?: boolean;
  /** The media type of a Table or metadata-only body, echoed as upstream does. */
  contentType?: string;
  /**
   * The body is a list whose items are never changed and recur from list to list (the registry's
   * list items, see its list-item.ts): each item's encoding is kept beside it and reused (within a
   * budget, item-encodings.ts), and a large list is written in chunks as the client reads it.
   */
  sharedItems?: boolean;
  /** Told the size of a list's JSON once it is known (what its items weigh, for the list budget). */
  onListJsonSize?: (bytes: number, items: number) => void;
}

// A shared list (the registry's list-item.ts) is told by its objects: reading its `items` would make them.
const isList = (object: unknown): object is ListObject =>
  typeof object === 'object' && object !== null && (listObjects(object) !== undefined || Array.isArray((object as { items?: unknown }).items));

export const isPretty = (ctx: RequestContext): boolean => ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(ctx.query.pretty as string);

export function encodeBody(
  ctx: RequestContext,
  object: unknown,
  representation: Representation = { type: 'json' },
  sharedItems = false,
): { body: string | Buffer; contentType: string } {
  if (representation.type === 'yaml') return { body: stringify(object), contentType: 'application/yaml' };
  if (representation.type === 'protobuf') return { body: Buffer.from(encodeObject(object as object)), contentType: representation.mediaType };
  if (isPretty(ctx)) return { body: `${JSON.stringify(object, null, 2)}\n`, contentType: 'application/json' };
  return { body: sharedItems && isList(object) ? jsonListBuffer(object as ListObject) : JSON.stringify(object), contentType: 'application/json' };
}

const acceptsGzip = (ctx: RequestContext): boolean => /\bgzip\b/.test(ctx.get('accept-encoding'));

/**
 * A large list of shared items in JSON or Protobuf, written in chunks as the socket drains (and
 * gzipped as it goes where asked); false for anything else, which is written whole.
 */
async function writeListInChunks(ctx: RequestContext, code: number, object: unknown, options: WriteOptions): Promise<boolean> {
  const representation = options.representation ?? { type: 'json' };
  if (!options.sharedItems || !isList(object) || listLength(object) < STREAMED_LIST_MIN_ITEMS) return false;
  if (!(representation.type === 'json' && !isPretty(ctx)) && representation.type !== 'protobuf') return false;
  if (representation.type === 'protobuf') {
    const { stream, length } = await protobufListStream(object as ListObject);
    writeChunks(ctx, code, stream, { ...options, contentType: options.contentType ?? representation.mediaType, length });
  } else {
    const stream = jsonListStream(object, (bytes) => options.onListJsonSize?.(bytes, listLength(object)));
    writeChunks(ctx, code, stream, { ...options, contentType: options.contentType ?? 'application/json' });
  }
  return true;
}

/**
 * A body made as the client reads it (list-stream.ts), gzipped as it goes where asked and the
 * client accepts it. `length`, where known, is the uncompressed body's.
 */
export function writeChunks(ctx: RequestContext, code: number, stream: Readable, options: { contentType: string; compress?: boolean; length?: number }): void {
  ctx.status = code;
  ctx.set('Content-Type', options.contentType);
  // Once the head is out a failure can only cut the response short.
  stream.once('error', () => ctx.res.destroy());
  if (options.compress && acceptsGzip(ctx)) {
    const gzipped = createGzip();
    // The list's stream ends with the gzip stream, which koa ends with the response.
    pipeline(stream, gzipped, () => {});
    ctx.body = gzipped;
    ctx.set('Content-Encoding', 'gzip');
    ctx.set('Vary', 'Accept-Encoding');
  } else {
    ctx.body = stream;
    if (options.length !== undefined) ctx.length = options.length;
  }
}

export async function writeObject(ctx: RequestContext, code: number, object: unknown, options: WriteOptions = {}): Promise<void> {
  ctx.state.audit?.noteResponseObject(object);
  if (await writeListInChunks(ctx, code, object, options)) return;
  const { body, contentType } = encodeBody(ctx, object, options.representation, options.sharedItems);
  if (options.onListJsonSize && isList(object) && contentType === 'application/json') options.onListJsonSize(Buffer.byteLength(body), listLength(object));
  ctx.status = code;
  // Before the body: koa guesses a type for a body without one, through a MIME lookup.
  ctx.set('Content-Type', options.contentType ?? contentType);
  if (options.compress && body.length >= COMPRESSION_THRESHOLD_BYTES && acceptsGzip(ctx)) {
    ctx.body = await gzipAsync(body);
    ctx.set('Content-Encoding', 'gzip');
    ctx.set('Vary', 'Accept-Encoding');
  } else {
    ctx.body = body;
  }
}

/** One `Warning: 299 - "..."` header per message (RFC 7234 5.5, as upstream's warning recorder). */
export function addWarnings(ctx: RequestContext, messages: readonly string[]): void {
  for (const message of messages) ctx.append('Warning', `299 - ${JSON.stringify(message)}`);
}

/**
 * A store's `warn`: each warning once per request, however often a write is retried on a conflict
 * (upstream's recorder drops repeats too).
 */
export function warningSink(ctx: RequestContext): (message: string) => void {
  const sent = new Set<string>();
  return (message) => {
    if (sent.has(message)) return;
    sent.add(message);
    addWarnings(ctx, [message]);
  };
}

/**
 * Admission's audit annotations: added to the request's audit event (when auditing is on), the
 * first value of a key kept, as upstream's AddAnnotation refuses to change one.
 */
export function auditAnnotationSink(ctx: RequestContext): (key: string, value: string) => void {
  return (key, value) => {
    const annotations = ctx.state.auditAnnotations;
    if (annotations && !Object.hasOwn(annotations, key)) annotations[key] = value;
  };
}
