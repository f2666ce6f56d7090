// Reading and writing NodeAgentConfiguration files: strict YAML or JSON in, YAML out.
import { decodeKind, decodeKindLeniently, type LenientDecoding } from '../decode/decode-kind.js';
import { encode, encodeYaml } from '../decode/encode.js';
import { NODE_AGENT_CONFIGURATION_KIND } from '../group.js';
import { nodeAgentConfigurationSchema, type NodeAgentConfiguration } from './schema.js';

/** Decodes a configuration file; throws DecodeError with every unknown field, duplicate field and wrong type. */
export function decodeNodeAgentConfiguration(text: string): NodeAgentConfiguration {
  return decodeKind(text, NODE_AGENT_CONFIGURATION_KIND, nodeAgentConfigurationSchema) as NodeAgentConfiguration;
}

/**
 * Decodes a configuration file as the agent does when it starts (and for --validate): unknown and
 * duplicate fields are warnings, values of the wrong type errors, and the rest of the file is
 * decoded either way. Throws DecodeError only for YAML syntax and a wrong apiVersion or kind.
 */
export function decodeNodeAgentConfigurationLeniently(text: string): Omit<LenientDecoding, 'value'> & { config: NodeAgentConfiguration } {
  const { value, warnings, errors } = decodeKindLeniently(text, NODE_AGENT_CONFIGURATION_KIND, nodeAgentConfigurationSchema);
  return { config: value as NodeAgentConfiguration, warnings, errors };
}

/** The configuration as YAML, fields in the spec's order, unset fields left out. */
export function encodeNodeAgentConfigurationYaml(config: NodeAgentConfiguration): string {
  return encodeYaml(config, nodeAgentConfigurationSchema);
}

/** The configuration as JSON data, durations as Go text. */
export function encodeNodeAgentConfiguration(config: NodeAgentConfiguration): unknown {
  return encode(config, nodeAgentConfigurationSchema);
}
