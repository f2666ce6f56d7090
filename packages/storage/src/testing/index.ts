// Test support shared by every package: the storage conformance suite and throwaway etcd.
export { runStorageConformance, type ConformanceOptions } from './conformance.js';
export {
  startEtcd,
  startEtcdCluster,
  type EtcdCertificates,
  type EtcdCluster,
  type EtcdClusterOptions,
  type EtcdMember,
  type EtcdOptions,
  type EtcdProcess,
} from './etcd-process.js';
export { freePort } from './free-port.js';
export { startThrottledProxy, type ThrottledProxy } from './throttled-proxy.js';
export { startFaultProxy, type FaultProxy } from './fault-proxy.js';
export { makeEtcdCertificates, clientTls } from './etcd-certs.js';
export { sharedEtcd, SHARED_ETCD_VARIABLE, type TestEtcd } from './shared-etcd.js';
