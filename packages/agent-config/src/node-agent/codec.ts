// Reading and writing NodeAgentConfiguration files: strict YAML or JSON in, YAML out.
import { decodeKind } from '../decode/decode-kind.js';
import { encode, encodeYaml } from '../decode/encode.js';
import { NODE_AGENT_CONFIGURATION_KIND } from '../group.js';
import { nodeAgentConfigurationSchema, type NodeAgentConfiguration } from './schema.js';

/** Decodes a configuration file; throws DecodeError with every unknown field, duplicate field and wrong type. */
export function decodeNodeAgentConfiguration(text: string): NodeAgentConfiguration {
  return decodeKind(text, NODE_AGENT_CONFIGURATION_KIND, nodeAgentConfigurationSchema) as NodeAgentConfiguration;
}

/** The configuration as YAML, fields in the spec's order, unset fields left out. */
export function encodeNodeAgentConfigurationYaml(config: NodeAgentConfiguration): string {
  return encodeYaml(config, nodeAgentConfigurationSchema);
}

/** The configuration as JSON data, durations as Go text. */
export function encodeNodeAgentConfiguration(config: NodeAgentConfiguration): unknown {
  return encode(config, nodeAgentConfigurationSchema);
}
