// The Node an agent registers and the status it reports: labels, taints and providerID at
// registration; capacity, allocatable, conditions, addresses, daemon endpoints and system info on
// every report. Names follow the API domain (kubernetes.io labels and Kubelet reasons under k8s.io).
import type { Node, NodeCondition, NodeStatus, Taint } from '@plat/api';
import { allocatableOf, capacityOf, type ReservationConfig } from './allocatable.js';
import type { Machine } from './machine.js';

/** The version the agent reports as its kubelet version: the API release it implements. */
export const AGENT_VERSION = 'v1.28.0';
/** The simulated runtime's name and version, as a container runtime version is written. */
export const RUNTIME_VERSION = 'simulated://0.1.0';

export const wellKnownPrefix = (domain: string): string => (domain === 'k8s.io' ? 'kubernetes.io' : domain);

export interface NodeFacts extends ReservationConfig {
  name: string;
  domain: string;
  machine: Machine;
  /** The secured server's port (daemonEndpoints). */
  port: number;
  providerID?: string;
  registerWithTaints?: readonly { key?: string; value?: string; effect?: string; timeAdded?: string }[];
}

/** The labels the agent keeps on its Node: hostname, OS and architecture (with their beta names). */
export function defaultLabels(facts: NodeFacts): Record<string, string> {
  const prefix = wellKnownPrefix(facts.domain);
  return {
    [`beta.${prefix}/arch`]: facts.machine.architecture,
    [`beta.${prefix}/os`]: facts.machine.operatingSystem,
    [`${prefix}/arch`]: facts.machine.architecture,
    [`${prefix}/hostname`]: facts.machine.hostname,
    [`${prefix}/os`]: facts.machine.operatingSystem,
  };
}

/** The Node to create when none exists: its status is the first report. */
export function nodeToRegister(facts: NodeFacts, conditions: NodeCondition[]): Node {
  const taints: Taint[] = (facts.registerWithTaints ?? []).map((t) => ({
    key: t.key ?? '',
    effect: t.effect ?? '',
    ...(t.value && { value: t.value }),
    ...(t.timeAdded && { timeAdded: t.timeAdded }),
  }));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: facts.name, labels: defaultLabels(facts) },
    spec: { ...(facts.providerID && { providerID: facts.providerID }), ...(taints.length && { taints }) },
    status: nodeStatus(facts, conditions),
  };
}

/** What the agent reports of its node, given the conditions to report. */
export function nodeStatus(facts: NodeFacts, conditions: NodeCondition[]): NodeStatus {
  const { machine } = facts;
  const capacity = capacityOf(machine, facts.maxPods);
  return {
    capacity,
    allocatable: allocatableOf(capacity, facts),
    conditions,
    addresses: [
      { type: 'InternalIP', address: machine.internalIP },
      { type: 'Hostname', address: machine.hostname },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: facts.port } },
    nodeInfo: {
      machineID: machine.machineID,
      systemUUID: machine.systemUUID,
      bootID: machine.bootID,
      kernelVersion: machine.kernelVersion,
      osImage: machine.osImage,
      containerRuntimeVersion: RUNTIME_VERSION,
      kubeletVersion: AGENT_VERSION,
      kubeProxyVersion: '',
      operatingSystem: machine.operatingSystem,
      architecture: machine.architecture,
    },
  };
}

/** Why the node is or is not ready, as the agent reports it. */
export type Readiness = { ready: true } | { ready: false; message: string };

/**
 * The four conditions the agent reports, each status carried over from `previous` with its
 * transition time when unchanged, and heartbeats set to `now`. The pressures are False: the
 * simulated runtime has no pods to evict.
 */
export function nodeConditions(domain: string, readiness: Readiness, previous: readonly NodeCondition[] | undefined, now: string): NodeCondition[] {
  // Upstream's reasons name the kubelet; ours the agent, except under Kubernetes' names.
  const who = domain === 'k8s.io' ? 'Kubelet' : 'Agent';
  const lower = who.toLowerCase();
  const wanted: Omit<NodeCondition, 'lastHeartbeatTime' | 'lastTransitionTime'>[] = [
    { type: 'MemoryPressure', status: 'False', reason: `${who}HasSufficientMemory`, message: `${lower} has sufficient memory available` },
    { type: 'DiskPressure', status: 'False', reason: `${who}HasNoDiskPressure`, message: `${lower} has no disk pressure` },
    { type: 'PIDPressure', status: 'False', reason: `${who}HasSufficientPID`, message: `${lower} has sufficient PID available` },
    readiness.ready
      ? {
          type: 'Ready',
          status: 'True',
          reason: `${who}Ready`,
          message: `${lower} is posting ready status; its container runtime is simulated and runs no pods`,
        }
      : { type: 'Ready', status: 'False', reason: `${who}NotReady`, message: readiness.message },
  ];
  return wanted.map((condition) => {
    const before = previous?.find((c) => c.type === condition.type);
    const transition = before && before.status === condition.status && before.lastTransitionTime ? before.lastTransitionTime : now;
    return { ...condition, lastHeartbeatTime: now, lastTransitionTime: transition };
  });
}

/** Whether two statuses differ in anything but heartbeat times (the kubelet's nodeStatusHasChanged). */
export function statusChanged(current: NodeStatus | undefined, next: NodeStatus): boolean {
  const strip = (status: NodeStatus | undefined): unknown =>
    status && { ...status, conditions: status.conditions?.map(({ lastHeartbeatTime: _h, ...rest }) => rest) };
  return JSON.stringify(canonical(strip(current))) !== JSON.stringify(canonical(strip(next)));
}

/** Objects with their keys sorted, so that equal values print the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** Go's metav1.Time: RFC 3339 in UTC, whole seconds. */
export const nowRFC3339 = (at = Date.now()): string => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
