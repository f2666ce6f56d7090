// The versions of the exec plugin protocol (CredentialProviderRequest and CredentialProviderResponse) that the agent speaks.

export const CREDENTIAL_PROVIDER_GROUP = 'credentialprovider.agent.plat.io';

/** Supported values of a provider's apiVersion; the plugin must answer in the version it was asked in. */
export const CREDENTIAL_PROVIDER_API_VERSIONS: readonly string[] = ['v1', 'v1beta1', 'v1alpha1'].map((version) => `${CREDENTIAL_PROVIDER_GROUP}/${version}`);

export const REQUEST_KIND = 'CredentialProviderRequest';
export const RESPONSE_KIND = 'CredentialProviderResponse';
