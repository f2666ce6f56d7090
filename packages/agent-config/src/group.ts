// The API group, version and kinds of the files that configure the node agent (spec document 3).

export const GROUP = 'agent.config.plat.io';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const NODE_AGENT_CONFIGURATION_KIND = 'NodeAgentConfiguration';
export const CREDENTIAL_PROVIDER_CONFIG_KIND = 'CredentialProviderConfig';
export const SERIALIZED_NODE_CONFIG_SOURCE_KIND = 'SerializedNodeConfigSource';
