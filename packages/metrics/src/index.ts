// The API server's Prometheus metrics: its registry and the request metrics (metrics.ts), the cheap
// series every request and storage call is counted on (cheap-metrics.ts), storage's and the watch cache's.
export { CheapCounter, CheapHistogram, type CounterSeries, type HistogramSeries } from './cheap-metrics.js';
export { ServerMetrics } from './metrics.js';
export { ObjectCounter, timedStorage } from './storage-metrics.js';
export { registerWatchCacheMetrics, resourceOfPrefix, type WatchCacheStatsSource } from './watch-cache-metrics.js';
export { FlowControlMetrics, type FlowControlLevelLimits } from './flowcontrol-metrics.js';
