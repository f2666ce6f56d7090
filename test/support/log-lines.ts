// The JSON log lines (pino's) a process under test writes, and waiting for one by its message.

export interface LogLine {
  msg?: string;
  [field: string]: unknown;
}

export interface LogLines {
  /** The lines whose msg is `message`. */
  lines(message: string): LogLine[];
  /** Resolves with the first line whose msg is `message`; fails once the process has exited, or after `timeoutMs`. */
  waitForLog(message: string, timeoutMs: number): Promise<LogLine>;
}

/** Over `output()`, the process's output so far; `exitCode()` is null while it runs; `what` names it in errors. */
export function logLines(what: string, output: () => string, exitCode: () => number | null): LogLines {
  const lines = (message: string): LogLine[] =>
    output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.msg === message);
  const waitForLog = async (message: string, timeoutMs: number): Promise<LogLine> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines(message)[0];
      if (found) return found;
      if (exitCode() !== null) throw new Error(`${what} exited with ${exitCode()} before logging "${message}":\n${output()}`);
      if (Date.now() > deadline) throw new Error(`${what} did not log "${message}" within ${timeoutMs} ms:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { lines, waitForLog };
}
