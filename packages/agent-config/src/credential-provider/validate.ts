// CredentialProviderConfig validation: providers present, names plain and unique, supported apiVersions, valid matchImages, a cache duration, complete env vars.
import { duplicate, formatDuration, invalid, newPath, notSupported, required, type FieldError } from '@plat/apimachinery';
import { CREDENTIAL_PROVIDER_API_VERSIONS } from './api-versions.js';
import { parseImagePattern } from './match-image.js';
import type { CredentialProviderConfig } from './schema.js';

/** Validates the configuration; an empty list means it is valid. */
export function validateCredentialProviderConfig(config: CredentialProviderConfig): FieldError[] {
  const errors: FieldError[] = [];
  const providers = config.providers ?? [];
  if (providers.length === 0) errors.push(required(newPath('providers'), 'at least 1 item in providers is required'));
  const names = new Set<string>();
  providers.forEach((provider, i) => {
    const at = newPath('providers').index(i);
    const name = provider.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    else if (name.includes('/')) errors.push(invalid(at.child('name'), name, "provider name cannot contain '/'"));
    else if (/\s/.test(name)) errors.push(invalid(at.child('name'), name, 'provider name cannot contain spaces'));
    else if (name === '.' || name === '..') errors.push(invalid(at.child('name'), name, `provider name cannot be '${name}'`));
    if (name && names.has(name)) errors.push(duplicate(at.child('name'), name));
    names.add(name);

    if (!provider.apiVersion) errors.push(required(at.child('apiVersion')));
    else if (!CREDENTIAL_PROVIDER_API_VERSIONS.includes(provider.apiVersion)) {
      errors.push(notSupported(at.child('apiVersion'), provider.apiVersion, CREDENTIAL_PROVIDER_API_VERSIONS));
    }

    const matchImages = provider.matchImages ?? [];
    if (matchImages.length === 0) errors.push(required(at.child('matchImages'), 'at least 1 item in matchImages is required'));
    matchImages.forEach((pattern, j) => {
      try {
        parseImagePattern(pattern);
      } catch (error) {
        errors.push(invalid(at.child('matchImages').index(j), pattern, `match image is invalid: ${(error as Error).message}`));
      }
    });

    if (provider.defaultCacheDuration === undefined) errors.push(required(at.child('defaultCacheDuration')));
    else if (provider.defaultCacheDuration < 0) {
      errors.push(invalid(at.child('defaultCacheDuration'), formatDuration(provider.defaultCacheDuration), 'must be greater than or equal to 0'));
    }

    (provider.env ?? []).forEach((variable, j) => {
      const envAt = at.child('env').index(j);
      if (!variable.name) errors.push(required(envAt.child('name')));
      else if (variable.name.includes('=')) errors.push(invalid(envAt.child('name'), variable.name, "must not contain '='"));
      if (variable.value === undefined) errors.push(required(envAt.child('value')));
    });
  });
  return errors;
}
