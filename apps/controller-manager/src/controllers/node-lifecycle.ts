// The node lifecycle controller (upstream's node-lifecycle-controller, its health monitoring and
// taints): every --node-monitor-period it looks at each Node's heartbeats, its Ready condition's
// lastHeartbeatTime and its Lease's renewTime. A node heard from by neither for
// --node-monitor-grace-period (--node-startup-grace-period before its first report) gets its
// conditions set to Unknown ("Kubelet stopped posting node status."). The taints follow the Ready
// condition: Unknown brings <node.prefix>/unreachable, False <node.prefix>/not-ready, each as
// NoSchedule and NoExecute; True removes them. A node comes back by itself: its agent, renewing
// again, posts Ready, and the next pass removes the taints. Its Events, as upstream's (source
// node-controller): RegisteredNode for each node it first sees (every node, after a start or a
// change of leader), RemovingNode for one gone, NodeNotReady when it marks a Ready node Unknown.
import { sleep, type KubeObject } from '@plat/client';
import { leasesRef, nodeLeaseNamespace, nodesRef, nodeTaintKey } from '../names.js';
import { isNotFound, retryOnConflict, waitForSync, type Controller } from './context.js';

interface NodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Node extends KubeObject {
  spec?: { taints?: Taint[]; [field: string]: unknown };
  status?: { conditions?: NodeCondition[]; [field: string]: unknown };
}

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; renewTime?: string };
}

export interface NodeLifecycleOptions {
  monitorPeriodMs: number;
  gracePeriodMs: number;
  startupGracePeriodMs: number;
  now?: () => number;
}

/** What the controller last saw of a node, and when (its own clock, as upstream's probeTimestamp). */
interface Health {
  heartbeat: string;
  leaseRenew: string;
  probedAt: number;
}

// The conditions upstream sets to Unknown when the node goes silent.
const MONITORED = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

const goTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The node's conditions after `silentFor` without a word: every monitored one Unknown. */
export function markedUnknown(node: Node, neverReported: boolean, at: string): NodeCondition[] {
  const reason = neverReported ? 'NodeStatusNeverUpdated' : 'NodeStatusUnknown';
  const message = neverReported ? 'Kubelet never posted node status.' : 'Kubelet stopped posting node status.';
  const conditions = [...(node.status?.conditions ?? [])];
  for (const type of MONITORED) {
    const index = conditions.findIndex((c) => c.type === type);
    const current = conditions[index];
    if (!current) {
      conditions.push({ type, status: 'Unknown', reason, message, lastHeartbeatTime: at, lastTransitionTime: at });
    } else if (current.status !== 'Unknown') {
      conditions[index] = { ...current, status: 'Unknown', reason, message, lastTransitionTime: at };
    }
  }
  return conditions;
}

/** The taints the node should carry for its Ready condition, the others it has kept as they are. */
export function desiredTaints(node: Node, domain: string, at: string): Taint[] {
  const unreachable = nodeTaintKey(domain, 'unreachable');
  const notReady = nodeTaintKey(domain, 'not-ready');
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const wanted = ready === 'Unknown' ? unreachable : ready === 'False' ? notReady : undefined;
  const current = node.spec?.taints ?? [];
  const kept = current.filter((t) => (t.key !== unreachable && t.key !== notReady) || t.key === wanted);
  if (!wanted) return kept;
  const taints = [...kept];
  for (const effect of ['NoSchedule', 'NoExecute']) {
    if (!taints.some((t) => t.key === wanted && t.effect === effect)) taints.push({ key: wanted, effect, ...(effect === 'NoExecute' && { timeAdded: at }) });
  }
  return taints;
}

const sameTaints = (a: readonly Taint[], b: readonly Taint[]): boolean =>
  a.length === b.length && a.every((t) => b.some((u) => u.key === t.key && u.effect === t.effect && (u.value ?? '') === (t.value ?? '')));

export const nodeLifecycleController =
  (options: NodeLifecycleOptions): Controller =>
  async ({ client, informers, domain, logger, events }, signal) => {
    const now = options.now ?? Date.now;
    const nodes = informers.informerFor<Node>(nodesRef);
    const leases = informers.informerFor<Lease>(leasesRef(domain), nodeLeaseNamespace(domain));
    const nodeClient = client.resource<Node>(nodesRef);
    const health = new Map<string, Health>();
    /** The nodes it knows, by name: their uids, for the events of those that go. */
    const known = new Map<string, string>();
    const nodeEvent = (name: string, uid: string, reason: string, message: string): void =>
      events.event({ apiVersion: 'v1', kind: 'Node', name, uid }, 'Normal', reason, message);

    /** Whether the node has been heard from within its grace period; records what it saw. */
    const heardFrom = (node: Node): boolean => {
      const name = node.metadata.name!;
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      const heartbeat = ready?.lastHeartbeatTime ?? '';
      const lease = leases.get(`${nodeLeaseNamespace(domain)}/${name}`);
      const leaseRenew = lease?.spec?.renewTime ?? '';
      const at = now();
      const seen = health.get(name);
      if (!seen || seen.heartbeat !== heartbeat || seen.leaseRenew !== leaseRenew) {
        health.set(name, { heartbeat, leaseRenew, probedAt: at });
        return true;
      }
      const grace = ready ? options.gracePeriodMs : options.startupGracePeriodMs;
      return at - seen.probedAt <= grace;
    };

    const markUnknown = async (name: string): Promise<void> => {
      await retryOnConflict(async () => {
        const node = await nodeClient.get(name);
        const neverReported = !node.status?.conditions?.some((c) => c.type === 'Ready');
        const conditions = markedUnknown(node, neverReported, goTime(now()));
        if (JSON.stringify(conditions) === JSON.stringify(node.status?.conditions ?? [])) return;
        await nodeClient.update({ ...node, status: { ...node.status, conditions } }, { subresource: 'status' });
        logger.info({ controller: 'node-lifecycle', node: name }, 'node stopped posting status: its conditions are Unknown');
        const wasReady = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        if (wasReady) nodeEvent(name, node.metadata.uid ?? '', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      });
    };

    const reconcileTaints = async (name: string): Promise<void> => {
      await retryOnConflict(async () => {
        const node = await nodeClient.get(name);
        const taints = desiredTaints(node, domain, goTime(now()));
        if (sameTaints(taints, node.spec?.taints ?? [])) return;
        const spec: NonNullable<Node['spec']> = { ...node.spec, taints };
        if (!taints.length) delete spec.taints;
        await nodeClient.update({ ...node, spec });
        logger.info({ controller: 'node-lifecycle', node: name, taints: taints.map((t) => `${t.key}:${t.effect}`) }, 'updated the taints of a node');
      });
    };

    const monitor = async (): Promise<void> => {
      const live = new Set<string>();
      for (const node of nodes.list()) {
        const name = node.metadata.name!;
        live.add(name);
        if (!known.has(name)) {
          known.set(name, node.metadata.uid ?? '');
          nodeEvent(name, node.metadata.uid ?? '', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
        }
        try {
          const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
          const silent = !heardFrom(node) && ready?.status !== 'Unknown';
          if (silent) await markUnknown(name);
          // The cache may not show the Unknown just written: the taints are read afresh then.
          if (silent || !sameTaints(desiredTaints(node, domain, ''), node.spec?.taints ?? [])) await reconcileTaints(name);
        } catch (err) {
          if (!isNotFound(err)) logger.warn({ err, controller: 'node-lifecycle', node: name }, 'failed to update a node; will retry');
        }
      }
      for (const name of health.keys()) if (!live.has(name)) health.delete(name);
      for (const [name, uid] of known) {
        if (live.has(name)) continue;
        known.delete(name);
        nodeEvent(name, uid, 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      }
    };

    if (!(await waitForSync(signal, nodes, leases))) return;
    while (!signal.aborted) {
      await monitor();
      await sleep(options.monitorPeriodMs, signal);
    }
  };
