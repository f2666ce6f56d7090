// bench/scale's replicas: plat-apiserver processes on one port and certificate folder each, so that
// one can be stopped and started again where its clients expect it, with the inspector open for a
// forced garbage collection and the heap's figures (../inspector.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Inspector, inspectorUrl } from '../inspector.js';

const MAIN = fileURLToPath(new URL('../../../apps/apiserver/dist/bundle/plat-apiserver.mjs', import.meta.url));

export interface ReplicaSpec {
  name: string;
  args: string[];
  /** --max-semi-space-size in MiB; undefined: node's default (16 MiB on 64-bit). */
  semiSpaceMiB?: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export class ScaleReplica {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private output = '';
  inspector: Inspector | undefined;
  ca = '';

  private constructor(
    readonly spec: ReplicaSpec,
    readonly port: number,
    private readonly certDir: string,
  ) {}

  static async create(spec: ReplicaSpec): Promise<ScaleReplica> {
    return new ScaleReplica(spec, await freePort(), await mkdtemp(join(tmpdir(), `plat-bench-scale-${spec.name}-`)));
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Starts the process; resolves once it serves (not yet ready: see `waitReady`). */
  async start(): Promise<void> {
    this.output = '';
    const nodeArgs = [...(this.spec.semiSpaceMiB === undefined ? [] : [`--max-semi-space-size=${this.spec.semiSpaceMiB}`]), '--inspect=127.0.0.1:0'];
    const child = spawn(process.execPath, [...nodeArgs, MAIN, '--bind-address=127.0.0.1', `--secure-port=${this.port}`, `--cert-dir=${this.certDir}`, ...this.spec.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: string): void => {
      this.output = (this.output + chunk).slice(-200_000);
    };
    child.stdout!.setEncoding('utf8').on('data', keep);
    child.stderr!.setEncoding('utf8').on('data', keep);
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 30_000;
      const poll = (): void => {
        if (this.output.includes('"msg":"serving"') && inspectorUrl(this.output)) return resolve();
        if (child.exitCode !== null || Date.now() > deadline) return reject(new Error(`replica ${this.spec.name} did not start:\n${this.output}`));
        setTimeout(poll, 20);
      };
      poll();
    });
    this.ca = await readFile(join(this.certDir, 'ca.crt'), 'utf8');
    this.inspector = await Inspector.connect(inspectorUrl(this.output)!);
  }

  /** Polls /readyz until it answers 200; resolves with how long that took. */
  async waitReady(get: (path: string) => Promise<{ status: number }>, timeoutMs = 120_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      const status = await get('/readyz').then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      if (performance.now() - started > timeoutMs) throw new Error(`replica ${this.spec.name} not ready after ${timeoutMs} ms:\n${this.output.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** SIGTERM (graceful shutdown), then waits for the exit. */
  async stop(): Promise<void> {
    this.inspector?.close();
    this.inspector = undefined;
    if (this.child && this.child.exitCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }

  async remove(): Promise<void> {
    await this.stop();
    await rm(this.certDir, { recursive: true, force: true });
  }
}
