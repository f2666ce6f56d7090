// Test support shared by every package: the storage conformance suite and a throwaway etcd.
export { runStorageConformance, type ConformanceOptions } from './conformance.js';
export { startEtcd, type EtcdOptions, type EtcdProcess } from './etcd-process.js';
export { freePort } from './free-port.js';
export { startThrottledProxy, type ThrottledProxy } from './throttled-proxy.js';
