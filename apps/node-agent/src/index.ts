// plat-agent's command line as a library, for tests and tools; the binary itself is main.ts.
export { runCli, PROGRAM } from './cli.js';
export { parseCommandLine, usage, UsageError, type Command } from './command-line.js';
export type { Output } from './output.js';
