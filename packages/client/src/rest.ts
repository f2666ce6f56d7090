// HTTPS requests to one API server: JSON in and out, bearer-token or certificate authentication,
// every request a stream of one HTTP/2 connection (http2-connection.ts; keep-alive HTTP/1.1
// connections where the server speaks only that), and every answer that is not 2xx turned into a
// StatusError.
import { Agent, request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Session } from 'node:http2';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Http2Connection } from './http2-connection.js';
import { StatusError, newGenericServerResponse, type Status } from '@plat/apimachinery';
import type { ClientConfig } from './kubeconfig.js';

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
export function responseError(code: number, body: string): StatusError {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isStatus(parsed)) return new StatusError(parsed);
  } catch {
    // Not JSON: a proxy's page, say.
  }
  return newGenericServerResponse(code);
}

export class RestClient {
  private readonly url: URL;
  private readonly agent: Agent;
  private readonly http2: Http2Connection | undefined;

  constructor(readonly config: ClientConfig) {
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
    // HTTP/2 unless turned off, as client-go (which turns it off with GODEBUG=http2client=0).
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

  /** Sends a request and resolves with the response, whatever its code; the body is not read. */
  private async send(request: RestRequest, headers: Record<string, string>, stream: boolean): Promise<RestResponse> {
    const method = request.method ?? 'GET';
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const timeoutMs = request.timeoutMs ?? (stream ? 0 : DEFAULT_TIMEOUT_MS);
    const allHeaders = {
      ...headers,
      ...(body !== undefined && { 'content-type': request.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
    };
    let session: ClientHttp2Session | undefined;
    try {
      session = await this.http2?.get();
    } catch (error) {
      throw new NetworkError(`${method} ${request.path}: ${(error as Error).message}`, { cause: error });
    }
    if (session) return this.sendHttp2(session, method, request, allHeaders, body, timeoutMs, stream);
    return this.sendHttp1(method, request, allHeaders, body, timeoutMs, stream);
  }

  private sendHttp2(
    session: ClientHttp2Session,
    method: string,
    request: RestRequest,
    headers: Record<string, string>,
    body: string | undefined,
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

  private sendHttp1(method: string, request: RestRequest, headers: Record<string, string>, body: string | undefined, timeoutMs: number, stream: boolean): Promise<RestResponse> {
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
    const res = await this.send(request, { 'accept-encoding': 'gzip' }, false);
    const body = await readBody(res).catch((error: Error) => {
      throw new NetworkError(`${request.method ?? 'GET'} ${request.path}: ${error.message}`, { cause: error });
    });
    const code = res.statusCode;
    if (code < 200 || code > 299) throw responseError(code, body);
    return (body ? JSON.parse(body) : undefined) as T;
  }

  /**
   * A streaming GET (a watch): resolves once a 2xx answer's headers arrive, with the response to
   * read; a StatusError for any other code.
   */
  async stream(request: RestRequest): Promise<RestResponse> {
    const res = await this.send({ ...request, method: 'GET' }, {}, true);
    const code = res.statusCode;
    if (code < 200 || code > 299) {
      const body = await readBody(res).catch(() => '');
      throw responseError(code, body);
    }
    return res;
  }

  /** Closes idle connections (and the HTTP/2 connection once its streams are done); requests under way finish. */
  close(): void {
    this.http2?.close();
    this.agent.destroy();
  }
}

async function readBody(res: RestResponse): Promise<string> {
  let source: NodeJS.ReadableStream = res.body;
  if (res.headers['content-encoding'] === 'gzip') {
    const gunzip = createGunzip();
    res.body.on('error', (error) => gunzip.destroy(error));
    source = res.body.pipe(gunzip);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
