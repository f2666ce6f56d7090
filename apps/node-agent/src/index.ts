// plat-agent's command line as a library, for tests and tools; the binary itself is main.ts.
export { runCli, PROGRAM } from './cli.js';
export { parseCommandLine, usage, UsageError, type Command } from './command-line.js';
export type { Output } from './output.js';
// The agent's loops without its servers, for running many in one process (bench/agents).
export { NodeAgent, type NodeAgentOptions } from './agent/node-agent.js';
export { agentClientConfig, eventClientConfig } from './agent/client-config.js';
export { NodeEvents, agentComponent } from './agent/node-events.js';
export { readMachine } from './agent/machine.js';
export type { NodeFacts } from './agent/node-object.js';
