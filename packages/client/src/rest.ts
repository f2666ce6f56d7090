// HTTPS requests to one API server: JSON (or the codec's form) in and out, bearer-token or
// certificate authentication, keep-alive connections, the client's own rate limit, an answer that
// asks to come back later (Retry-After) followed as client-go follows it, and every other answer
// that is not 2xx turned into a StatusError.
import { Agent, request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
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
export function retryAfterMs(res: Pick<IncomingMessage, 'statusCode' | 'headers'>): number | undefined {
  const code = res.statusCode ?? 0;
  if (code !== 429 && code < 500) return undefined;
  const header = res.headers['retry-after'];
  if (typeof header !== 'string' || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
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

  constructor(readonly config: ClientConfig) {
    this.limiter = rateLimiterOf(config);
    this.url = new URL(config.server);
    if (this.url.protocol !== 'https:') throw new Error(`server ${config.server}: only https is supported`);
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 64,
      ...(config.ca && { ca: config.ca }),
      ...(config.cert && { cert: config.cert }),
      ...(config.key && { key: config.key }),
      rejectUnauthorized: !config.insecureSkipTLSVerify,
      ...(config.tlsServerName && { servername: config.tlsServerName }),
    });
  }

  private options(method: string, path: string, query: Record<string, QueryValue> | undefined, headers: Record<string, string>): HttpsRequestOptions {
    const prefix = this.url.pathname.replace(/\/$/, '');
    return {
      protocol: 'https:',
      hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.url.port || 443,
      method,
      path: `${prefix}${path}${queryString(query)}`,
      agent: this.agent,
      headers: {
        accept: 'application/json',
        'user-agent': this.config.userAgent ?? 'plat-client',
        ...(this.config.token && { authorization: `Bearer ${this.config.token}` }),
        ...headers,
      },
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
  private async send(request: RestRequest, headers: Record<string, string>, stream: boolean): Promise<IncomingMessage> {
    for (let retries = 0; ; retries++) {
      const res = await this.sendOnce(request, headers, stream);
      const waitMs = retries < MAX_RETRIES ? retryAfterMs(res) : undefined;
      if (waitMs === undefined) return res;
      res.resume();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private async sendOnce(request: RestRequest, headers: Record<string, string>, stream: boolean): Promise<IncomingMessage> {
    const method = request.method ?? 'GET';
    const body = this.encodeBody(request);
    const timeoutMs = request.timeoutMs ?? (stream ? 0 : DEFAULT_TIMEOUT_MS);
    // A watch is one request however long it lasts: it takes one token, as client-go's does.
    await this.limiter?.take();
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        this.options(method, request.path, request.query, {
          ...headers,
          ...(body !== undefined && { 'content-type': body.contentType, 'content-length': String(body.bytes.length) }),
        }),
        (res) => {
          // A stream outlives the request's deadline; a plain request's deadline covers its body too.
          if (stream) req.setTimeout(0);
          resolve(res);
        },
      );
      if (timeoutMs > 0) {
        req.setTimeout(timeoutMs, () => req.destroy(new NetworkError(`${method} ${request.path}: no answer within ${timeoutMs} ms`)));
      }
      req.on('error', (error) => reject(error instanceof NetworkError ? error : new NetworkError(`${method} ${request.path}: ${error.message}`, { cause: error })));
      req.end(body?.bytes);
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
    const code = res.statusCode ?? 0;
    const inCodec = codec !== undefined && (res.headers['content-type'] ?? '').startsWith(codec.mediaType);
    if (code < 200 || code > 299) throw responseError(code, inCodec ? body : body.toString('utf8'), codec);
    if (body.length === 0) return undefined as T;
    return (inCodec ? codec.decode(body) : JSON.parse(body.toString('utf8'))) as T;
  }

  /**
   * A streaming GET (a watch): resolves once a 2xx answer's headers arrive, with the response to
   * read; a StatusError for any other code.
   */
  async stream(request: RestRequest): Promise<IncomingMessage> {
    const res = await this.send({ ...request, method: 'GET' }, {}, true);
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      const body = await readBody(res).catch(() => Buffer.alloc(0));
      throw responseError(code, body.toString('utf8'));
    }
    return res;
  }

  /** Closes idle connections; requests under way finish. */
  close(): void {
    this.agent.destroy();
  }
}

async function readBody(res: IncomingMessage): Promise<Buffer> {
  let source: NodeJS.ReadableStream = res;
  if (res.headers['content-encoding'] === 'gzip') {
    const gunzip = createGunzip();
    res.on('error', (error) => gunzip.destroy(error));
    source = res.pipe(gunzip);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
