// Validation of cgroups and the resource managers: cgroup driver and root, CPU, memory and topology managers, QoS reservation, CFS quota, swap.
import { forbidden, formatDuration, invalid, notSupported, type FieldError } from '@plat/apimachinery';
import { DEFAULT_CFS_QUOTA_PERIOD_MS } from './defaults.js';
import { hasEntries, path, requireGates, type ValidationContext } from './validate-helpers.js';

const CGROUP_DRIVERS = ['cgroupfs', 'systemd'];
// The spec's defaults are "None" (CPU) and "none" (memory), so the policy names are compared without case.
const CPU_MANAGER_POLICIES = ['none', 'static'];
const MEMORY_MANAGER_POLICIES = ['none', 'static'];
const TOPOLOGY_MANAGER_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'];
const TOPOLOGY_MANAGER_SCOPES = ['container', 'pod'];
const SWAP_BEHAVIORS = ['', 'LimitedSwap', 'UnlimitedSwap'];

export function validateManagers({ config: c, gates }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  const driver = c.cgroupDriver ?? '';
  if (!CGROUP_DRIVERS.includes(driver)) errors.push(notSupported(path('cgroupDriver'), driver, CGROUP_DRIVERS));
  if (c.systemCgroups && !c.cgroupRoot) errors.push(invalid(path('systemCgroups'), c.systemCgroups, 'requires cgroupRoot to be set'));

  const cpuPolicy = (c.cpuManagerPolicy ?? '').toLowerCase();
  if (!CPU_MANAGER_POLICIES.includes(cpuPolicy)) errors.push(notSupported(path('cpuManagerPolicy'), c.cpuManagerPolicy, CPU_MANAGER_POLICIES));
  else if (cpuPolicy !== 'none') requireGates(errors, gates, path('cpuManagerPolicy'), 'CPUManager');
  if (hasEntries(c.cpuManagerPolicyOptions)) requireGates(errors, gates, path('cpuManagerPolicyOptions'), 'CPUManager', 'CPUManagerPolicyOptions');

  const memoryPolicy = (c.memoryManagerPolicy ?? '').toLowerCase();
  if (!MEMORY_MANAGER_POLICIES.includes(memoryPolicy)) errors.push(notSupported(path('memoryManagerPolicy'), c.memoryManagerPolicy, MEMORY_MANAGER_POLICIES));
  else if (memoryPolicy !== 'none') requireGates(errors, gates, path('memoryManagerPolicy'), 'MemoryManager');

  const topologyPolicy = c.topologyManagerPolicy ?? '';
  if (!TOPOLOGY_MANAGER_POLICIES.includes(topologyPolicy)) errors.push(notSupported(path('topologyManagerPolicy'), topologyPolicy, TOPOLOGY_MANAGER_POLICIES));
  const scope = c.topologyManagerScope ?? '';
  if (!TOPOLOGY_MANAGER_SCOPES.includes(scope)) errors.push(notSupported(path('topologyManagerScope'), scope, TOPOLOGY_MANAGER_SCOPES));
  if (hasEntries(c.topologyManagerPolicyOptions)) requireGates(errors, gates, path('topologyManagerPolicyOptions'), 'TopologyManager', 'TopologyManagerPolicyOptions');

  if (hasEntries(c.qosReserved)) requireGates(errors, gates, path('qosReserved'), 'QOSReserved');
  for (const [resource, value] of Object.entries(c.qosReserved ?? {})) {
    const at = path('qosReserved').key(resource);
    if (resource !== 'memory') errors.push(notSupported(at, resource, ['memory']));
    const match = /^(-?\d+)%$/.exec(value);
    if (!match) errors.push(invalid(at, value, 'must be a percentage such as "50%"'));
    else if (Number(match[1]) < 0 || Number(match[1]) > 100) errors.push(invalid(at, value, 'percentage must be between 0 and 100'));
  }

  const period = c.cpuCFSQuotaPeriod ?? DEFAULT_CFS_QUOTA_PERIOD_MS;
  if (!gates.enabled('CustomCPUCFSQuotaPeriod')) {
    if (period !== DEFAULT_CFS_QUOTA_PERIOD_MS) errors.push(forbidden(path('cpuCFSQuotaPeriod'), `${formatDuration(period)} requires feature gate CustomCPUCFSQuotaPeriod`));
  } else if (period < 1 || period > 1000) {
    errors.push(invalid(path('cpuCFSQuotaPeriod'), formatDuration(period), 'must be between 1ms and 1s, inclusive'));
  }

  if (c.memoryThrottlingFactor !== undefined && (c.memoryThrottlingFactor <= 0 || c.memoryThrottlingFactor > 1)) {
    errors.push(invalid(path('memoryThrottlingFactor'), c.memoryThrottlingFactor, 'must be greater than 0 and less than or equal to 1.0'));
  }
  if (c.memoryThrottlingFactor === undefined && gates.enabled('MemoryQoS')) {
    errors.push(invalid(path('memoryThrottlingFactor'), null, 'is required when feature gate MemoryQoS is enabled'));
  }

  const swap = c.memorySwap?.swapBehavior ?? '';
  if (swap && !gates.enabled('NodeSwap')) errors.push(forbidden(path('memorySwap', 'swapBehavior'), 'requires feature gate NodeSwap'));
  else if (!SWAP_BEHAVIORS.includes(swap)) errors.push(notSupported(path('memorySwap', 'swapBehavior'), swap, SWAP_BEHAVIORS));
  return errors;
}
