// The `make cluster` topology for end-to-end tests: scripts/cluster-up.mjs started into a temporary
// folder of its own (never a cluster someone started by hand), HTTPS requests and watches to the
// load balancer or to one replica, and scripts/cluster-down.mjs to stop it all by PID.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ClusterState {
  dir: string;
  apiDomain: string;
  server: string;
  lbPort: number;
  kubeconfig: string;
  caFile: string;
  token: string;
  etcd: { endpoint: string; pid: number };
  redis: { url: string; pid: number; passedToReplicas: boolean };
  replicas: Array<{ name: string; port: number; pid: number; url: string }>;
  haproxy: { pid: number; config: string };
  /** url: the secure port (health, metrics), its certificate self-signed in memory. */
  controllerManagers: Array<{ name: string; pid: number; url: string }>;
}

export interface ClusterResponse {
  status: number;
  body: string;
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface ClusterRequest {
  method?: string;
  body?: unknown;
  /** An agent for keep-alive connections; by default one connection per request. */
  agent?: Agent;
  timeoutMs?: number;
}

export interface ClusterWatch {
  status: number;
  /** The next event, or undefined once the stream has ended. */
  next(timeoutMs?: number): Promise<{ type: string; object: any } | undefined>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): void;
}

export interface Cluster {
  readonly state: ClusterState;
  readonly ca: string;
  /** A request to a port of the cluster (the load balancer's or a replica's) as the admin. */
  request(port: number, path: string, options?: ClusterRequest): Promise<ClusterResponse>;
  watch(port: number, path: string): Promise<ClusterWatch>;
  logs(name: string): Promise<string>;
  /** cluster-down.mjs: every process stopped by PID, the folder removed. */
  stop(): Promise<void>;
}

/** Starts the cluster with scripts/cluster-up.mjs in a new temporary folder. */
export async function startCluster(extraArgs: string[] = []): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-cluster-'));
  const down = async (): Promise<void> => {
    await run(process.execPath, [join(ROOT, 'scripts/cluster-down.mjs'), `--dir=${dir}`], { cwd: ROOT });
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run(process.execPath, [join(ROOT, 'scripts/cluster-up.mjs'), `--dir=${dir}`, ...extraArgs], { cwd: ROOT, timeout: 240_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    await down().catch(() => undefined);
    throw new Error(`cluster-up failed: ${stderr || String(error)}`);
  }
  const state = JSON.parse(await readFile(join(dir, 'cluster.json'), 'utf8')) as ClusterState;
  const ca = await readFile(state.caFile, 'utf8');
  const auth = { authorization: `Bearer ${state.token}` };

  return {
    state,
    ca,
    request: (port, path, options = {}) =>
      new Promise((resolve, reject) => {
        const body = options.body === undefined ? undefined : JSON.stringify(options.body);
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: options.method ?? 'GET',
            ca,
            agent: options.agent ?? false,
            timeout: options.timeoutMs ?? 10_000,
            headers: { ...auth, ...(body !== undefined && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) });
            });
          },
        );
        req.on('timeout', () => req.destroy(new Error(`no response within ${options.timeoutMs ?? 10_000} ms`)));
        req.on('error', reject);
        req.end(body);
      }),
    watch: (port, path) =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, ca, agent: false, headers: auth }, (res) => {
          const lines: string[] = [];
          let buffer = '';
          let ended = false;
          res.setEncoding('utf8').on('data', (chunk: string) => {
            buffer += chunk;
            const parts = buffer.split('\n');
            buffer = parts.pop()!;
            lines.push(...parts.filter((line) => line.trim()));
          });
          res.on('end', () => (ended = true));
          res.on('error', () => (ended = true));
          resolve({
            status: res.statusCode ?? 0,
            async next(timeoutMs = 10_000) {
              const deadline = Date.now() + timeoutMs;
              while (lines.length === 0 && !ended) {
                if (Date.now() > deadline) throw new Error(`no watch event within ${timeoutMs} ms`);
                await new Promise((wake) => setTimeout(wake, 20));
              }
              const line = lines.shift();
              return line === undefined ? undefined : JSON.parse(line);
            },
            close: () => req.destroy(),
          });
        });
        req.on('error', reject);
        req.end();
      }),
    logs: (name) => readFile(join(dir, 'logs', `${name}.log`), 'utf8').catch(() => ''),
    stop: down,
  };
}
