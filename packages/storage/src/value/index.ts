// Value transformers: encryption at rest per resource, as upstream's storage/value package.
export type { TransformedValue, ValueTransformer, TransformationObserver } from './transformer.js';
export { ENCRYPTED_PREFIX } from './transformer.js';
export { identityTransformer } from './identity.js';
export { AesCbcTransformer, AesGcmTransformer, AES_KEY_LENGTHS } from './aes.js';
export { SecretboxTransformer, SECRETBOX_KEY_LENGTHS } from './secretbox.js';
export { PrefixTransformers, type PrefixedTransformer } from './prefix-transformers.js';
export { ResourceTransformers, type GroupResourcePattern } from './resource-transformers.js';
