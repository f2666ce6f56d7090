// `plat-agent --dump-defaults`: the configuration an empty file becomes, every default filled in.
import { encodeNodeAgentConfigurationYaml, setDefaults } from '@plat/agent-config';
import type { Output } from '../output.js';

export function dumpDefaultsCommand(out: Output): number {
  out.stdout(encodeNodeAgentConfigurationYaml(setDefaults({})));
  return 0;
}
