// `plat-agent --config FILE --validate`: the defaulted configuration as YAML (exit 0), or every error (exit 1).
import { encodeNodeAgentConfigurationYaml } from '@plat/agent-config';
import type { Output } from '../output.js';
import { loadNodeAgentConfiguration } from './load-config.js';

export async function validateCommand(configFile: string, out: Output): Promise<number> {
  const config = await loadNodeAgentConfiguration(configFile, out);
  if (!config) return 1;
  out.stdout(encodeNodeAgentConfigurationYaml(config));
  return 0;
}
