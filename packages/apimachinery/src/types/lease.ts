// Lease (coordination/v1): a time-limited claim by one holder, read and written by the kind's file,
// leader election and node heartbeats alike. Its times are MicroTimes.
import type { KubeObject } from '../object.js';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** A MicroTime. */
  acquireTime?: string;
  /** A MicroTime. */
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}
