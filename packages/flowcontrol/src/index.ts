// API Priority and Fairness, the pure core: what the server's filter, config consumer, metrics
// and debug endpoints use. No I/O and no timers but the injected clock's.
export * from './types.js';
