// A webhook on loopback HTTPS for this package's tests: it serves a certificate for the names a
// test chooses, records what each request carried (the TLS name asked for included), and answers
// as the test says, when the test says.
import { createServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { generateSelfSignedCert } from '@plat/serving';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The name the client asked for by SNI; false without one. */
  servername: string | false;
  /** The SHA-256 fingerprint of the client's certificate, when it presented one. */
  clientFingerprint?: string;
}

export interface WebhookAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Answers this much later. */
  delayMs?: number;
}

export interface LoopbackWebhook {
  port: number;
  /** The authority of its certificate (PEM). */
  ca: string;
  received: ReceivedRequest[];
  answer: (request: ReceivedRequest) => WebhookAnswer;
  close(): Promise<void>;
}

/** A certificate for `dnsNames` (and 127.0.0.1), its key and its own CA. */
export const certificateFor = (dnsNames: string[]): Promise<{ cert: string; key: string; ca: string }> =>
  generateSelfSignedCert({ bindAddress: '127.0.0.1', hostname: 'localhost', dnsNames });

export async function startLoopbackWebhook(options: { dnsNames: string[]; requestCert?: boolean }): Promise<LoopbackWebhook> {
  const { cert, key, ca } = await certificateFor(options.dnsNames);
  const pending = new Set<NodeJS.Timeout>();
  const server = createServer({ cert, key, requestCert: options.requestCert ?? false, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const socket = req.socket as TLSSocket;
      const peer = options.requestCert ? socket.getPeerCertificate() : undefined;
      const text = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedRequest = {
        path: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        servername: socket.servername ?? false,
        ...(peer?.fingerprint256 && { clientFingerprint: peer.fingerprint256 }),
      };
      webhook.received.push(request);
      const reply = webhook.answer(request);
      const send = (): void => {
        res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
        res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}));
      };
      if (!reply.delayMs) return send();
      const timer = setTimeout(() => {
        pending.delete(timer);
        send();
      }, reply.delayMs);
      pending.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const webhook: LoopbackWebhook = {
    port: (server.address() as { port: number }).port,
    ca,
    received: [],
    answer: () => ({ body: {} }),
    close: () => {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return webhook;
}
