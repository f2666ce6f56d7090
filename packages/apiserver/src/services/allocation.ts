// What Services are allocated from: the ranges of --service-cluster-ip-range (upstream's messages
// when they are wrong) and --service-node-port-range, the IPAddress objects through the IPAddress
// kind's store (bound once the catalog exists: the catalog's stores are made from the wired kinds),
// and the one record of node ports in storage.
import {
  DEFAULT_NODE_PORT_RANGE,
  ipAddressObjects,
  parsePortRange,
  parseServiceClusterIPRanges,
  type ServiceAllocationWiring,
} from '@plat/api';
import type { ResourceStore } from '@plat/registry';
import type { Storage } from '@plat/storage';
import { storageNodePorts } from './node-port-record.js';

export interface ServiceRanges {
  clusterIPRange?: string;
  nodePortRange?: string;
}

/** The wiring, or an Error whose message is upstream's (the server refuses to start). */
export function serviceAllocation(ranges: ServiceRanges, storage: Storage, ipAddresses: () => ResourceStore): ServiceAllocationWiring {
  const { cidrs, errors } = parseServiceClusterIPRanges(ranges.clusterIPRange ?? '');
  if (errors.length) throw new Error(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);
  const portText = ranges.nodePortRange || DEFAULT_NODE_PORT_RANGE;
  let nodePortRange;
  try {
    nodePortRange = parsePortRange(portText);
  } catch (error) {
    throw new Error(`invalid value ${JSON.stringify(portText)} for flag --service-node-port-range: ${(error as Error).message}`);
  }
  return { clusterIPRanges: cidrs, nodePortRange, ipAddresses: ipAddressObjects(ipAddresses), nodePorts: storageNodePorts(storage, nodePortRange) };
}
