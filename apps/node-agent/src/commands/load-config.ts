// Loading the agent's configuration file: read, strictly decoded, defaulted and validated, with every problem reported.
import { readFile } from 'node:fs/promises';
import {
  DecodeError,
  decodeNodeAgentConfiguration,
  nodeAgentConfigurationWarnings,
  setDefaults,
  validateNodeAgentConfiguration,
  type NodeAgentConfiguration,
} from '@plat/agent-config';
import { count, printProblems, type Output } from '../output.js';

/** The defaulted configuration, or undefined after printing why the file is not one. */
export async function loadNodeAgentConfiguration(file: string, out: Output): Promise<NodeAgentConfiguration | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    out.stderr(`Error: could not read the configuration file: ${(error as Error).message}\n`);
    return undefined;
  }
  let decoded: NodeAgentConfiguration;
  try {
    decoded = decodeNodeAgentConfiguration(text);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    printProblems(out, `${file} could not be decoded as a NodeAgentConfiguration (${count(error.problems)})`, error.problems);
    return undefined;
  }
  const config = setDefaults(decoded);
  for (const warning of nodeAgentConfigurationWarnings(config)) out.stderr(`Warning: ${warning}\n`);
  const errors = validateNodeAgentConfiguration(config);
  if (errors.length) {
    printProblems(out, `${file} is not a valid NodeAgentConfiguration (${count(errors)})`, errors);
    return undefined;
  }
  return config;
}
