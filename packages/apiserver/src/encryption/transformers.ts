// What an EncryptionConfiguration makes: one chain of providers per listed resource (the first
// writes, all read), each provider a chain of its keys, as upstream builds them, so that values
// are stored as k8s:enc:<provider>:v1:<key name>:<ciphertext>.
import {
  AesCbcTransformer,
  AesGcmTransformer,
  PrefixTransformers,
  ResourceTransformers,
  SecretboxTransformer,
  identityTransformer,
  type GroupResourcePattern,
  type PrefixedTransformer,
  type TransformationObserver,
  type ValueTransformer,
} from '@plat/storage';
import {
  EncryptionConfigError,
  decodeStdBase64,
  parseGroupResource,
  type EncryptionConfiguration,
  type EncryptionKey,
  type ProviderConfiguration,
} from './encryption-config.js';

export function encryptionTransformers(config: EncryptionConfiguration, observer?: TransformationObserver): ResourceTransformers {
  // A resource listed in several entries reads through all their providers, the first entry's writing.
  const byResource = new Map<string, { pattern: GroupResourcePattern; providers: PrefixedTransformer[] }>();
  for (const entry of config.resources) {
    const providers = entry.providers.map((provider) => providerTransformer(provider, observer));
    for (const name of entry.resources) {
      const pattern = parseGroupResource(name);
      const id = `${pattern.resource}.${pattern.group}`;
      const found = byResource.get(id) ?? { pattern, providers: [] };
      found.providers.push(...providers);
      byResource.set(id, found);
    }
  }
  return new ResourceTransformers(
    [...byResource.values()].map(({ pattern, providers }) => [pattern, new PrefixTransformers(providers, 'no matching prefix found', observer)] as const),
  );
}

function providerTransformer(provider: ProviderConfiguration, observer?: TransformationObserver): PrefixedTransformer {
  if (provider.aesgcm) {
    return keyedProvider('aesgcm', provider.aesgcm.keys, (key) => new AesGcmTransformer(key), 'no matching key was found for the provided AES transformer', observer);
  }
  if (provider.aescbc) {
    return keyedProvider('aescbc', provider.aescbc.keys, (key) => new AesCbcTransformer(key), 'no matching key was found for the provided AES transformer', observer);
  }
  if (provider.secretbox) {
    return keyedProvider('secretbox', provider.secretbox.keys, (key) => new SecretboxTransformer(key), 'no matching key was found for the provided Secretbox transformer', observer);
  }
  if (provider.identity) return { prefix: '', name: 'provider identity', transformer: identityTransformer };
  if (provider.kms) {
    // Envelope encryption needs a KMS plugin over gRPC, which this server does not speak.
    throw new EncryptionConfigError(`could not configure KMS plugin "${provider.kms.name ?? ''}": KMS providers are not supported by this server; use aesgcm, aescbc or secretbox`);
  }
  throw new EncryptionConfigError('provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
}

function keyedProvider(
  name: string,
  keys: readonly EncryptionKey[],
  make: (key: Buffer) => ValueTransformer,
  noMatch: string,
  observer?: TransformationObserver,
): PrefixedTransformer {
  const keyed = keys.map((key) => {
    const secret = decodeStdBase64(key.secret);
    if (!secret) throw new EncryptionConfigError(`could not obtain secret for named key ${key.name}`);
    return { prefix: `${key.name}:`, name: `key "${key.name}"`, transformer: make(secret) };
  });
  return { prefix: `k8s:enc:${name}:v1:`, name: `provider ${name}`, transformer: new PrefixTransformers(keyed, noMatch, observer) };
}
