// Posting one review to a webhook as upstream's generic webhook does: JSON to the configured URL,
// each attempt bounded (30 s), transient failures (a reset connection, 500, 504, 429, or an
// answer with Retry-After) retried with exponential backoff (500 ms, x1.5, 20% jitter, 5
// attempts in all). Errors read as Go's client writes them: `Post "<url>": <cause>`.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookConnection } from './kubeconfig.js';

export interface WebhookBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  /** Attempts in all. */
  steps: number;
}

/** Upstream's DefaultRetryBackoffWithInitialDelay(500ms). */
export const defaultWebhookBackoff: WebhookBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

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

export class WebhookClient {
  private readonly backoff: WebhookBackoff;
  private readonly timeoutMs: number;

  constructor(
    private readonly connection: WebhookConnection,
    options: { backoff?: WebhookBackoff; timeoutMs?: number } = {},
  ) {
    this.backoff = options.backoff ?? defaultWebhookBackoff;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Posts `review` and resolves with the decoded answer; throws an Error saying why not. */
  async post(review: object): Promise<Record<string, unknown>> {
    const body = Buffer.from(JSON.stringify(review));
    let delay = this.backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(body);
      } catch (error) {
        const retriable = error instanceof WebhookError && error.retriable;
        if (!retriable || attempt >= this.backoff.steps) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * this.backoff.jitter)));
        delay *= this.backoff.factor;
      }
    }
  }

  private async attempt(body: Buffer): Promise<Record<string, unknown>> {
    const { url } = this.connection;
    let response: RawResponse;
    try {
      response = await this.send(body);
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

  private send(body: Buffer): Promise<RawResponse> {
    const { url, ca, verifyServer, serverName, cert, key, authorization } = this.connection;
    const https = url.startsWith('https:');
    const options = {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'Content-Length': body.length,
        'User-Agent': 'plat-apiserver',
        ...(authorization && { Authorization: authorization }),
      },
      signal: AbortSignal.timeout(this.timeoutMs),
      ...(https && { rejectUnauthorized: verifyServer, ...(ca && { ca }), ...(serverName && { servername: serverName }), ...(cert && key && { cert, key }) }),
    };
    return new Promise<RawResponse>((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(url, options, (response) => {
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
      request.on('error', (error) => reject(error.name === 'AbortError' ? new Error(`context deadline exceeded (Client.Timeout exceeded after ${this.timeoutMs / 1000}s)`) : error));
      request.end(body);
    });
  }
}

/**
 * A webhook's answer as the kind asked for: a missing kind or apiVersion is taken to be the one
 * sent (as a typed Go decoder defaults them); another kind, or another group, is refused.
 */
export function checkAnswerKind(answer: Record<string, unknown>, kind: string, group: string, versions: readonly string[]): void {
  if (answer.kind !== undefined && answer.kind !== kind) throw new Error(`the webhook answered a ${String(answer.kind)}, not a ${kind}`);
  if (answer.apiVersion === undefined) return;
  const accepted = versions.map((version) => `${group}/${version}`);
  if (!accepted.includes(String(answer.apiVersion))) {
    throw new Error(`the webhook answered a ${kind} of apiVersion ${JSON.stringify(answer.apiVersion)}, not ${accepted.join(' or ')}`);
  }
}
