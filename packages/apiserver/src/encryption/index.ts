// Encryption at rest: --encryption-provider-config's file, the transformers it makes, their metrics.
export {
  EncryptionConfigError,
  parseEncryptionConfiguration,
  validateEncryptionConfiguration,
  type EncryptionConfiguration,
} from './encryption-config.js';
export { encryptionTransformers } from './transformers.js';
export { TransformationMetrics } from './transformation-metrics.js';
