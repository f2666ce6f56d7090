// A typed REST client of the API with list-watch informers, a rate-limited work queue and Lease
// leader election, for the controller-manager and other components that talk to the API.
export { Client, InformerFactory } from './client.js';
export { loadKubeconfig, parseKubeconfig, KubeconfigError, type ClientConfig, type ObjectCodec } from './kubeconfig.js';
export { TokenBucket, type TokenBucketOptions } from './rate-limiter.js';
export { RestClient, NetworkError, responseError, queryString, type RestRequest, type QueryValue } from './rest.js';
export {
  ResourceClient,
  type ListOptions,
  type WatchOptions,
  type WriteOptions,
  type UpdateOptions,
  type DeleteOptions,
  type PatchOptions,
  type PatchType,
} from './resource.js';
export { WatchStream, WatchBrokenError } from './watch.js';
export { DiscoveryClient, supportsVerbs, type APIResource, type APIGroup, type DiscoveryResult } from './discovery.js';
export { Informer, type InformerOptions, type ResourceEventHandler } from './informer.js';
export {
  RateLimitingQueue,
  ItemExponentialRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  runWorkers,
  Requeue,
  type RateLimiter,
  type WorkQueueMetrics,
  type WorkQueueMetricsProvider,
  type WorkQueueOptions,
} from './work-queue.js';
export {
  LeaderElector,
  leaseResource,
  microTime,
  JITTER_FACTOR,
  type LeaderElectionConfig,
  type LeaderElectionRecord,
  type LeaderCallbacks,
} from './leader-election.js';
export { Backoff, sleep, jitter, type BackoffOptions } from './backoff.js';
export { silentLogger, type Logger } from './logger.js';
export {
  objectKey,
  groupVersionString,
  parseApiVersion,
  type KubeObject,
  type ObjectMeta,
  type OwnerReference,
  type ObjectList,
  type ListMeta,
  type WatchEvent,
  type WatchEventType,
  type ResourceRef,
  type PropagationPolicy,
  type Preconditions,
} from './types.js';
export { EventRecorder, referenceTo, type EventRecorderOptions, type EventType, type ObjectReference, type CoreEvent } from './events/event-recorder.js';
export { EventCorrelator, eventKey, type CorrelatorOptions, type Correlated } from './events/event-correlator.js';
