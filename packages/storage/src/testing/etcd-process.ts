// Throwaway etcd for tests: one member, or a cluster of several, each with its own temporary data
// folder and free loopback ports, plain or over TLS with client certificates, stopped by PID; without
// fsync (durability across a machine crash is not what tests test).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface EtcdProcess {
  /** The client URL, e.g. http://127.0.0.1:41234 (https:// with TLS). */
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

export interface EtcdMember extends EtcdProcess {
  readonly name: string;
  /** Freezes the process (SIGSTOP): it keeps its sockets and answers nothing. */
  freeze(): void;
  /** Lets a frozen process run again (SIGCONT). */
  thaw(): void;
  /** Whether the process is running (not killed); frozen counts as running. */
  readonly running: boolean;
  /** etcd's /health through this member: it has a leader and a quorum read succeeds. */
  healthy(): Promise<boolean>;
}

export interface EtcdCluster {
  readonly members: EtcdMember[];
  /** The members' client URLs, in order. */
  readonly endpoints: string[];
  /** Stops every member (thawing frozen ones first) and removes their data. */
  stop(): Promise<void>;
}

/** The certificates from deploy/etcd-certs.sh: ca.crt, server.crt/.key (members), client.crt/.key. */
export interface EtcdCertificates {
  dir: string;
}

const READY_TIMEOUT_MS = 20_000;

export interface EtcdOptions {
  /** etcd's periodic watch progress notifications (--experimental-watch-progress-notify-interval; etcd's default is 10 minutes). */
  progressNotifyIntervalMs?: number;
  /** Serve clients and peers over TLS, requiring client certificates signed by the CA. */
  tls?: EtcdCertificates;
}

export interface EtcdClusterOptions extends EtcdOptions {
  /** Default 3. */
  members?: number;
}

/** Every child started here, killed if the test process exits without stopping them (frozen ones included). */
const children = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const running of children) running.kill('SIGKILL');
  });
}

/** etcd's /health through its client URL, with the client certificate when TLS is on. */
function healthy(endpoint: string, tls: EtcdCertificates | undefined): Promise<boolean> {
  if (!tls) {
    return fetch(`${endpoint}/health`).then(
      async (response) => response.ok && (await response.json().catch(() => ({})) as { health?: string }).health === 'true',
      () => false,
    );
  }
  return new Promise((resolve) => {
    const url = new URL(`${endpoint}/health`);
    const req = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        ca: readFileSync(join(tls.dir, 'ca.crt')),
        cert: readFileSync(join(tls.dir, 'client.crt')),
        key: readFileSync(join(tls.dir, 'client.key')),
        agent: false,
        timeout: 1000,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')));
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function waitHealthy(endpoint: string, child: ChildProcess, tls: EtcdCertificates | undefined): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited with code ${child.exitCode} before it was ready`);
    if (await healthy(endpoint, tls)) return;
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

class PortTakenError extends Error {}

async function retryingPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

export function startEtcd(options: EtcdOptions = {}): Promise<EtcdProcess> {
  return retryingPorts(async () => (await startMembers(1, options))[0]!);
}

export function startEtcdCluster(options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  return retryingPorts(async () => {
    const members = await startMembers(options.members ?? 3, options);
    return {
      members,
      endpoints: members.map((member) => member.endpoint),
      stop: async () => {
        await Promise.all(members.map((member) => member.stop()));
      },
    };
  });
}

interface MemberPlan {
  name: string;
  folder: string;
  clientUrl: string;
  peerUrl: string;
}

async function startMembers(count: number, options: EtcdOptions): Promise<EtcdMember[]> {
  const scheme = options.tls ? 'https' : 'http';
  const plans: MemberPlan[] = [];
  for (let i = 0; i < count; i++) {
    const folder = await mkdtemp(join(tmpdir(), 'plat-etcd-'));
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    plans.push({ name: count === 1 ? 'test' : `member-${i}`, folder, clientUrl: `${scheme}://127.0.0.1:${clientPort}`, peerUrl: `${scheme}://127.0.0.1:${peerPort}` });
  }
  const initialCluster = plans.map((plan) => `${plan.name}=${plan.peerUrl}`).join(',');
  const token = randomBytes(6).toString('hex');
  const members = plans.map((plan) => member(plan, initialCluster, token, options));
  const started = await Promise.allSettled(members.map((m) => m.launch()));
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    const logs = plans.map((plan) => readFileSync(join(plan.folder, 'etcd.log'), { encoding: 'utf8', flag: 'a+' })).join('\n');
    await Promise.all(members.map((m) => m.stop()));
    if (/address already in use/.test(logs)) throw new PortTakenError(`etcd: a port was taken: ${String(failed.reason)}`);
    throw new Error(`${String(failed.reason)}\n${logs.slice(-3000)}`);
  }
  return members;
}

function member(plan: MemberPlan, initialCluster: string, token: string, options: EtcdOptions): EtcdMember & { launch(): Promise<void> } {
  const dataDir = join(plan.folder, 'data');
  const tls = options.tls;
  const file = (name: string): string => join(tls!.dir, name);
  const args = [
    `--name=${plan.name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${plan.clientUrl}`,
    `--advertise-client-urls=${plan.clientUrl}`,
    `--listen-peer-urls=${plan.peerUrl}`,
    `--initial-advertise-peer-urls=${plan.peerUrl}`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-token=${token}`,
    // etcd 3.5's default: a member that was frozen or cut off does not depose the leader when it returns.
    '--pre-vote=true',
    // A test's etcd loses nothing when it is killed (the kernel keeps what was written) and never
    // sees the machine crash, so fsync buys nothing here but waiting on the disk at every write.
    '--unsafe-no-fsync',
    '--logger=zap',
    '--log-outputs=stderr',
    '--log-level=warn',
    ...(options.progressNotifyIntervalMs === undefined ? [] : [`--experimental-watch-progress-notify-interval=${options.progressNotifyIntervalMs}ms`]),
    ...(tls
      ? [
          `--cert-file=${file('server.crt')}`,
          `--key-file=${file('server.key')}`,
          `--trusted-ca-file=${file('ca.crt')}`,
          '--client-cert-auth',
          `--peer-cert-file=${file('server.crt')}`,
          `--peer-key-file=${file('server.key')}`,
          `--peer-trusted-ca-file=${file('ca.crt')}`,
          '--peer-client-cert-auth',
        ]
      : []),
  ];
  let child: ChildProcess | undefined;
  let frozen = false;
  const launch = async (): Promise<void> => {
    const log = openSync(join(plan.folder, 'etcd.log'), 'a');
    child = spawn('etcd', args, { stdio: ['ignore', log, log] });
    track(child);
    closeSync(log);
    frozen = false;
    await waitHealthy(plan.clientUrl, child, tls);
  };
  const alive = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;
  return {
    name: plan.name,
    endpoint: plan.clientUrl,
    dataDir,
    get pid() {
      return child?.pid ?? 0;
    },
    get running() {
      return alive();
    },
    launch,
    healthy: () => healthy(plan.clientUrl, tls),
    async kill() {
      if (!child || !alive()) return;
      child.kill('SIGKILL');
      await exited(child);
    },
    restart: launch,
    freeze() {
      if (!child || !alive()) return;
      child.kill('SIGSTOP');
      frozen = true;
    },
    thaw() {
      if (!child || !frozen) return;
      child.kill('SIGCONT');
      frozen = false;
    },
    async stop() {
      if (child && alive()) {
        if (frozen) child.kill('SIGCONT');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child?.kill('SIGKILL'), 5000);
        await exited(child);
        clearTimeout(timer);
      }
      await rm(plan.folder, { recursive: true, force: true });
    },
  };
}
