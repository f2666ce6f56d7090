// API Priority and Fairness, the pure core: what the server's filter, config consumer and
// producer, metrics and debug endpoints use. No I/O, and no timers but the injected clock's.
export * from './types.js';
export type { Clock } from './clock.js';
export { FlowController, type Admitted, type Classification, type ConfigureResult, type HandleOptions, type LevelSnapshot, type Rejected } from './controller.js';
export type { RequestDigest, RequestInfo } from './matching.js';
export type { DanglingCondition } from './flow-schemas.js';
export { mandatoryFlowSchemaCatchAll, mandatoryFlowSchemaExempt, mandatoryPriorityLevelCatchAll, mandatoryPriorityLevelExempt } from './mandatory.js';
export { serverConcurrencyLimit, type LevelLimits } from './concurrency-limits.js';
export { BORROWING_ADJUSTMENT_PERIOD_MS, type SeatDemandStats } from './seat-demand.js';
export { defaultWorkEstimatorConfig, estimateWork, type ObjectCount, type RequestDescription, type WorkEstimatorConfig, type WorkEstimatorSources } from './work-estimator.js';
export { formatSeatSeconds, type WorkEstimate } from './work-estimate.js';
export { WaitEnd, type CancelSignal, type QueueDump, type QueueSetDump, type RejectReason, type RequestDump } from './queue-set.js';
export { DroppedRequestsTracker } from './dropped-requests.js';
export { defaultRequestWaitLimitMs, requestWaitDeadline } from './wait-limit.js';
export { MAX_HASH_BITS, requiredEntropyBits } from './shuffle-sharding.js';
export { AUTO_UPDATE_ANNOTATION, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedConfiguration } from './bootstrap.js';
