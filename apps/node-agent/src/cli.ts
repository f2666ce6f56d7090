// plat-agent as a function of its arguments: parses them, runs the command, and returns the exit status.
import { credentialsCommand } from './commands/credentials.js';
import { dumpDefaultsCommand } from './commands/dump-defaults.js';
import { runCommand } from './commands/run.js';
import { validateCommand } from './commands/validate.js';
import { parseCommandLine, usage, UsageError, type Command } from './command-line.js';
import type { Output } from './output.js';

export const PROGRAM = 'plat-agent';

/** 0 on success, 1 when the command failed, 2 for a mistake on the command line. */
export async function runCli(argv: readonly string[], out: Output): Promise<number> {
  let command: Command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out.stderr(`Error: ${error.message}\n`);
    return 2;
  }
  switch (command.kind) {
    case 'help':
      out.stdout(usage(PROGRAM));
      return 0;
    case 'validate':
      return validateCommand(command.configFile, out);
    case 'dump-defaults':
      return dumpDefaultsCommand(out);
    case 'credentials':
      return credentialsCommand(command, out);
    case 'run':
      return runCommand(command, out);
  }
}
