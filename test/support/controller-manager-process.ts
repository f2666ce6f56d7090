// A plat-controller-manager as a real process for end-to-end tests: its JSON log lines, its leader
// election identity, and stopping it by PID (SIGTERM to stop, SIGKILL to crash).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../apps/controller-manager/dist/main.js', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export interface LogLine {
  msg?: string;
  [field: string]: unknown;
}

export interface ControllerManagerProcess {
  readonly pid: number;
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

export async function startControllerManager(args: string[]): Promise<ControllerManagerProcess> {
  const child: ChildProcess = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const parsed = (): LogLine[] =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const lines = (message: string): LogLine[] => parsed().filter((line) => line.msg === message);
  const waitForLog = async (message: string, timeoutMs = START_TIMEOUT_MS): Promise<LogLine> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines(message)[0];
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`controller-manager exited with ${child.exitCode} before logging "${message}":\n${output}`);
      if (Date.now() > deadline) throw new Error(`controller-manager did not log "${message}" within ${timeoutMs} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const leaderElection = !args.includes('--leader-elect=false');
  const first = await waitForLog(leaderElection ? 'leader election candidate' : 'starting controller').catch((error: unknown) => {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  });
  return {
    pid: child.pid ?? 0,
    identity: leaderElection ? String(first.identity) : '',
    logs: () => output,
    lines,
    waitForLog,
    exited,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return exited;
    },
  };
}
