// Connections that end before a request is made: a request line or header section node cannot
// parse (an unknown method, headers past the limit, a request too slow to arrive), or a TLS
// handshake that fails. Anyone can send these without credentials, so each is answered as node
// answers it (400, 431, 408; here with a Status body), counted, and logged at most once a minute
// with the count since the last line, rather than once each. The connection is closed after the
// answer as Go's server closes it (answerAndClose), so that a client still sending reads it.
import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import { answerAndClose, wasAnswered, type MetricsStability } from '@plat/serving';

import { MAX_HEADER_BYTES } from '@plat/apimachinery';

export { MAX_HEADER_BYTES };

const LOG_INTERVAL_MS = 60_000;

const responses: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', `the request's header section is larger than ${MAX_HEADER_BYTES} bytes`],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request did not arrive in time'],
};

function statusResponse(code: number, phrase: string, message: string, reason?: string): string {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason && { reason }), code });
  return `HTTP/1.1 ${code} ${phrase}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Logs the first error at once, then one line a minute at most, carrying how many were not logged. */
class ThrottledLog {
  private last = -Infinity;
  private suppressed = 0;
  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  note(fields: Record<string, unknown>, message: string): void {
    const now = this.now();
    if (now - this.last < LOG_INTERVAL_MS) {
      this.suppressed++;
      return;
    }
    this.logger.warn({ ...fields, notLoggedSinceLastLine: this.suppressed }, message);
    this.last = now;
    this.suppressed = 0;
  }
}

/** @param server the secure port's server (node:http2's, or node:https's) */
export function handleConnectionErrors(server: Pick<EventEmitter, 'on'>, logger: Logger, stability: MetricsStability, now: () => number = Date.now): void {
  const errors = new Counter({
    name: 'plat_http_connection_errors_total',
    ...stability.declare(
      'Connections that ended before a request was served: malformed requests (stage "request"), failed TLS handshakes (stage "tls") and HTTP/2 sessions failed by their peer (stage "http2"), by error code.',
      { stabilityLevel: 'ALPHA' },
    ),
    labelNames: ['stage', 'code'],
  });
  const log = new ThrottledLog(logger, now);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Node reports the error again for each chunk the client sends after it: one refusal, counted once.
    if (wasAnswered(socket)) return;
    const code = error.code ?? 'unknown';
    errors.inc({ stage: 'request', code });
    // A client that reset the connection is simply gone: nothing to answer, nothing to log.
    if (code !== 'ECONNRESET') log.note({ code, err: error.message }, 'malformed HTTP request refused');
    if (code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, phrase, message] = responses[code] ?? [400, 'Bad Request', `the request could not be parsed: ${code}`];
    // Closed as Go's server closes it, so that a client still sending its request reads the answer.
    answerAndClose(socket, statusResponse(status, phrase, message, status === 400 ? 'BadRequest' : undefined));
  });
  // An HTTP/2 client that breaks the protocol: node ends its session (GOAWAY) itself.
  server.on('sessionError', (error: NodeJS.ErrnoException) => {
    const code = error.code ?? 'unknown';
    errors.inc({ stage: 'http2', code });
    log.note({ code, err: error.message }, 'HTTP/2 session failed');
  });
  server.on('tlsClientError', (error: NodeJS.ErrnoException) => {
    const code = error.code ?? 'unknown';
    errors.inc({ stage: 'tls', code });
    if (code !== 'ECONNRESET') log.note({ code, err: error.message }, 'TLS handshake failed');
  });
}
