// Posting one review to a webhook: JSON to the connection's URL over HTTP/1.1, each attempt bounded
// by the client's timeout (30 s, as upstream's webhook clients) and the call by the caller's (sent
// as ?timeout=, as client-go does); with a backoff, transient failures (a reset connection, 500,
// 504, 429, or an answer with Retry-After) are retried as upstream's generic webhook retries them
// (the authentication and authorization webhooks: 500 ms, x1.5, 20% jitter, 5 attempts in all).
// Errors read as Go's client writes them: `Post "<url>": <cause>`.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { formatDuration } from '@plat/apimachinery';
import type { WebhookConnection } from './connection.js';

export interface WebhookBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  /** Attempts in all. */
  steps: number;
}

/** Upstream's DefaultRetryBackoffWithInitialDelay(500ms): the authentication and authorization webhooks'. */
export const defaultWebhookBackoff: WebhookBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** One attempt: what upstream's ClientManager clients make. */
const singleAttempt: WebhookBackoff = { initialMs: 0, factor: 1, jitter: 0, steps: 1 };

const DEFAULT_TIMEOUT_MS = 30_000;
/** A webhook's answer larger than this is refused rather than held in memory. */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

class WebhookError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** The message of a non-2xx answer: its Status' message when it carries one, as client-go reports it. */
function failureMessage(response: RawResponse): string {
  try {
    const status = JSON.parse(response.body.toString('utf8')) as { kind?: unknown; message?: unknown };
    if (status.kind === 'Status' && typeof status.message === 'string' && status.message) return status.message;
  } catch {
    // Not a Status: the code says it all.
  }
  if (response.status === 500) {
    const body = response.body.toString('utf8').trim();
    if (body) return `an error on the server (${JSON.stringify(body.slice(0, 1024))}) has prevented the request from succeeding`;
  }
  return `the server responded with the status code ${response.status} but did not return more information`;
}

export interface WebhookPostOptions {
  /**
   * The call's deadline (an admission webhook's timeoutSeconds): the webhook is told it as
   * ?timeout= (Go's duration), and the call fails with `context deadline exceeded` past it.
   */
  timeoutMs?: number;
}

/** One request's bound, and how it reads when reached. */
interface Deadline {
  ms: number;
  message: string;
}

export class WebhookClient {
  private readonly backoff: WebhookBackoff;
  private readonly timeoutMs: number;

  constructor(
    readonly connection: WebhookConnection,
    options: { backoff?: WebhookBackoff; timeoutMs?: number } = {},
  ) {
    this.backoff = options.backoff ?? singleAttempt;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Posts `review` and resolves with the decoded answer; throws an Error saying why not. */
  async post(review: object, options: WebhookPostOptions = {}): Promise<Record<string, unknown>> {
    const body = Buffer.from(JSON.stringify(review));
    const { timeoutMs } = options;
    const url = timeoutMs === undefined ? this.connection.url : withTimeoutParameter(this.connection.url, timeoutMs);
    const callDeadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    let delay = this.backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(url, body, this.deadline(callDeadline));
      } catch (error) {
        const retriable = error instanceof WebhookError && error.retriable;
        const wait = delay * (1 + Math.random() * this.backoff.jitter);
        // As upstream, the last webhook error is the answer once the call's deadline would pass.
        if (!retriable || attempt >= this.backoff.steps || Date.now() + wait >= callDeadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
        delay *= this.backoff.factor;
      }
    }
  }

  /** The sooner of the client's timeout and what is left of the call's. */
  private deadline(callDeadline: number): Deadline {
    const left = callDeadline - Date.now();
    if (left < this.timeoutMs) return { ms: Math.max(left, 0), message: 'context deadline exceeded' };
    return { ms: this.timeoutMs, message: `context deadline exceeded (Client.Timeout exceeded after ${this.timeoutMs / 1000}s)` };
  }

  private async attempt(url: string, body: Buffer, deadline: Deadline): Promise<Record<string, unknown>> {
    let response: RawResponse;
    try {
      response = await this.send(url, body, deadline);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new WebhookError(`Post "${url}": ${error instanceof Error ? error.message : String(error)}`, code === 'ECONNRESET');
    }
    if (response.status < 200 || response.status > 299) {
      const retriable = [429, 500, 504].includes(response.status) || response.headers['retry-after'] !== undefined;
      throw new WebhookError(failureMessage(response), retriable);
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(response.body.toString('utf8'));
    } catch (error) {
      throw new WebhookError(`the webhook's answer is not JSON: ${error instanceof Error ? error.message : String(error)}`, false);
    }
    if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw new WebhookError("the webhook's answer is not a JSON object", false);
    return decoded as Record<string, unknown>;
  }

  /** Node's request options: the URL's, or its path and Host header with the connection going where `dial` says. */
  private requestOptions(written: string, body: Buffer, deadline: Deadline): RequestOptions & Record<string, unknown> {
    const { ca, verifyServer, serverName, cert, key, authorization, userAgent, dial } = this.connection;
    const url = new URL(written);
    const https = url.protocol === 'https:';
    const target = dial?.();
    return {
      protocol: url.protocol,
      hostname: target?.host ?? url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: target?.port ?? (url.port || (https ? 443 : 80)),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        ...(target && { Host: authority(written) }),
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'Content-Length': body.length,
        'User-Agent': userAgent ?? 'plat-apiserver',
        ...(authorization && { Authorization: authorization }),
      },
      signal: AbortSignal.timeout(deadline.ms),
      // Without ALPN the server speaks HTTP/1.1, which upstream forces for webhooks.
      ...(https && {
        rejectUnauthorized: verifyServer,
        ...(ca && { ca }),
        // With `dial`, the name to verify is the URL's host unless one is given.
        ...((serverName || target) && { servername: serverName ?? url.hostname }),
        ...(cert && key && { cert, key }),
      }),
    };
  }

  private send(url: string, body: Buffer, deadline: Deadline): Promise<RawResponse> {
    return new Promise<RawResponse>((resolve, reject) => {
      const request = (url.startsWith('https:') ? httpsRequest : httpRequest)(this.requestOptions(url, body, deadline), (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) response.destroy(new Error(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      });
      request.on('error', (error) => reject(error.name === 'AbortError' ? new Error(deadline.message) : error));
      request.end(body);
    });
  }
}

/** client-go's Request.Timeout: the bound travels as ?timeout=<Go duration>; the URL is otherwise kept as written. */
function withTimeoutParameter(url: string, timeoutMs: number): string {
  return `${url}${url.includes('?') ? '&' : '?'}timeout=${encodeURIComponent(formatDuration(timeoutMs))}`;
}

/** The URL's authority as written (Go sends it as the Host header, an explicit :443 included). */
const authority = (url: string): string => /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#]*)/.exec(url)?.[1] ?? '';
