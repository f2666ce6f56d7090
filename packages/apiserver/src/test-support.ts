// Helpers for this package's tests (not exported): a certificate, fake storage, a log capture,
// an HTTPS client, and a server started on 127.0.0.1 with a free port.
import { createServer as createHttpsServer, request as httpsRequest, type Agent } from 'node:https';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '@plat/storage';
import { createLogger } from './logger.js';
import { ensureSelfSignedCert, type SelfSignedCertificate } from '@plat/serving';
import { createServer, type Server, type ServerOptions } from './server.js';

let certPromise: Promise<SelfSignedCertificate> | undefined;

/** One self-signed certificate per test process. */
export function testCert(): Promise<SelfSignedCertificate> {
  certPromise ??= mkdtemp(join(tmpdir(), 'plat-test-cert-')).then((certDir) => {
    process.once('exit', () => rmSync(certDir, { recursive: true, force: true }));
    return ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1' });
  });
  return certPromise;
}

/** Storage that only answers health checks, as `health()` decides; everything else is unused here. */
export function fakeStorage(health: () => Promise<void> = async () => {}): Storage & { closed: number } {
  const fake = {
    closed: 0,
    checkHealth: () => health(),
    close: async () => {
      fake.closed++;
    },
  };
  return fake as unknown as Storage & { closed: number };
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export function captureLogger(): { logger: ReturnType<typeof createLogger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } });
  return { logger, lines };
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** false: a new connection, not one kept alive from an earlier request. */
  agent?: Agent | false;
}

export async function get(port: number, path: string, options: RequestOptions = {}): Promise<Response> {
  const { ca } = await testCert();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, ca, ...(options.agent !== undefined ? { agent: options.agent } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export interface TestServer {
  server: Server;
  port: number;
  lines: LogLine[];
  get(path: string, options?: RequestOptions): Promise<Response>;
}

export async function startServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const { logger, lines } = captureLogger();
  const server = createServer({
    storage: fakeStorage(),
    logger,
    tls: await testCert(),
    bindAddress: '127.0.0.1',
    port: 0,
    ...options,
  });
  const { port } = await server.listen();
  return { server, port, lines, get: (path, opts) => get(port, path, opts) };
}

/** A webhook on loopback for the webhook tests: what it was sent, and an answer the test chooses. */
export interface TestWebhook {
  url: string;
  /** The CA of its certificate (PEM). */
  ca: string;
  /** Every request body it received, decoded, with its headers. */
  received: { body: Record<string, unknown>; headers: Record<string, string | string[] | undefined> }[];
  /** Decides each answer: its status code and body (default 200 and the JSON of `body`). */
  answer: (review: Record<string, unknown>) => { status?: number; body: unknown; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startTestWebhook(answer: TestWebhook['answer']): Promise<TestWebhook> {
  const { cert, key, ca } = await testCert();
  const webhook: TestWebhook = {
    url: '',
    ca,
    received: [],
    answer,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createHttpsServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      webhook.received.push({ body, headers: req.headers });
      const reply = webhook.answer(body);
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhook.url = `https://127.0.0.1:${(server.address() as { port: number }).port}/review`;
  return webhook;
}
