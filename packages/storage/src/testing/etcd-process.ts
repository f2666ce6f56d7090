// A throwaway etcd for tests: its own temporary data folder and free loopback ports, stopped by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface EtcdProcess {
  /** The client URL, e.g. http://127.0.0.1:41234. */
  readonly endpoint: string;
  readonly dataDir: string;
  readonly pid: number;
  /** Kills etcd abruptly (SIGKILL), keeping its data. */
  kill(): Promise<void>;
  /** Starts etcd again on the same ports and data. */
  restart(): Promise<void>;
  /** Stops etcd and removes its data. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 20_000;

async function waitHealthy(endpoint: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(`${endpoint}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`etcd at ${endpoint} was not healthy within ${READY_TIMEOUT_MS} ms`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Free ports are found by binding and letting go: another process may take one first. */
const PORT_ATTEMPTS = 3;

export interface EtcdOptions {
  /** etcd's periodic watch progress notifications (--experimental-watch-progress-notify-interval; etcd's default is 10 minutes). */
  progressNotifyIntervalMs?: number;
}

export async function startEtcd(options: EtcdOptions = {}): Promise<EtcdProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startEtcdOnce(options: EtcdOptions): Promise<EtcdProcess> {
  const folder = await mkdtemp(join(tmpdir(), 'plat-etcd-'));
  const dataDir = join(folder, 'data');
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name=test',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=test=${peer}`,
    '--logger=zap',
    '--log-outputs=stderr',
    '--log-level=warn',
    ...(options.progressNotifyIntervalMs === undefined ? [] : [`--experimental-watch-progress-notify-interval=${options.progressNotifyIntervalMs}ms`]),
  ];
  let child: ChildProcess;
  const launch = async (): Promise<void> => {
    const log = openSync(join(folder, 'etcd.log'), 'a');
    child = spawn('etcd', args, { stdio: ['ignore', log, log] });
    closeSync(log);
    await waitHealthy(endpoint, child);
  };
  try {
    await launch();
  } catch (error) {
    const log = readFileSync(join(folder, 'etcd.log'), 'utf8');
    await rm(folder, { recursive: true, force: true });
    if (/address already in use/.test(log)) throw new PortTakenError(`etcd: a port was taken: ${String(error)}`);
    throw new Error(`${String(error)}\n${log.slice(-2000)}`);
  }
  const kill = async (): Promise<void> => {
    child.kill('SIGKILL');
    await exited(child);
  };
  return {
    endpoint,
    dataDir,
    get pid() {
      return child.pid ?? 0;
    },
    kill,
    restart: launch,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
