// Where a command writes: stdout for results, stderr for errors; an interface so that tests can run commands in-process.

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Prints a list of problems under one heading line, one problem per line. */
export function printProblems(out: Output, heading: string, problems: readonly { toString(): string }[]): void {
  out.stderr(`Error: ${heading}:\n${problems.map((problem) => `  ${String(problem)}\n`).join('')}`);
}

/** `1 error`, `3 errors`. */
export const count = (list: readonly unknown[]): string => `${list.length} error${list.length === 1 ? '' : 's'}`;
