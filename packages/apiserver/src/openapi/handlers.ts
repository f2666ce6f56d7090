// /openapi/v2 (JSON and Protobuf) and /openapi/v3 (the index and one JSON document per group
// version), built from the catalog as it is when asked for, and served as kube-openapi's handlers serve them: the ETag is
// the JSON's SHA-512, If-None-Match answers 304, and a /openapi/v3 URL with ?hash= is immutable (a
// stale hash is redirected to the current one with 301).
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { newGenericServerResponse, newNotAcceptable } from '@plat/apimachinery';
import type { ResolvedResource } from '@plat/registry';
import type { Handler, RequestContext } from '../context.js';
import type { ResourceCatalog } from '../resources/catalog.js';
import { parseAccept } from '../resources/negotiation.js';
import { versionInfo } from '../version.js';
import { buildOpenAPIDocuments } from './documents.js';
import { swaggerToProtobuf } from './protobuf-v2.js';

/** A document as sent: its bytes, their hash and when it was built. */
interface Published {
  body: Buffer;
  contentType: string;
  /** Only for /openapi/v2, which upstream serves through a gzip handler. */
  gzipped?: Buffer;
  /** Upper-case hex SHA-512 of the JSON form, unquoted (the ?hash= value; the Protobuf form shares it). */
  hash: string;
  lastModified: Date;
}

/** Upstream's computeETag: SHA-512 of the JSON, in upper-case hex. */
const hashOf = (body: Buffer): string => createHash('sha512').update(body).digest('hex').toUpperCase();

function publish(document: unknown, builtAt: Date, gzip = false): Published {
  const body = Buffer.from(JSON.stringify(document));
  return { body, contentType: 'application/json', hash: hashOf(body), lastModified: builtAt, ...(gzip && { gzipped: gzipSync(body) }) };
}

/** The media types of the v2 Protobuf form: the one clients send, and the newer spelling. */
const V2_PROTOBUF_TYPES = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
];
const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const JSON_RANGES = ['application/json', 'application/*', '*/*'];

/**
 * The first form the client accepts, in its order of preference, JSON first for a wildcard (as
 * kube-openapi); undefined when none is (406).
 */
function negotiate(ctx: RequestContext, json: Published, protobuf?: Published): Published | undefined {
  for (const range of parseAccept(ctx.get('accept'))) {
    if (JSON_RANGES.includes(range.type)) return json;
    if (protobuf && V2_PROTOBUF_TYPES.includes(range.type)) return protobuf;
  }
  return undefined;
}

/** Go's http.ServeContent preconditions for GET: If-None-Match (weak comparison), else If-Modified-Since. */
function notModified(ctx: RequestContext, published: Published): boolean {
  const ifNoneMatch = ctx.get('if-none-match');
  if (ifNoneMatch) {
    const etag = `"${published.hash}"`;
    return ifNoneMatch.split(',').some((tag) => {
      const trimmed = tag.trim();
      return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
    });
  }
  const since = Date.parse(ctx.get('if-modified-since'));
  return !Number.isNaN(since) && Math.floor(published.lastModified.getTime() / 1000) * 1000 <= since;
}

function serve(ctx: RequestContext, published: Published): void {
  ctx.set('ETag', `"${published.hash}"`);
  ctx.set('Last-Modified', published.lastModified.toUTCString());
  if (notModified(ctx, published)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  if (published.gzipped && /\bgzip\b/.test(ctx.get('accept-encoding'))) {
    ctx.body = published.gzipped;
    ctx.set('Content-Encoding', 'gzip');
    ctx.append('Vary', 'Accept-Encoding');
  } else {
    ctx.body = published.body;
  }
  // After the body: koa would otherwise type a Buffer as application/octet-stream.
  ctx.set('Content-Type', published.contentType);
}

/** A year from now, as upstream's Expires for a hashed URL (that is, never). */
function inOneYear(): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.toUTCString();
}

/** The documents of one state of the catalog. */
interface Documents {
  generation: number;
  v2: Published;
  v2Protobuf: Published;
  v3: Map<string, Published>;
  v3Index: Published;
}

const hashedUrl = (key: string, published: Published): string => `/openapi/v3/${key}?hash=${published.hash}`;

/**
 * The handlers of the OpenAPI documents. They are built when first asked for after the catalog
 * changed (custom resources come and go), not at every change: installing many definitions at
 * once builds them once.
 */
export class OpenAPI {
  private documents: Documents | undefined;

  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly domain: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private current(): Documents {
    const generation = this.catalog.generation;
    if (this.documents?.generation === generation) return this.documents;
    const builtAt = this.now();
    const resources: ResolvedResource[] = [];
    for (const [, versions] of this.catalog.groups()) {
      for (const served of versions.values()) resources.push(...served.map(({ resolved }) => resolved));
    }
    const documents = buildOpenAPIDocuments(resources, { domain: this.domain, version: versionInfo().gitVersion });
    const v2 = publish(documents.v2, builtAt, true);
    const protobuf = swaggerToProtobuf(documents.v2);
    const v2Protobuf = { body: protobuf, contentType: V2_PROTOBUF_CONTENT_TYPE, gzipped: gzipSync(protobuf), hash: v2.hash, lastModified: builtAt };
    const v3 = new Map<string, Published>();
    for (const [key, document] of documents.v3) {
      // A group version whose document did not change keeps its hash and its time.
      const body = Buffer.from(JSON.stringify(document));
      const before = this.documents?.v3.get(key);
      v3.set(key, before?.body.equals(body) ? before : { body, contentType: 'application/json', hash: hashOf(body), lastModified: builtAt });
    }
    const keys = [...v3.keys()].sort();
    const paths = Object.fromEntries(keys.map((key) => [key, { serverRelativeURL: hashedUrl(key, v3.get(key)!) }]));
    this.documents = { generation, v2, v2Protobuf, v3, v3Index: publish({ paths }, builtAt) };
    return this.documents;
  }

  /** Handlers by exact path. */
  handlers(): Map<string, Handler> {
    const handlers = new Map<string, Handler>();
    handlers.set('/openapi/v2', (ctx) => {
      ctx.append('Vary', 'Accept');
      const { v2, v2Protobuf } = this.current();
      const published = negotiate(ctx, v2, v2Protobuf);
      if (!published) throw newNotAcceptable(['application/json', V2_PROTOBUF_TYPES[0]!]);
      serve(ctx, published);
    });
    handlers.set('/openapi/v3', (ctx) => serve(ctx, this.current().v3Index));
    return handlers;
  }

  /** The handler of one group version's document (/openapi/v3/apis/{group}/{version}), if it is served. */
  handlerFor(path: string): Handler | undefined {
    if (!path.startsWith('/openapi/v3/')) return undefined;
    const key = path.slice('/openapi/v3/'.length);
    if (!this.current().v3.has(key)) return undefined;
    return (ctx) => {
      // Looked up again: the catalog may have changed since the path was resolved.
      const published = this.current().v3.get(key);
      if (!published) throw newGenericServerResponse(404);
      ctx.set('Vary', 'Accept');
      // The Protobuf form of the v3 documents is not served: kubectl reads the JSON form.
      if (!negotiate(ctx, published)) throw newNotAcceptable(['application/json']);
      const hash = new URLSearchParams(ctx.querystring).get('hash');
      if (hash) {
        if (hash !== published.hash) {
          // As Go's http.Redirect after the Content-Type is set: a Location and no body.
          ctx.status = 301;
          ctx.body = '';
          ctx.set('Location', hashedUrl(key, published));
          ctx.set('ETag', `"${published.hash}"`);
          ctx.set('Content-Type', 'application/json');
          return;
        }
        ctx.set('Cache-Control', 'public, immutable');
        ctx.set('Expires', inOneYear());
      }
      serve(ctx, published);
    };
  }
}
