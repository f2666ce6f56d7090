// /openapi/v2 (JSON and Protobuf) and /openapi/v3 (the index and one JSON document per group
// version), made from the catalog as it is when asked for (from parts kept across its changes), and served as kube-openapi's handlers serve them: the ETag is
// the JSON's SHA-512, If-None-Match answers 304, and a /openapi/v3 URL with ?hash= is immutable (a
// stale hash is redirected to the current one with 301).
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { newGenericServerResponse, newNotAcceptable } from '@plat/apimachinery';
import type { ResolvedResource } from '@plat/registry';
import type { Handler, RequestContext } from '@plat/filters';
import type { ResourceCatalog } from '../resources/catalog.js';
import { parseAccept } from '../resources/negotiation.js';
import { versionInfo } from '../version.js';
import { DocumentParts } from './document-parts.js';
import { groupVersionPath } from './names.js';

/** A document as sent: its bytes, their hash and when it was built. */
interface Published {
  body: Buffer;
  contentType: string;
  /** Only for /openapi/v2, which upstream serves through a gzip handler: compressed when first asked for, off the event loop. */
  gzipped?: () => Promise<Buffer>;
  /** Upper-case hex SHA-512 of the JSON form, unquoted (the ?hash= value; the Protobuf form shares it). */
  hash: string;
  lastModified: Date;
}

const gzipAsync = promisify(gzip);

/** Upstream's computeETag: SHA-512 of the JSON, in upper-case hex. */
const hashOf = (body: Buffer): string => createHash('sha512').update(body).digest('hex').toUpperCase();

/** The gzip form of `body`, made once, on the thread pool. */
function lazyGzip(body: Buffer): () => Promise<Buffer> {
  let gzipped: Promise<Buffer> | undefined;
  return () => (gzipped ??= gzipAsync(body));
}

function publish(body: Buffer, builtAt: Date, gzip = false): Published {
  return { body, contentType: 'application/json', hash: hashOf(body), lastModified: builtAt, ...(gzip && { gzipped: lazyGzip(body) }) };
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
/** Stands for the v2 Protobuf form in negotiation, before it is made. */
const PROTOBUF_FORM: Published = { body: Buffer.alloc(0), contentType: '', hash: '', lastModified: new Date(0) };

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

async function serve(ctx: RequestContext, published: Published): Promise<void> {
  ctx.set('ETag', `"${published.hash}"`);
  ctx.set('Last-Modified', published.lastModified.toUTCString());
  if (notModified(ctx, published)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  if (published.gzipped && /\bgzip\b/.test(ctx.get('accept-encoding'))) {
    ctx.body = await published.gzipped();
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

/** The documents of one state of the catalog, each made when first asked for. */
interface Documents {
  generation: number;
  builtAt: Date;
  v2(): Promise<{ json: Published; protobuf: () => Promise<Published> }>;
  v3(): Promise<{ documents: Map<string, Published>; index: Published }>;
}

const hashedUrl = (key: string, published: Published): string => `/openapi/v3/${key}?hash=${published.hash}`;

/** Calls `make` once, when first asked for, and keeps what it gave. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * The handlers of the OpenAPI documents. They are made when first asked for after the catalog
 * changed (custom resources come and go), not at every change: installing many definitions at
 * once makes them once. They are put together from parts kept across changes (document-parts.ts),
 * so a change costs what changed; each form (JSON, Protobuf, gzip, the v3 documents) is made only
 * when it is asked for.
 */
export class OpenAPI {
  private documents: Documents | undefined;
  private readonly parts: DocumentParts;
  /** Each v3 document as published, by its bytes: while they are the same, so are its hash and its time. */
  private readonly v3Published = new WeakMap<Buffer, Published>();

  constructor(
    private readonly catalog: ResourceCatalog,
    domain: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.parts = new DocumentParts({ domain, version: versionInfo().gitVersion });
  }

  /** The served resources, in the catalog's order. */
  private resources(): ResolvedResource[] {
    const resources: ResolvedResource[] = [];
    for (const [, versions] of this.catalog.groups()) {
      for (const served of versions.values()) resources.push(...served.map(({ resolved }) => resolved));
    }
    return resources;
  }

  private current(): Documents {
    const generation = this.catalog.generation;
    if (this.documents?.generation === generation) return this.documents;
    const builtAt = this.now();
    const resources = this.resources();
    const v2 = once(async () => {
      const swagger = await this.parts.swagger(resources);
      const json = publish(swagger.json, builtAt, true);
      const protobuf = once(async (): Promise<Published> => {
        const body = await swagger.protobuf();
        return { body, contentType: V2_PROTOBUF_CONTENT_TYPE, gzipped: lazyGzip(body), hash: json.hash, lastModified: builtAt };
      });
      return { json, protobuf };
    });
    const v3 = once(async () => {
      const bodies = await this.parts.groupVersionDocuments(resources);
      const documents = new Map<string, Published>();
      for (const [key, body] of bodies) {
        // A group version whose document did not change (the same bytes) keeps its hash and its time.
        let published = this.v3Published.get(body);
        if (!published) {
          published = publish(body, builtAt);
          this.v3Published.set(body, published);
        }
        documents.set(key, published);
      }
      const keys = [...documents.keys()].sort();
      const paths = Object.fromEntries(keys.map((key) => [key, { serverRelativeURL: hashedUrl(key, documents.get(key)!) }]));
      return { documents, index: publish(Buffer.from(JSON.stringify({ paths })), builtAt) };
    });
    this.documents = { generation, builtAt, v2, v3 };
    return this.documents;
  }

  /** Handlers by exact path. */
  handlers(): Map<string, Handler> {
    const handlers = new Map<string, Handler>();
    handlers.set('/openapi/v2', async (ctx) => {
      ctx.append('Vary', 'Accept');
      const { json, protobuf } = await this.current().v2();
      // Negotiated first on what the client accepts: the Protobuf form is made only when chosen.
      const published = negotiate(ctx, json, PROTOBUF_FORM);
      if (!published) throw newNotAcceptable(['application/json', V2_PROTOBUF_TYPES[0]!]);
      await serve(ctx, published === PROTOBUF_FORM ? await protobuf() : published);
    });
    handlers.set('/openapi/v3', async (ctx) => serve(ctx, (await this.current().v3()).index));
    return handlers;
  }

  /** The handler of one group version's document (/openapi/v3/apis/{group}/{version}), if it is served. */
  handlerFor(path: string): Handler | undefined {
    if (!path.startsWith('/openapi/v3/')) return undefined;
    const key = path.slice('/openapi/v3/'.length);
    if (!this.resources().some((resolved) => groupVersionPath(resolved.group, resolved.version) === key)) return undefined;
    return async (ctx) => {
      // Looked up again: the catalog may have changed since the path was resolved.
      const published = (await this.current().v3()).documents.get(key);
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
      await serve(ctx, published);
    };
  }
}
