// The node agent's configuration files: NodeAgentConfiguration and CredentialProviderConfig decoding, defaulting and validation, image matching and exec credential plugins.
export { API_VERSION, GROUP, VERSION, NODE_AGENT_CONFIGURATION_KIND, CREDENTIAL_PROVIDER_CONFIG_KIND, SERIALIZED_NODE_CONFIG_SOURCE_KIND } from './group.js';
export { DecodeError, DuplicateField, SyntaxProblem, UnknownField, type DecodeProblem } from './decode/problems.js';
export type { Duration, TimeOrMetaDuration } from './decode/schema.js';
export { FeatureGateSet, agentFeatureGates, type AgentFeature, type FeatureSpec, type Stage } from './feature-gates.js';
export { parseCPUList } from './cpuset.js';

export { nodeAgentConfigurationSchema, type NodeAgentConfiguration, type Taint } from './node-agent/schema.js';
export { decodeNodeAgentConfiguration, decodeNodeAgentConfigurationLeniently, encodeNodeAgentConfiguration, encodeNodeAgentConfigurationYaml } from './node-agent/codec.js';
export { setDefaults, DEFAULT_CONTAINER_RUNTIME_ENDPOINT, DEFAULT_EVICTION_HARD, DEFAULT_VOLUME_PLUGIN_DIR } from './node-agent/defaults.js';
export { nodeAgentConfigurationWarnings, validateNodeAgentConfiguration, type ValidateOptions } from './node-agent/validate.js';

export { credentialProviderConfigSchema, type CredentialProviderConfig, type CredentialProvider, type ExecEnvVar } from './credential-provider/schema.js';
export { decodeCredentialProviderConfig } from './credential-provider/codec.js';
export { decodeSerializedNodeConfigSource, serializedNodeConfigSourceSchema, type SerializedNodeConfigSource } from './node-config-source.js';
export { validateCredentialProviderConfig } from './credential-provider/validate.js';
export { checkProviderBinaries, BinDirError } from './credential-provider/provider-binaries.js';
export { CREDENTIAL_PROVIDER_API_VERSIONS, CREDENTIAL_PROVIDER_GROUP } from './credential-provider/api-versions.js';
export { matchesImage, parseImagePattern, registryOf, type ImageLocation } from './credential-provider/match-image.js';
export { execPlugin, CredentialPluginError, DEFAULT_PLUGIN_TIMEOUT_MS, type ExecPluginOptions } from './credential-provider/exec-plugin.js';
export { decodeCredentialProviderResponse, CACHE_KEY_TYPES, type AuthConfig, type AuthMap, type CacheKeyType, type CredentialProviderResponse } from './credential-provider/response.js';
export { CredentialCache } from './credential-provider/cache.js';
export { CredentialProviderPlugin, type ProviderOptions } from './credential-provider/provider.js';
export { CredentialProviderKeyring, type CredentialLookup } from './credential-provider/keyring.js';

