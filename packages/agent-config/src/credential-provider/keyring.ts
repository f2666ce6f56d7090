// All configured credential providers together: the credentials for an image from every provider that matches it, earlier providers winning.
import { CredentialProviderPlugin, type ProviderOptions } from './provider.js';
import type { AuthMap } from './response.js';
import type { CredentialProviderConfig } from './schema.js';

export interface CredentialLookup {
  /** The merged credentials; a failed provider contributes none. */
  auth: AuthMap;
  /** One error per provider that matched the image but failed. */
  errors: Error[];
}

export class CredentialProviderKeyring {
  readonly providers: readonly CredentialProviderPlugin[];

  /** The configuration must have passed validation. */
  constructor(config: CredentialProviderConfig, options: ProviderOptions) {
    this.providers = (config.providers ?? []).map((provider) => new CredentialProviderPlugin(provider, options));
  }

  async lookup(image: string): Promise<CredentialLookup> {
    const matching = this.providers.filter((provider) => provider.matches(image));
    const outcomes = await Promise.allSettled(matching.map((provider) => provider.provide(image)));
    const auth: AuthMap = {};
    const errors: Error[] = [];
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        errors.push(outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason)));
        continue;
      }
      // In list order, so an earlier provider's entry for a key stays.
      for (const [key, credentials] of Object.entries(outcome.value)) if (!Object.hasOwn(auth, key)) auth[key] = credentials;
    }
    return { auth, errors };
  }
}
