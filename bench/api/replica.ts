// bench/api's replica and client: one plat-apiserver started from its binary on a free loopback
// port, and an HTTPS client with keep-alive for the benchmarks' requests.
import { spawn, type ChildProcess } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../apps/apiserver/dist/bundle/plat-apiserver.mjs', import.meta.url));
/** Requests a client keeps in flight at most (its sockets). */
export const IN_FLIGHT = 64;
/** Extra node flags for the replica, e.g. BENCH_REPLICA_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p". */
const REPLICA_NODE_ARGS = (process.env.BENCH_REPLICA_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Extra apiserver flags for the replica, e.g. BENCH_REPLICA_ARGS="--enable-priority-and-fairness=false". */
const REPLICA_ARGS = (process.env.BENCH_REPLICA_ARGS ?? '').split(' ').filter(Boolean);

export interface Replica {
  pid: number;
  port: number;
  ca: string;
  stop(): Promise<void>;
}

export async function startReplica(args: string[]): Promise<Replica> {
  const certDir = await mkdtemp(join(tmpdir(), 'plat-bench-certs-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--max-semi-space-size=64', ...REPLICA_NODE_ARGS, MAIN, '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${certDir}`, ...args, ...REPLICA_ARGS],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-100_000)));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-100_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const deadline = Date.now() + 20_000;
    const poll = (): void => {
      const line = output.split('\n').find((text) => text.includes('"msg":"serving"'));
      if (line) return resolve((JSON.parse(line) as { port: number }).port);
      if (child.exitCode !== null || Date.now() > deadline) return reject(new Error(`apiserver did not start:\n${output}`));
      setTimeout(poll, 25);
    };
    poll();
  });
  const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
  return {
    pid: child.pid!,
    port,
    ca,
    async stop() {
      if (child.exitCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

/** An answer as `send` gives it: the body's bytes (empty when not kept) and how many there were. */
export interface Answer {
  status: number;
  bytes: number;
  body: Buffer;
  headers: IncomingHttpHeaders;
}

export class Client {
  private readonly agent: Agent;
  constructor(
    private readonly replica: Pick<Replica, 'port' | 'ca'>,
    private readonly token: string,
  ) {
    // Idle sockets are dropped before the server's 5 s keep-alive timeout could close one under a request.
    this.agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca: replica.ca, timeout: 4000 });
  }

  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
    return this.send(method, path, { body }).then(({ status, body: bytes }) => ({ status, body: bytes.toString() }));
  }

  /**
   * A request with more say: extra headers, and `keepBody: false` to count the body's bytes
   * without holding them (a 90 MB list need not be kept by the client).
   */
  send(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; keepBody?: boolean } = {}): Promise<Answer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.replica.port,
          path,
          method,
          agent: this.agent,
          headers: { authorization: `Bearer ${this.token}`, ...(payload && { 'content-type': 'application/json' }), ...options.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (options.keepBody !== false) chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, body: Buffer.concat(chunks), headers: res.headers }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async ok(method: string, path: string, body?: unknown): Promise<string> {
    const response = await this.call(method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.body.slice(0, 300)}`);
    return response.body;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** To two decimals, for the JSON printed. */
export const round = (value: number): number => Math.round(value * 100) / 100;

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 10) / 10;

