// The Events an agent records about its Node, as upstream's kubelet records them: Starting when it
// starts, one event a condition each time the status it posts changes that condition's status
// (NodeHasSufficientMemory, NodeReady, ...), and Shutdown when a graceful shutdown begins. They are
// recorded after the post that made the change, so a post that failed records nothing. The reference
// is upstream's nodeRef: kind Node, the node's name as its uid (the kubelet may not know the uid
// yet; kubectl describe node looks for both), no namespace, so the events go to `default`.
import type { NodeCondition } from '@plat/api';
import type { EventRecorder, ObjectReference } from '@plat/client';

/** The event reason of each condition status the agent reports, in upstream's order of setters. */
const REASONS: Record<string, { True: string; other: string }> = {
  MemoryPressure: { True: 'NodeHasInsufficientMemory', other: 'NodeHasSufficientMemory' },
  DiskPressure: { True: 'NodeHasDiskPressure', other: 'NodeHasNoDiskPressure' },
  PIDPressure: { True: 'NodeHasInsufficientPID', other: 'NodeHasSufficientPID' },
  Ready: { True: 'NodeReady', other: 'NodeNotReady' },
};

/**
 * The reasons to record for a change from `before` to `after` (undefined before registration): one
 * for each condition of `after` whose status is new or changed. An Unknown status (the node
 * lifecycle controller's) is never the agent's own, and records nothing.
 */
export function conditionEvents(before: readonly NodeCondition[] | undefined, after: readonly NodeCondition[]): string[] {
  const reasons: string[] = [];
  for (const [type, reason] of Object.entries(REASONS)) {
    const next = after.find((c) => c.type === type);
    if (!next || next.status === 'Unknown') continue;
    if (before?.find((c) => c.type === type)?.status === next.status) continue;
    reasons.push(next.status === 'True' ? reason.True : reason.other);
  }
  return reasons;
}

/** Who records: the events' source component and the name in their messages (upstream's kubelet under k8s.io). */
export const agentComponent = (domain: string): string => (domain === 'k8s.io' ? 'kubelet' : 'plat-agent');

export class NodeEvents {
  private readonly ref: ObjectReference;

  constructor(
    private readonly recorder: EventRecorder,
    private readonly nodeName: string,
    /** The agent's name in messages (agentComponent). */
    private readonly program: string,
  ) {
    this.ref = { kind: 'Node', name: nodeName, uid: nodeName };
  }

  /** Upstream's BirthCry. */
  starting(): void {
    this.recorder.event(this.ref, 'Normal', 'Starting', `Starting ${this.program}.`);
  }

  /** After a post (or the registration) changed the conditions from `before` to `after`. */
  conditionsChanged(before: readonly NodeCondition[] | undefined, after: readonly NodeCondition[]): void {
    for (const reason of conditionEvents(before, after)) {
      this.recorder.event(this.ref, 'Normal', reason, `Node ${this.nodeName} status is now: ${reason}`);
    }
  }

  /** A graceful shutdown begins (upstream's shutdown manager). */
  shuttingDown(): void {
    this.recorder.event(this.ref, 'Normal', 'Shutdown', 'Shutdown manager detected shutdown event');
  }

  /** Waits for what is queued to be written, at most `timeoutMs`, then writes nothing more. */
  async close(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.recorder.flush(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    this.recorder.stop();
  }
}
