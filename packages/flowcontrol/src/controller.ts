// The flow controller (upstream's configController and its Handle): it digests the FlowSchemas and
// PriorityLevelConfigurations into one queue set per level with its share of the server's
// concurrency, classifies each request, and admits it, queues it or rejects it. The server's
// filter calls handle() and, once admitted, runs the request and calls finish() (for a watch, when
// its initialization is done); the config consumer calls configure() on every change, and the
// server calls adjustBorrowing() every BORROWING_ADJUSTMENT_PERIOD_MS.
import type { Clock } from './clock.js';
import { computeConcurrencyAllocation } from './conc-alloc.js';
import { levelCommons, levelLimits, levelMaxSeats, type LevelLimits } from './concurrency-limits.js';
import { hashFlowID } from './flow-hash.js';
import { goRound } from './go-math.js';
import { danglingCondition, flowSchemaSequence, type DanglingCondition } from './flow-schemas.js';
import { mandatoryPriorityLevelCatchAll, mandatoryPriorityLevelExempt } from './mandatory.js';
import { flowDistinguisher, matchesFlowSchema, type RequestDigest } from './matching.js';
import { QueueSet, WaitEnd, type CancelSignal, type QueueSetDump, type QueuingConfig, type RejectReason } from './queue-set.js';
import { initialSeatDemandStats, nextSeatDemandStats, type SeatDemandStats } from './seat-demand.js';
import { FLOW_SCHEMA_CATCH_ALL, PRIORITY_LEVEL_CATCH_ALL, PRIORITY_LEVEL_EXEMPT, type FlowSchema, type PriorityLevelConfiguration } from './types.js';
import type { WorkEstimate } from './work-estimate.js';

export interface Classification {
  flowSchema: FlowSchema;
  priorityLevel: PriorityLevelConfiguration;
  flowDistinguisher: string;
}

export interface HandleOptions {
  /** The request's own end (the client went away): a waiting request leaves its queue. */
  signal?: CancelSignal;
  /** When, on the controller's clock, the request stops waiting (requestWaitDeadline). */
  waitUntil?: number;
  /** Called with true when the request enters a queue and false when it leaves it. */
  onQueued?: (inQueue: boolean) => void;
  /** Shown in the request dump (user, verb, path ...). */
  details?: unknown;
}

export interface Admitted {
  admitted: true;
  classification: Classification;
  workEstimate: WorkEstimate;
  /** Milliseconds spent in a queue; 0 when dispatched at once. */
  waitedMs: number;
  /** Runs fn and then finishes the request, whatever fn does. */
  execute<T>(fn: () => Promise<T>): Promise<T>;
  /** Releases the request's seats (the final ones after its additional latency). Once. */
  finish(): void;
}

export interface Rejected {
  admitted: false;
  classification: Classification;
  /** As upstream's rejected_requests_total reason: a waiting request whose wait ended is 'time-out'. */
  reason: RejectReason | 'time-out';
}

/** How one level stands: its spec, limits and queue set. */
export interface LevelSnapshot {
  priorityLevel: PriorityLevelConfiguration;
  limits: LevelLimits;
  currentCL: number;
  maxSeats: number;
  quiescing: boolean;
  seatDemand: SeatDemandStats;
  queues: QueueSetDump;
}

export interface ConfigureResult {
  /** The Dangling condition each given FlowSchema should carry. */
  dangling: Array<{ flowSchema: string; condition: DanglingCondition }>;
  /** Levels ignored because their spec is broken, as upstream logs them. */
  warnings: string[];
}

interface LevelState {
  pl: PriorityLevelConfiguration;
  queues: QueueSet;
  qCfg: QueuingConfig;
  quiescing: boolean;
  limits: LevelLimits;
  currentCL: number;
  maxSeats: number;
  stats: SeatDemandStats;
}

/** The queuing configuration a level asks for, or why its spec is unusable (upstream's queueSetCompleterForPL). */
export function queuingConfigFor(pl: PriorityLevelConfiguration): QueuingConfig | { error: string } {
  const { name } = pl.metadata;
  const { type, limited, exempt } = pl.spec;
  if ((type === 'Limited') !== (limited !== undefined)) return { error: 'broken union structure at the top, for Limited' };
  if ((type === 'Exempt') !== (exempt !== undefined)) return { error: 'broken union structure at the top, for Exempt' };
  if ((type === 'Exempt') !== (name === PRIORITY_LEVEL_EXEMPT)) return { error: 'non-alignment between name and type' };
  if (!limited) return { name, desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 };
  const { limitResponse } = limited;
  if ((limitResponse.type === 'Reject') !== (limitResponse.queuing === undefined)) return { error: 'broken union structure for limit response' };
  const q = limitResponse.queuing;
  const qCfg = q ? { name, desiredNumQueues: q.queues, queueLengthLimit: q.queueLengthLimit, handSize: q.handSize } : { name, desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 };
  const checked = QueueSet.checkConfig(qCfg);
  if (checked && 'error' in checked) return { error: `priority level ${JSON.stringify(name)} has QueuingConfiguration ${JSON.stringify(qCfg)}, which is invalid: ${checked.error}` };
  return qCfg;
}

export class FlowController {
  private levels = new Map<string, LevelState>();
  private sequence: FlowSchema[] = flowSchemaSequence([], () => false);
  private nominalCLSum = 0;
  private lastConfig: { pls: PriorityLevelConfiguration[]; fss: FlowSchema[] } = { pls: [], fss: [] };

  constructor(
    private readonly clock: Clock,
    private readonly serverConcurrencyLimit: number,
  ) {
    this.configure([], []);
  }

  /** Digests a whole configuration (every object, each time), as upstream's digestConfigObjects. */
  configure(pls: PriorityLevelConfiguration[], fss: FlowSchema[]): ConfigureResult {
    this.lastConfig = { pls, fss };
    const warnings: string[] = [];
    const next = new Map<string, LevelState>();
    const fresh: Array<{ pl: PriorityLevelConfiguration; qCfg: QueuingConfig }> = [];
    for (const pl of pls) {
      const qCfg = queuingConfigFor(pl);
      if ('error' in qCfg) {
        warnings.push(`Ignoring PriorityLevelConfiguration object ${pl.metadata.name} because its spec is broken: ${qCfg.error}`);
        continue;
      }
      const old = this.levels.get(pl.metadata.name);
      if (old) {
        // Kept in place: a request in flight holds this state to finish against.
        Object.assign(old, { pl, qCfg, quiescing: false });
        next.set(pl.metadata.name, old);
      } else {
        fresh.push({ pl, qCfg });
      }
    }
    const usable = (name: string) => next.has(name) || fresh.some((f) => f.pl.metadata.name === name);
    this.sequence = flowSchemaSequence(fss, usable);
    const dangling = fss.map((fs) => ({ flowSchema: fs.metadata.name, condition: danglingCondition(fs, usable(fs.spec.priorityLevelConfiguration.name)) }));
    // Levels no longer configured drain first ("quiescing"); the mandatory ones stay regardless.
    for (const [name, old] of this.levels) {
      if (next.has(name) || fresh.some((f) => f.pl.metadata.name === name)) continue;
      const mandatory = name === PRIORITY_LEVEL_EXEMPT || name === PRIORITY_LEVEL_CATCH_ALL;
      if (!mandatory && old.queues.isIdle()) continue;
      old.quiescing = !mandatory;
      next.set(name, old);
    }
    for (const proto of [mandatoryPriorityLevelExempt, mandatoryPriorityLevelCatchAll]) {
      if (!usable(proto.metadata.name) && !next.has(proto.metadata.name)) fresh.push({ pl: proto, qCfg: queuingConfigFor(proto) as QueuingConfig });
    }
    const shareSum = [...next.values(), ...fresh].reduce((sum, s) => sum + levelCommons(s.pl).shares, 0);
    for (const { pl, qCfg } of fresh) {
      const limits = levelLimits(this.serverConcurrencyLimit, shareSum, pl);
      const queues = QueueSet.create(this.clock, qCfg, limits.initialCL) as QueueSet;
      next.set(pl.metadata.name, { pl, queues, qCfg, quiescing: false, limits, currentCL: limits.initialCL, maxSeats: 0, stats: initialSeatDemandStats });
    }
    this.nominalCLSum = 0;
    for (const state of next.values()) {
      state.limits = levelLimits(this.serverConcurrencyLimit, shareSum, state.pl);
      const queuing = state.pl.spec.limited?.limitResponse.queuing;
      state.maxSeats = queuing ? levelMaxSeats(state.limits.nominalCL, queuing.handSize) : 0;
      this.nominalCLSum += state.limits.nominalCL;
    }
    this.levels = next;
    this.adjustBorrowing();
    return { dangling, warnings };
  }

  /**
   * Lending and borrowing: each level's seat demand over the last period sets its target; the
   * nominal limits' sum is shared out in proportion to the targets, within each level's bounds.
   */
  adjustBorrowing(): void {
    const states = [...this.levels.values()];
    const items = states.map((s) => {
      s.stats = nextSeatDemandStats(s.stats, s.queues.seatDemand.reset());
      const lowerBound = Math.max(s.limits.minCL, Math.min(s.limits.nominalCL, s.stats.highWatermark));
      return { lowerBound, upperBound: s.limits.maxCL, target: Math.max(lowerBound, s.stats.smoothed) };
    });
    const got = computeConcurrencyAllocation(this.nominalCLSum, items);
    // On failure every level keeps its current limit.
    const allocs = 'error' in got ? states.map((s) => s.currentCL) : got.allocs;
    for (const [i, s] of states.entries()) {
      s.currentCL = goRound(allocs[i]!);
      s.queues.reconfigure(s.qCfg, s.currentCL);
    }
  }

  /** The widest a request of this level may be estimated (0: the estimator's own cap). */
  maxSeats(priorityLevel: string): number {
    return this.levels.get(priorityLevel)?.maxSeats ?? 0;
  }

  classify(digest: RequestDigest): Classification {
    const fs = this.sequence.find((f) => matchesFlowSchema(digest, f)) ?? this.sequence.find((f) => f.metadata.name === FLOW_SCHEMA_CATCH_ALL)!;
    const state = this.levels.get(fs.spec.priorityLevelConfiguration.name)!;
    const queuing = state.pl.spec.limited?.limitResponse.queuing;
    // The distinguisher matters only where there is more than one queue to shard over.
    const distinguisher = queuing && queuing.queues > 1 ? flowDistinguisher(digest, fs.spec.distinguisherMethod) : '';
    return { flowSchema: fs, priorityLevel: state.pl, flowDistinguisher: distinguisher };
  }

  /**
   * Classifies the request and, with the work its classification implies, admits it (at once or
   * after queuing) or rejects it. A request left waiting past waitUntil, or whose signal aborts,
   * is rejected with reason 'time-out'.
   */
  async handle(digest: RequestDigest, estimateWork: (c: Classification) => WorkEstimate, options: HandleOptions = {}): Promise<Admitted | Rejected> {
    const classification = this.classify(digest);
    const state = this.levels.get(classification.priorityLevel.metadata.name)!;
    const workEstimate = estimateWork(classification);
    const queuing = state.pl.spec.limited?.limitResponse.queuing;
    const hash = queuing && queuing.queues > 1 ? hashFlowID(classification.flowSchema.metadata.name, classification.flowDistinguisher) : 0n;
    // Only a queuing level makes a request wait; the others need no way to end a wait.
    const waitEnd = queuing ? new WaitEnd() : undefined;
    const started = this.clock.now();
    const result = state.queues.startRequest({
      workEstimate,
      hash,
      flowDistinguisher: classification.flowDistinguisher,
      flowSchemaName: classification.flowSchema.metadata.name,
      signal: waitEnd,
      onQueued: options.onQueued,
      details: options.details,
    });
    if ('rejected' in result) {
      this.reapIfDone(state);
      return { admitted: false, classification, reason: result.rejected };
    }
    const request = result.request;
    if (waitEnd && request.state === 'waiting') {
      const endWait = () => waitEnd.abort();
      const cancelTimer = options.waitUntil === undefined ? undefined : this.clock.setTimer(endWait, options.waitUntil - started);
      options.signal?.addEventListener('abort', endWait, { once: true });
      if (options.signal?.aborted) endWait();
      void request.decision.then(() => {
        cancelTimer?.();
        options.signal?.removeEventListener('abort', endWait);
      });
    }
    const decision = await request.decision;
    if (decision === 'cancel') {
      this.reapIfDone(state);
      return { admitted: false, classification, reason: 'time-out' };
    }
    const finish = () => {
      request.finish();
      this.reapIfDone(state);
    };
    return {
      admitted: true,
      classification,
      workEstimate,
      waitedMs: request.startTime - started,
      finish,
      async execute<T>(fn: () => Promise<T>): Promise<T> {
        try {
          return await fn();
        } finally {
          finish();
        }
      },
    };
  }

  /** A quiescing level that has drained goes, and the others' shares grow back (upstream's maybeReap). */
  private reapIfDone(state: LevelState): void {
    if (state.quiescing && state.queues.isIdle() && this.levels.get(state.pl.metadata.name) === state) {
      this.configure(this.lastConfig.pls, this.lastConfig.fss);
    }
  }

  /** Every level as it stands, for the debug endpoints and metrics. */
  snapshot(): LevelSnapshot[] {
    return [...this.levels.values()].map((s) => ({
      priorityLevel: s.pl,
      limits: s.limits,
      currentCL: s.currentCL,
      maxSeats: s.maxSeats,
      quiescing: s.quiescing,
      seatDemand: s.stats,
      queues: s.queues.dump(),
    }));
  }
}
