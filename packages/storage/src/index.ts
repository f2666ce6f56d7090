// The storage layer: one interface, backends chosen by name, and the conformance suite they pass.
export type * from './interface.js';
export * from './errors.js';
export { createStorage, type StorageConfig, type StorageBackendName, type EtcdEndpointEvent } from './factory.js';
export { objectKey, type KeyParts } from './keys.js';
export { EventQueue, type EventQueueOptions } from './event-queue.js';
export { CachedStorage, cachePrefix, type CachedStorageOptions, type WatchCacheStats } from './cache/cached-storage.js';
export { dryRunStorage } from './dry-run.js';
export { continueAfter, continueAtLatest } from './continue-token.js';
export * from './value/index.js';
