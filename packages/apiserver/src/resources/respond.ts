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
}

const isPretty = (ctx: RequestContext): boolean => ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(ctx.query.pretty as string);

export function encodeBody(
  ctx: RequestContext,
  object: unknown,
  representation: Representation = { type: 'json' },
): { body: string | Buffer; contentType: string } {
  if (representation.type === 'yaml') return { body: stringify(object), contentType: 'application/yaml' };
  if (representation.type === 'protobuf') return { body: Buffer.from(encodeObject(object as object)), contentType: representation.mediaType };
  const body = isPretty(ctx) ? `${JSON.stringify(object, null, 2)}\n` : JSON.stringify(object);
  return { body, contentType: 'application/json' };
}

export async function writeObject(ctx: RequestContext, code: number, object: unknown, options: WriteOptions = {}): Promise<void> {
  const { body, contentType } = encodeBody(ctx, object, options.representation);
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
