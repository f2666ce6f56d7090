// A throwaway redis-server for end-to-end tests: a free loopback port, a temporary folder, no
// persistence, stopped by PID.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** SIGKILL (an abrupt loss, as a crash) or SIGTERM, then wait for the exit and remove the folder. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startRedis(): Promise<RedisProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
