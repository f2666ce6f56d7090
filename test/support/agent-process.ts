// A plat-agent as a real process for end-to-end tests: its configuration and certificate folder in
// a temporary folder, free loopback ports for its secured server and healthz, its JSON log lines,
// requests to its servers, and signals by PID (SIGSTOP freezes it, SIGCONT thaws it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@plat/storage/testing';
import { logLines, type LogLine } from './log-lines.js';

const MAIN = fileURLToPath(new URL('../../../apps/node-agent/dist/bundle/plat-agent.mjs', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export interface AgentProcess {
  readonly pid: number;
  readonly name: string;
  /** The secured server's port. */
  readonly port: number;
  readonly healthzPort: number;
  readonly logs: () => string;
  lines(message: string): LogLine[];
  waitForLog(message: string, timeoutMs?: number): Promise<LogLine>;
  /** A request to the secured server, verified against the CA of its self-signed certificate. */
  secured(path: string, options?: { token?: string; method?: string }): Promise<{ status: number; body: string }>;
  /** A GET on the healthz port (plain HTTP, as the kubelet's). */
  healthz(path?: string): Promise<{ status: number; body: string }>;
  readonly exited: Promise<number | null>;
  /** Sends a signal without waiting. */
  kill(signal: NodeJS.Signals): void;
  /** SIGCONT (in case it is stopped), SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface AgentOptions {
  name: string;
  kubeconfig: string;
  apiDomain: string;
  /** NodeAgentConfiguration fields as YAML lines, after the agent's address and ports. */
  config: string;
}

/** Starts one and waits until it has registered (or adopted) its Node. */
export async function startAgent(options: AgentOptions): Promise<AgentProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-agent-'));
  const [port, healthzPort] = [await freePort(), await freePort()];
  const configFile = join(dir, 'agent.yaml');
  await writeFile(
    configFile,
    [
      'apiVersion: agent.config.plat.io/v1beta1',
      'kind: NodeAgentConfiguration',
      'address: 127.0.0.1',
      `port: ${port}`,
      'healthzBindAddress: 127.0.0.1',
      `healthzPort: ${healthzPort}`,
      options.config,
      '',
    ].join('\n'),
  );
  const certDir = join(dir, 'pki');
  const args = [`--config=${configFile}`, `--kubeconfig=${options.kubeconfig}`, `--hostname-override=${options.name}`, `--cert-dir=${certDir}`, `--api-domain=${options.apiDomain}`];
  const child: ChildProcess = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const gone = exited.then(async (code) => {
    await rm(dir, { recursive: true, force: true });
    return code;
  });
  const { lines, waitForLog: waitFor } = logLines('plat-agent', () => output, () => child.exitCode);
  const waitForLog = (message: string, timeoutMs = START_TIMEOUT_MS): Promise<LogLine> => waitFor(message, timeoutMs);
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const signal = (name: NodeJS.Signals): void => {
    if (alive()) process.kill(child.pid!, name);
  };
  try {
    await waitForLog('serving securely');
    await Promise.race([waitForLog('registered the node'), waitForLog('adopted the existing node')]);
  } catch (error) {
    signal('SIGKILL');
    await gone;
    throw error;
  }
  const ca = await readFile(join(certDir, 'plat-agent-ca.crt'), 'utf8');
  const collect = (resolve: (answer: { status: number; body: string }) => void) => (res: import('node:http').IncomingMessage) => {
    let body = '';
    res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
  };
  return {
    pid: child.pid ?? 0,
    name: options.name,
    port,
    healthzPort,
    logs: () => output,
    lines,
    waitForLog,
    secured: (path, { token, method = 'GET' } = {}) =>
      new Promise((resolve, reject) => {
        const headers = token ? { authorization: `Bearer ${token}` } : {};
        const req = httpsRequest({ host: '127.0.0.1', port, path, method, ca, servername: 'localhost', agent: false, headers }, collect(resolve));
        req.on('error', reject);
        req.end();
      }),
    healthz: (path = '/healthz') =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: healthzPort, path, agent: false }, collect(resolve));
        req.on('error', reject);
        req.end();
      }),
    exited: gone,
    kill: signal,
    async stop() {
      signal('SIGCONT');
      signal('SIGTERM');
      return gone;
    },
  };
}
