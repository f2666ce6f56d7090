// Reading CredentialProviderConfig files: strict YAML or JSON.
import { decodeKind } from '../decode/decode-kind.js';
import { CREDENTIAL_PROVIDER_CONFIG_KIND } from '../group.js';
import { credentialProviderConfigSchema, type CredentialProviderConfig } from './schema.js';

/** Decodes a credential provider configuration; throws DecodeError with every unknown field, duplicate field and wrong type. */
export function decodeCredentialProviderConfig(text: string): CredentialProviderConfig {
  return decodeKind(text, CREDENTIAL_PROVIDER_CONFIG_KIND, credentialProviderConfigSchema) as CredentialProviderConfig;
}
