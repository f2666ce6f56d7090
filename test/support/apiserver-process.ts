// A plat-apiserver replica as a real process for end-to-end tests: free loopback port, its own
// temporary certificate folder, requests that trust its CA, stopped by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { connect as http2Connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../apps/apiserver/dist/bundle/plat-apiserver.mjs', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body as received, for binary representations. */
  bytes: Buffer;
}

export interface RequestOptions {
  method?: string;
  token?: string;
  body?: unknown;
  /** Sent as it is, instead of `body` as JSON. */
  rawBody?: string | Uint8Array;
  /** Headers; a list is sent as one header line per value (Impersonate-Group). */
  headers?: Record<string, string | string[]>;
  /** Client certificate and key (PEM). */
  cert?: { cert: string; key: string };
}

export interface WatchStream {
  status: number;
  /** Resolves with the next event, or undefined when the stream has ended. */
  next(timeoutMs?: number): Promise<WatchEventLine | undefined>;
  close(): void;
}

export interface WatchEventLine {
  type: string;
  object: { metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; [field: string]: unknown };
}

export interface ApiserverProcess {
  readonly port: number;
  readonly pid: number;
  readonly url: string;
  /** The CA that signed the serving certificate (PEM). */
  readonly ca: string;
  readonly logs: () => string;
  request(path: string, options?: RequestOptions): Promise<Response>;
  /** A watch: the events as they arrive, one JSON document per line. */
  watch(path: string, options?: RequestOptions): Promise<WatchStream>;
  /** SIGTERM, then wait for the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** The CA of a certificate given with --tls-cert-file (else its own, from --cert-dir). */
  ca?: string;
  /**
   * Send `request` and `watch` over HTTP/2 (ALPN h2), each a stream of one connection per client
   * certificate, instead of a new HTTP/1.1 connection each.
   */
  http2?: boolean;
}

/** A response's headers from HTTP/2's, pseudo-headers left out, as node's HTTP/1.1 client gives them. */
function plainHeaders(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const plain: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) if (!name.startsWith(':')) plain[name] = value;
  return plain;
}

/** One HTTP/2 connection per client certificate (and one without), opened on first use. */
function http2Sessions(port: number, ca: () => string): { session(cert?: { cert: string; key: string }): ClientHttp2Session; closeAll(): void } {
  const sessions = new Map<string, ClientHttp2Session>();
  return {
    session(cert) {
      const key = cert?.cert ?? '';
      let session = sessions.get(key);
      if (!session || session.closed || session.destroyed) {
        session = http2Connect(`https://127.0.0.1:${port}`, { ca: ca(), ...(cert && { cert: cert.cert, key: cert.key }) });
        session.on('error', () => {});
        session.unref();
        sessions.set(key, session);
      }
      return session;
    },
    closeAll() {
      for (const session of sessions.values()) session.destroy();
      sessions.clear();
    },
  };
}

export async function startApiserver(args: string[], options: StartOptions = {}): Promise<ApiserverProcess> {
  const certDir = await mkdtemp(join(tmpdir(), 'plat-e2e-certs-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [MAIN, '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${certDir}`, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const port = await new Promise<number>((resolve, reject) => {
    // The "serving" line is logged at info level: a test must not raise --log-level above it.
    const deadline = Date.now() + START_TIMEOUT_MS;
    const poll = (): void => {
      const line = output.split('\n').find((text) => text.includes('"msg":"serving"'));
      if (line) return resolve((JSON.parse(line) as { port: number }).port);
      if (child.exitCode !== null) return reject(new Error(`apiserver exited with ${child.exitCode}:\n${output}`));
      if (Date.now() > deadline) return reject(new Error(`apiserver did not start:\n${output}`));
      setTimeout(poll, 25);
    };
    poll();
  }).catch(async (error: unknown) => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(certDir, { recursive: true, force: true });
    throw error;
  });
  const ca = options.ca ?? (await readFile(join(certDir, 'ca.crt'), 'utf8'));
  const h2 = options.http2 ? http2Sessions(port, () => ca) : undefined;
  // Requests reuse connections, as clients do: a new TLS handshake each was most of what a test
  // of thousands of small requests (fuzz) waited on. Connections with a client certificate are
  // pooled apart (the agent keys them by it). Watches have connections of their own.
  const agent = new Agent({ keepAlive: true, maxFreeSockets: 16 });
  /** A request over HTTP/2: the response's status and headers, and its body as a readable stream. */
  const h2Request = (path: string, method: string, headers: Record<string, string | string[]>, cert: RequestOptions['cert'], body?: string | Uint8Array) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; stream: import('node:http2').ClientHttp2Stream }>((resolve, reject) => {
      const stream = h2!.session(cert).request({ ':method': method, ':path': path, ...headers }, { endStream: body === undefined });
      stream.once('response', (responseHeaders) => resolve({ status: Number(responseHeaders[':status']), headers: plainHeaders(responseHeaders), stream }));
      stream.once('error', reject);
      if (body !== undefined) stream.end(body);
    });

  return {
    port,
    pid: child.pid ?? 0,
    url: `https://127.0.0.1:${port}`,
    ca,
    logs: () => output,
    request: (path, options = {}) =>
      new Promise((resolve, reject) => {
        const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
        if (h2) {
          const headers = {
            ...(options.token && { authorization: `Bearer ${options.token}` }),
            ...(body !== undefined && { 'content-type': 'application/json' }),
            ...lowerCased(options.headers ?? {}),
          };
          h2Request(path, options.method ?? 'GET', headers, options.cert, body).then(({ status, headers: responseHeaders, stream }) => {
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('end', () => {
              const bytes = Buffer.concat(chunks);
              resolve({ status, headers: responseHeaders, body: bytes.toString('utf8'), bytes });
            });
            stream.on('error', reject);
          }, reject);
          return;
        }
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: options.method ?? 'GET',
            ca,
            agent,
            ...(options.cert && { cert: options.cert.cert, key: options.cert.key }),
            headers: {
              ...(options.token && { authorization: `Bearer ${options.token}` }),
              // Node sends no Content-Length of its own for a DELETE body: without one the server
              // rightly reads no body, and takes what follows as a second, broken request.
              ...(body !== undefined && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
              ...options.headers,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const bytes = Buffer.concat(chunks);
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    watch: (path, options = {}) =>
      new Promise((resolve, reject) => {
        const headers = { ...(options.token && { authorization: `Bearer ${options.token}` }), ...lowerCased(options.headers ?? {}) };
        const answered = (status: number, res: import('node:stream').Readable, destroy: () => void): void => {
          const lines: string[] = [];
          const waiters: Array<() => void> = [];
          let buffer = '';
          let ended = false;
          const wake = (): void => waiters.splice(0).forEach((waiter) => waiter());
          res.setEncoding('utf8').on('data', (chunk: string) => {
            buffer += chunk;
            const parts = buffer.split('\n');
            buffer = parts.pop()!;
            lines.push(...parts.filter((line) => line.trim()));
            wake();
          });
          res.on('end', () => {
            ended = true;
            wake();
          });
          res.on('error', () => {
            ended = true;
            wake();
          });
          resolve({
            status,
            async next(timeoutMs = 10_000) {
              const deadline = Date.now() + timeoutMs;
              while (lines.length === 0 && !ended) {
                if (Date.now() > deadline) throw new Error(`no watch event within ${timeoutMs} ms`);
                await new Promise<void>((wakeUp) => {
                  waiters.push(wakeUp);
                  setTimeout(wakeUp, 50);
                });
              }
              const line = lines.shift();
              return line === undefined ? undefined : (JSON.parse(line) as WatchEventLine);
            },
            close: destroy,
          });
        };
        if (h2) {
          h2Request(path, 'GET', headers, options.cert).then(({ status, stream }) => answered(status, stream, () => stream.destroy()), reject);
          return;
        }
        const req = request({ host: '127.0.0.1', port, path, ca, agent: false, headers }, (res) => answered(res.statusCode ?? 0, res, () => req.destroy()));
        req.on('error', reject);
        req.end();
      }),
    async stop() {
      h2?.closeAll();
      agent.destroy();
      if (child.exitCode === null) process.kill(child.pid!, 'SIGTERM');
      const code = await exited;
      await rm(certDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** HTTP/2 takes header names in lower case only. */
function lowerCased(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Polls `probe` until it returns true, or fails after `timeoutMs`. */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A token file with one admin (system:masters) token; returns the file and the token. */
export async function adminTokenFile(): Promise<{ file: string; token: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-tokens-'));
  const token = `admin-${process.pid}-${Date.now()}`;
  const file = join(dir, 'tokens.csv');
  await writeFile(file, `${token},admin,admin-uid,"system:masters"\n`);
  return { file, token, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
