// HTTPS requests to one API server: JSON (or the codec's form) in and out, bearer-token or
// certificate authentication, every request a stream of one HTTP/2 connection (http2-connection.ts;
// keep-alive HTTP/1.1 connections where the server speaks only that), the client's own rate limit,
// an answer that asks to come back later (Retry-After) followed as client-go follows it, and every
// other answer that is not 2xx turned into a StatusError.
import { Agent, request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Session } from 'node:http2';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Http2Connection } from './http2-connection.js';
import { StatusError, newGenericServerResponse, type Status } from '@plat/apimachinery';
import type { ClientConfig, ObjectCodec } from './kubeconfig.js';
import { TokenBucket } from './rate-limiter.js';

export type QueryValue = string | number | boolean | undefined;

export interface RestRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** The path below the server's URL, such as /api/v1/namespaces. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Abandon the request after this long (a network error); default 30 s, 0 for none. */
  timeoutMs?: number;
  contentType?: string;
}

/** The request failed before an HTTP answer arrived (refused, reset, timed out). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Answers asking to come back later that are followed before one is returned (client-go's maxRetries). */
const MAX_RETRIES = 10;

/**
 * How long the server asks the client to wait before sending the request again: a 429 or a 5xx with
 * Retry-After in whole seconds (client-go's checkWait); undefined for any other answer.
 */
export function retryAfterMs(res: { statusCode?: number; headers: IncomingHttpHeaders }): number | undefined {
  const code = res.statusCode ?? 0;
  if (code !== 429 && code < 500) return undefined;
  const header = res.headers['retry-after'];
  if (typeof header !== 'string' || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
}

/** A response whichever the protocol: its status, headers and body. */
export interface RestResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
  /** Whether the server ended the body (rather than the connection breaking off). */
  readonly complete: boolean;
  /** Which protocol carried it: '2' or '1.1'. */
  readonly httpVersion: string;
  /** Abandons the response (and its stream or connection). */
  destroy(): void;
}

export function queryString(query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status' && typeof (value as { code?: unknown }).code === 'number';
}

/** The error for a response that is not 2xx: its Status body, or a generic one for its code. */
export function responseError(code: number, body: string | Uint8Array, codec?: ObjectCodec): StatusError {
  try {
    const parsed: unknown =
      typeof body === 'string' ? JSON.parse(body) : codec ? codec.decode(body) : JSON.parse(Buffer.from(body).toString('utf8'));
    if (isStatus(parsed)) return new StatusError(parsed);
  } catch {
    // Not JSON: a proxy's page, say.
  }
  return newGenericServerResponse(code);
}

// client-go's defaults where rest.Config leaves QPS and Burst zero.
const DEFAULT_QPS = 5;
const DEFAULT_BURST = 10;

function rateLimiterOf(config: ClientConfig): TokenBucket | undefined {
  if (config.qps === undefined || config.qps < 0) return undefined;
  return new TokenBucket({ qps: config.qps || DEFAULT_QPS, burst: config.burst || DEFAULT_BURST });
}

interface EncodedBody {
  bytes: Buffer;
  contentType: string;
}

export class RestClient {
  private readonly url: URL;
  private readonly agent: Agent;
  private readonly limiter: TokenBucket | undefined;
  private readonly http2: Http2Connection | undefined;

  constructor(readonly config: ClientConfig) {
    this.limiter = rateLimiterOf(config);
    this.url = new URL(config.server);
    if (this.url.protocol !== 'https:') throw new Error(`server ${config.server}: only https is supported`);
    const tls = {
      ...(config.ca && { ca: config.ca }),
      ...(config.cert && { cert: config.cert }),
      ...(config.key && { key: config.key }),
      rejectUnauthorized: !config.insecureSkipTLSVerify,
      ...(config.tlsServerName && { servername: config.tlsServerName }),
    };
    this.agent = new Agent({ keepAlive: true, maxSockets: 64, ...tls });
    // HTTP/2 unless turned off, as client-go (which turns it off with DISABLE_HTTP2).
    this.http2 = config.http2 === false ? undefined : new Http2Connection(this.url, tls);
  }

  private headers(headers: Record<string, string>): Record<string, string> {
    return {
      accept: 'application/json',
      'user-agent': this.config.userAgent ?? 'plat-client',
      ...(this.config.token && { authorization: `Bearer ${this.config.token}` }),
      ...headers,
    };
  }

  private path(path: string, query: Record<string, QueryValue> | undefined): string {
    const prefix = this.url.pathname.replace(/\/$/, '');
    return `${prefix}${path}${queryString(query)}`;
  }

  private options(method: string, path: string, query: Record<string, QueryValue> | undefined, headers: Record<string, string>): HttpsRequestOptions {
    return {
      protocol: 'https:',
      hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.url.port || 443,
      method,
      path: this.path(path, query),
      agent: this.agent,
      headers: this.headers(headers),
    };
  }

  /**
   * The body in the codec's form where it carries the object's kind and the request names no
   * content type of its own (a patch does), else JSON.
   */
  private encodeBody(request: RestRequest): EncodedBody | undefined {
    if (request.body === undefined) return undefined;
    const codec = this.config.codec;
    const object = request.body as { apiVersion?: unknown; kind?: unknown };
    if (codec && !request.contentType && typeof object.apiVersion === 'string' && typeof object.kind === 'string' && codec.carries(object.apiVersion, object.kind)) {
      return { bytes: Buffer.from(codec.encode(request.body as object)), contentType: codec.mediaType };
    }
    return { bytes: Buffer.from(JSON.stringify(request.body)), contentType: request.contentType ?? 'application/json' };
  }

  /**
   * Sends a request and resolves with the response, whatever its code, the body not read; an answer
   * asking to come back later is discarded and the request sent again after the wait it names (and
   * a token of the rate limit), up to MAX_RETRIES times.
   */
  private async send(request: RestRequest, headers: Record<string, string>, stream: boolean): Promise<RestResponse> {
    for (let retries = 0; ; retries++) {
      const res = await this.sendOnce(request, headers, stream);
      const waitMs = retries < MAX_RETRIES ? retryAfterMs(res) : undefined;
      if (waitMs === undefined) return res;
      res.body.resume();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private async sendOnce(request: RestRequest, headers: Record<string, string>, stream: boolean): Promise<RestResponse> {
    const method = request.method ?? 'GET';
    const body = this.encodeBody(request);
    const timeoutMs = request.timeoutMs ?? (stream ? 0 : DEFAULT_TIMEOUT_MS);
    // A watch is one request however long it lasts: it takes one token, as client-go's does.
    await this.limiter?.take();
    const allHeaders = {
      ...headers,
      ...(body !== undefined && { 'content-type': body.contentType, 'content-length': String(body.bytes.length) }),
    };
    let session: ClientHttp2Session | undefined;
    try {
      session = await this.http2?.get();
    } catch (error) {
      throw new NetworkError(`${method} ${request.path}: ${(error as Error).message}`, { cause: error });
    }
    if (session) return this.sendHttp2(session, method, request, allHeaders, body?.bytes, timeoutMs, stream);
    return this.sendHttp1(method, request, allHeaders, body?.bytes, timeoutMs, stream);
  }

  private sendHttp2(
    session: ClientHttp2Session,
    method: string,
    request: RestRequest,
    headers: Record<string, string>,
    body: Buffer | undefined,
    timeoutMs: number,
    stream: boolean,
  ): Promise<RestResponse> {
    return new Promise((resolve, reject) => {
      const req = session.request({ ':method': method, ':path': this.path(request.path, request.query), ...this.headers(headers) }, { endStream: body === undefined });
      this.http2!.track(req);
      let ended = false;
      req.once('end', () => (ended = true));
      const fail = (error: Error): void => reject(error instanceof NetworkError ? error : new NetworkError(`${method} ${request.path}: ${error.message}`, { cause: error }));
      req.once('error', fail);
      // A stream the connection took down with it (reset, cut) closes without an error.
      const closedEarly = (): void => fail(new Error(`the stream closed before an answer (HTTP/2 code ${req.rstCode ?? 'none'})`));
      req.once('close', closedEarly);
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new NetworkError(`${method} ${request.path}: no answer within ${timeoutMs} ms`)));
      req.once('response', (responseHeaders) => {
        req.off('close', closedEarly);
        // A stream outlives the request's deadline; a plain request's deadline covers its body too.
        if (stream) req.setTimeout(0);
        req.off('error', fail);
        // Read errors reach the body's reader.
        req.on('error', () => {});
        resolve({
          statusCode: Number(responseHeaders[':status']),
          headers: responseHeaders,
          body: req,
          get complete() {
            return ended;
          },
          httpVersion: '2',
          destroy: () => req.destroy(),
        });
      });
      if (body !== undefined) req.end(body);
    });
  }

  private sendHttp1(method: string, request: RestRequest, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number, stream: boolean): Promise<RestResponse> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(this.options(method, request.path, request.query, headers), (res) => {
        // A stream outlives the request's deadline; a plain request's deadline covers its body too.
        if (stream) req.setTimeout(0);
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          body: res,
          get complete() {
            return res.complete;
          },
          httpVersion: res.httpVersion,
          destroy: () => res.destroy(),
        });
      });
      if (timeoutMs > 0) {
        req.setTimeout(timeoutMs, () => req.destroy(new NetworkError(`${method} ${request.path}: no answer within ${timeoutMs} ms`)));
      }
      req.on('error', (error) => reject(error instanceof NetworkError ? error : new NetworkError(`${method} ${request.path}: ${error.message}`, { cause: error })));
      req.end(body);
    });
  }

  /** The request's JSON answer; a StatusError for a non-2xx code, a NetworkError when there is none. */
  async request<T>(request: RestRequest): Promise<T> {
    const codec = this.config.codec;
    const headers: Record<string, string> = { 'accept-encoding': 'gzip' };
    if (codec) headers.accept = `${codec.mediaType}, application/json`;
    const res = await this.send(request, headers, false);
    const body = await readBody(res).catch((error: Error) => {
      throw new NetworkError(`${request.method ?? 'GET'} ${request.path}: ${error.message}`, { cause: error });
    });
    const code = res.statusCode;
    const inCodec = codec !== undefined && (res.headers['content-type'] ?? '').startsWith(codec.mediaType);
    if (code < 200 || code > 299) throw responseError(code, inCodec ? body : body.toString('utf8'), codec);
    if (body.length === 0) return undefined as T;
    return (inCodec ? codec.decode(body) : JSON.parse(body.toString('utf8'))) as T;
  }

  /**
   * A streaming GET (a watch): resolves once a 2xx answer's headers arrive, with the response to
   * read; a StatusError for any other code.
   */
  async stream(request: RestRequest): Promise<RestResponse> {
    const res = await this.send({ ...request, method: 'GET' }, {}, true);
    const code = res.statusCode;
    if (code < 200 || code > 299) {
      const body = await readBody(res).catch(() => Buffer.alloc(0));
      throw responseError(code, body.toString('utf8'));
    }
    return res;
  }

  /** Closes idle connections (and the HTTP/2 connection once its streams are done); requests under way finish. */
  close(): void {
    this.http2?.close();
    this.agent.destroy();
  }
}

async function readBody(res: RestResponse): Promise<Buffer> {
  let source: NodeJS.ReadableStream = res.body;
  if (res.headers['content-encoding'] === 'gzip') {
    const gunzip = createGunzip();
    res.body.on('error', (error) => gunzip.destroy(error));
    source = res.body.pipe(gunzip);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
