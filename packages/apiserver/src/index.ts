// The API server: createServer wires the packages below it into one (control-plane/), and what its
// binary needs besides: the logger, --runtime-config, --watch-cache-sizes, encryption at rest.
// Authentication, authorization, audit and serving are imported from their own packages.
export { createServer, type Server, type ServerOptions } from './server.js';
export { createLogger, logLevels, type LogLevel, type Logger } from './logger.js';
export { parseRuntimeConfig, type RuntimeConfigEntry } from './runtime-config.js';
export { DEFAULT_WATCH_CACHE_SIZES, parseWatchCacheSizes, type WatchCacheSize } from './watch-cache-sizes.js';
export { EncryptionConfigError, parseEncryptionConfiguration, encryptionTransformers, TransformationMetrics } from './encryption/index.js';
