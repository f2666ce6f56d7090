// Writing API responses in the negotiated representation: JSON (indented with ?pretty), YAML, and
// gzip for large get and list responses (APIResponseCompression).
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { stringify } from 'yaml';
import { encodeObject } from '@plat/protobuf';
import type { RequestContext } from '../context.js';
import type { Representation } from './negotiation.js';

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
   * list items, see its list-item.ts): each item's JSON is kept beside it and reused.
   */
  sharedItems?: boolean;
}

/** Per shared list item, its JSON in UTF-8. */
const itemJson = new WeakMap<object, Buffer>();

/**
 * A list's JSON, as JSON.stringify writes it (items last, as the registry builds lists), from the
 * encoding kept for each item: a list of 10,000 objects from the watch cache spent 30-40 ms in
 * stringify and 10-20 ms more turning the string into bytes; copying the kept bytes takes a few.
 */
function listJson(list: { items: readonly object[] }): Buffer {
  const { items, ...rest } = list;
  const head = JSON.stringify(rest);
  const open = Buffer.from(`${head.length > 2 ? `${head.slice(0, -1)},` : '{'}"items":[`);
  const parts = new Array<Buffer>(items.length);
  let size = open.length + Math.max(0, items.length - 1) + 2;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    let json = itemJson.get(item);
    if (json === undefined) {
      json = Buffer.from(JSON.stringify(item));
      itemJson.set(item, json);
    }
    parts[i] = json;
    size += json.length;
  }
  const body = Buffer.allocUnsafe(size);
  body.set(open, 0);
  let offset = open.length;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) body[offset++] = 0x2c; // ,
    body.set(parts[i]!, offset);
    offset += parts[i]!.length;
  }
  body[offset++] = 0x5d; // ]
  body[offset++] = 0x7d; // }
  return body;
}

const isList = (object: unknown): object is { items: readonly object[] } =>
  typeof object === 'object' && object !== null && Array.isArray((object as { items?: unknown }).items);

const isPretty = (ctx: RequestContext): boolean => ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(ctx.query.pretty as string);

export function encodeBody(
  ctx: RequestContext,
  object: unknown,
  representation: Representation = { type: 'json' },
  sharedItems = false,
): { body: string | Buffer; contentType: string } {
  if (representation.type === 'yaml') return { body: stringify(object), contentType: 'application/yaml' };
  if (representation.type === 'protobuf') return { body: Buffer.from(encodeObject(object as object)), contentType: representation.mediaType };
  if (isPretty(ctx)) return { body: `${JSON.stringify(object, null, 2)}\n`, contentType: 'application/json' };
  return { body: sharedItems && isList(object) ? listJson(object) : JSON.stringify(object), contentType: 'application/json' };
}

export async function writeObject(ctx: RequestContext, code: number, object: unknown, options: WriteOptions = {}): Promise<void> {
  ctx.state.audit?.noteResponseObject(object);
  const { body, contentType } = encodeBody(ctx, object, options.representation, options.sharedItems);
  ctx.status = code;
  // Before the body: koa guesses a type for a body without one, through a MIME lookup.
  ctx.set('Content-Type', options.contentType ?? contentType);
  if (options.compress && body.length >= COMPRESSION_THRESHOLD_BYTES && /\bgzip\b/.test(ctx.get('accept-encoding'))) {
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
