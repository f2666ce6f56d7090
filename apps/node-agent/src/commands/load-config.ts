// Loading the agent's configuration file: read, decoded as upstream's agent decodes it (unknown and
// duplicate fields are warnings), defaulted and validated, every problem of the file reported at once.
import { readFile } from 'node:fs/promises';
import {
  DecodeError,
  DuplicateField,
  decodeNodeAgentConfigurationLeniently,
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
  let decoded: ReturnType<typeof decodeNodeAgentConfigurationLeniently>;
  try {
    decoded = decodeNodeAgentConfigurationLeniently(text);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    printProblems(out, `${file} could not be decoded as a NodeAgentConfiguration (${count(error.problems)})`, error.problems);
    return undefined;
  }
  // Upstream logs strict decoding's problems and goes on leniently.
  for (const problem of decoded.warnings) {
    const outcome = problem instanceof DuplicateField ? 'the last value is used' : 'the field is ignored';
    out.stderr(`Warning: ${file}: ${String(problem)} (decoded leniently: ${outcome})\n`);
  }
  const config = setDefaults(decoded.config);
  for (const warning of nodeAgentConfigurationWarnings(config)) out.stderr(`Warning: ${warning}\n`);
  // Values that did not decode are left to their defaults so that validation sees the rest.
  const errors = [...decoded.errors, ...validateNodeAgentConfiguration(config)];
  if (errors.length) {
    printProblems(out, `${file} is not a valid NodeAgentConfiguration (${count(errors)})`, errors);
    return undefined;
  }
  return config;
}
