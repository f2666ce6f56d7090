// A plat-controller-manager as a real process for end-to-end tests: its JSON log lines, its leader
// election identity, its secure port (a free loopback port, its self-signed certificate in a
// temporary folder), and stopping it by PID (SIGTERM to stop, SIGKILL to crash).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@plat/storage/testing';
import { logLines, type LogLine } from './log-lines.js';

const MAIN = fileURLToPath(new URL('../../../apps/controller-manager/dist/bundle/plat-controller-manager.mjs', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export type { LogLine };

export interface ControllerManagerProcess {
  readonly pid: number;
  /** The --secure-port it serves on; 0 when started with --secure-port=0. */
  readonly securePort: number;
  /** A GET on the secure port, verified against the CA in its --cert-dir. */
  get(path: string): Promise<{ status: number; body: string }>;
  /** The leader election identity (hostname_uuid); '' without leader election. */
  readonly identity: string;
  readonly logs: () => string;
  /** Log lines whose msg is `message`. */
  lines(message: string): LogLine[];
  /** Resolves with the first line whose msg is `message`, waiting up to `timeoutMs`. */
  waitForLog(message: string, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Sends a signal (SIGKILL: a crash) without waiting. */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts one; unless `args` name a --secure-port, it serves on a free loopback port. */
export async function startControllerManager(args: string[]): Promise<ControllerManagerProcess> {
  const ownPort = !args.some((arg) => arg.startsWith('--secure-port'));
  const certDir = ownPort ? await mkdtemp(join(tmpdir(), 'plat-e2e-cm-certs-')) : undefined;
  const serving = ownPort ? ['--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, `--cert-dir=${certDir}`] : [];
  const child: ChildProcess = spawn(process.execPath, [MAIN, ...serving, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { lines, waitForLog: waitFor } = logLines('controller-manager', () => output, () => child.exitCode);
  const waitForLog = (message: string, timeoutMs = START_TIMEOUT_MS): Promise<LogLine> => waitFor(message, timeoutMs);
  const leaderElection = !args.includes('--leader-elect=false');
  const first = await waitForLog(leaderElection ? 'leader election candidate' : 'starting controller').catch(async (error: unknown) => {
    if (child.exitCode === null) child.kill('SIGKILL');
    if (certDir) await rm(certDir, { recursive: true, force: true });
    throw error;
  });
  // The port is served before leader election begins.
  const securePort = Number(lines('serving securely')[0]?.port ?? 0);
  const ca = certDir ? await readFile(join(certDir, 'plat-controller-manager-ca.crt'), 'utf8') : undefined;
  // Its certificate folder goes once it has exited, however it ended.
  const gone = exited.then(async (code) => {
    if (certDir) await rm(certDir, { recursive: true, force: true });
    return code;
  });
  return {
    pid: child.pid ?? 0,
    securePort,
    get: (path) =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: securePort, path, ...(ca ? { ca } : { rejectUnauthorized: false }), agent: false }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      }),
    identity: leaderElection ? String(first.identity) : '',
    logs: () => output,
    lines,
    waitForLog,
    exited: gone,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return gone;
    },
  };
}
