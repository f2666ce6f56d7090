// The config consumer (upstream's configController, priority-and-fairness-config-consumer): every
// replica watches both flowcontrol kinds (v1beta3, as upstream's informers) and hands the whole
// configuration to its FlowController on every change, within a turn of the event loop, so each
// replica applies it to its own concurrency. The Dangling condition each FlowSchema should carry is
// written to its status by server-side apply, forced, only when it differs from what the object has;
// every replica may write it, and the writes agree. Borrowing is adjusted every 10 s.
import type { Logger } from 'pino';
import { BORROWING_ADJUSTMENT_PERIOD_MS, type DanglingCondition, type FlowController, type FlowSchema, type PriorityLevelConfiguration } from '@plat/flowcontrol';
import { StoreInformer, type KubeObject, type ResourceStore } from '@plat/registry';

/** Upstream's field manager for the Dangling condition. */
export const CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}
type FlowSchemaObject = KubeObject & FlowSchema & { status?: { conditions?: Condition[] } };
type PriorityLevelObject = KubeObject & PriorityLevelConfiguration;

/** Go's time.RFC3339 at a second's precision, as metav1.Time is written. */
const now = (): string => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export class ConfigConsumer {
  private readonly flowSchemas = new Map<string, FlowSchemaObject>();
  private readonly priorityLevels = new Map<string, PriorityLevelObject>();
  private readonly fsInformer: StoreInformer<FlowSchemaObject>;
  private readonly plInformer: StoreInformer<PriorityLevelObject>;
  private scheduled = false;
  private borrowing: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Conditions being written, by FlowSchema name, so one change is written once. */
  private readonly writing = new Map<string, string>();

  constructor(
    private readonly controller: FlowController,
    private readonly stores: { flowSchemas: ResourceStore; priorityLevels: ResourceStore; apiVersion: string },
    private readonly logger: Logger,
  ) {
    const keep = <T extends KubeObject>(map: Map<string, T>) => ({
      replace: (items: readonly T[]) => {
        map.clear();
        for (const item of items) map.set(item.metadata.name!, item);
        this.schedule();
      },
      upsert: (item: T) => {
        map.set(item.metadata.name!, item);
        this.schedule();
      },
      remove: (item: T) => {
        map.delete(item.metadata.name!);
        this.schedule();
      },
    });
    this.fsInformer = new StoreInformer('flowschemas', stores.flowSchemas, keep(this.flowSchemas), logger);
    this.plInformer = new StoreInformer('prioritylevelconfigurations', stores.priorityLevels, keep(this.priorityLevels), logger);
  }

  /** Both kinds listed once. */
  get synced(): boolean {
    return this.fsInformer.synced && this.plInformer.synced;
  }

  start(): void {
    this.fsInformer.start();
    this.plInformer.start();
    this.borrowing = setInterval(() => this.controller.adjustBorrowing(), BORROWING_ADJUSTMENT_PERIOD_MS);
    this.borrowing.unref();
  }

  stop(): void {
    this.stopped = true;
    this.fsInformer.stop();
    this.plInformer.stop();
    clearInterval(this.borrowing);
  }

  /** Changes that come together (a list, a burst of events) are digested once. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.stopped) this.digest();
    });
  }

  private digest(): void {
    // Until both kinds are listed, the configuration would be half of one.
    if (!this.synced) return;
    const result = this.controller.configure([...this.priorityLevels.values()], [...this.flowSchemas.values()]);
    for (const warning of result.warnings) this.logger.warn(warning);
    for (const { flowSchema, condition } of result.dangling) {
      const fs = this.flowSchemas.get(flowSchema);
      if (fs && !sameCondition(fs.status?.conditions?.find((c) => c.type === 'Dangling'), condition)) void this.writeCondition(fs, condition);
    }
  }

  private async writeCondition(fs: FlowSchemaObject, condition: DanglingCondition): Promise<void> {
    const name = fs.metadata.name!;
    const key = JSON.stringify(condition);
    if (this.writing.get(name) === key) return;
    this.writing.set(name, key);
    const patch = {
      apiVersion: this.stores.apiVersion,
      kind: 'FlowSchema',
      metadata: { name },
      status: { conditions: [{ ...condition, lastTransitionTime: now() }] },
    };
    try {
      await this.stores.flowSchemas.patchSubresource('', name, 'status', { type: 'apply', patch, manager: CONSUMER_FIELD_MANAGER, force: true });
    } catch (error) {
      // The object may be gone (404) or changing; its next event brings the condition back here.
      this.logger.debug({ err: error, flowSchema: name }, 'priority and fairness: writing the Dangling condition failed');
    } finally {
      if (this.writing.get(name) === key) this.writing.delete(name);
    }
  }
}

function sameCondition(had: Condition | undefined, want: DanglingCondition): boolean {
  return had !== undefined && had.status === want.status && had.reason === want.reason && had.message === want.message;
}
