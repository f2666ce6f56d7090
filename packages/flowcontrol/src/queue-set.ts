// One priority level's queues (upstream's fairqueuing/queueset): fair queuing for server requests.
// A request is shuffle-sharded to the least loaded queue of its flow's hand; queues are served in
// the order of their virtual finish times, where the virtual clock R advances, in seat-seconds, at
// min(seats wanted, limit) / active queues per second; a request is dispatched when its seats are
// free. An exempt level (desiredNumQueues < 0) never waits; a level with no queues (0) rejects
// what does not fit at once.
//
// Everything here is synchronous: a request's decision is a promise the caller awaits, resolved
// (never run) from inside the queue set, so no caller code runs in the middle of a dispatch.
import type { Clock } from './clock.js';
import { Integrator } from './seat-demand.js';
import { Dealer } from './shuffle-sharding.js';
import { durationPerSeat, formatSeatSeconds, MAX_SEAT_SECONDS, maxSeats, seatsTimesDuration, type SeatSeconds, type WorkEstimate } from './work-estimate.js';

export interface QueuingConfig {
  name: string;
  /** Queues wanted: > 0 queue, 0 reject what does not fit, < 0 exempt. Extra queues go as they empty. */
  desiredNumQueues: number;
  queueLengthLimit: number;
  handSize: number;
}

/** Upstream's estimatedServiceDuration G: the guess at a request's duration when it is dispatched. */
export const ESTIMATED_SERVICE_DURATION_MS = 3;


export type Decision = 'execute' | 'cancel';
export type RejectReason = 'queue-full' | 'concurrency-limit';

/**
 * What a waiting request's end is read from: an AbortSignal is one. The controller passes a
 * lighter one of its own (WaitEnd): an AbortController per request was a fifth of handle()'s time.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A CancelSignal for one waiter: one listener at most, no events, nothing allocated until used. */
export class WaitEnd implements CancelSignal {
  aborted = false;
  private listener: (() => void) | undefined;

  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}

export interface StartOptions {
  workEstimate: WorkEstimate;
  /** The flow's hash (hashFlowID); used only when the level has queues. */
  hash: bigint;
  flowDistinguisher: string;
  flowSchemaName: string;
  /** While the request waits, aborting this removes it from its queue (decision 'cancel'). */
  signal?: CancelSignal;
  /** Called with true when the request enters a queue and false when it leaves it. */
  onQueued?: (inQueue: boolean) => void;
  /** Shown by dump() with details (user, verb, path ...); no role in the logic. */
  details?: unknown;
}

export type StartResult = { rejected: RejectReason; idle: boolean } | { request: QueueSetRequest };

/** Counters since the queue set was made, for the debug dump and metrics. */
export interface QueueSetCounters {
  dispatched: number;
  rejected: number;
  /** Waiting requests removed by their signal (upstream counts them as cancelled, reason time-out). */
  cancelled: number;
  epochAdvances: number;
}

interface WorkSums {
  initialSeats: number;
  maxSeats: number;
  totalWork: SeatSeconds;
}

class Queue {
  readonly waiting: QueueSetRequest[] = [];
  readonly executing = new Set<QueueSetRequest>();
  readonly sums: WorkSums = { initialSeats: 0, maxSeats: 0, totalWork: 0 };
  nextDispatchR: SeatSeconds = 0;
  seatsInUse = 0;
  constructor(public index: number) {}

  enqueue(r: QueueSetRequest): void {
    this.waiting.push(r);
    this.addSums(r, 1);
  }

  /** Removes r if it is still waiting here; true if it was. */
  remove(r: QueueSetRequest): boolean {
    const at = this.waiting.indexOf(r);
    if (at < 0) return false;
    this.waiting.splice(at, 1);
    this.addSums(r, -1);
    return true;
  }

  isEmpty(): boolean {
    return this.waiting.length === 0 && this.executing.size === 0;
  }

  private addSums(r: QueueSetRequest, sign: 1 | -1): void {
    this.sums.initialSeats += sign * r.workEstimate.initialSeats;
    this.sums.maxSeats += sign * r.maxSeats;
    this.sums.totalWork += sign * r.totalWork;
  }
}

/** A request the queue set accepted: await its decision; after executing, call finish() once. */
export class QueueSetRequest {
  /** Resolved once: 'execute' when dispatched, 'cancel' when its signal removed it from its queue. */
  readonly decision: Promise<Decision>;
  state: 'waiting' | 'executing' | 'finished' | 'cancelled' = 'waiting';
  queue: Queue | undefined;
  arrivalR: SeatSeconds;
  readonly arrivalTime: number;
  startTime = 0;
  totalWork: SeatSeconds;
  finalWork: SeatSeconds;
  private resolve!: (d: Decision) => void;
  private dropSignal: (() => void) | undefined;

  constructor(
    private readonly qs: QueueSet,
    /** Its final seats may be clipped to the level's limit when it is dispatched. */
    public workEstimate: WorkEstimate,
    readonly options: StartOptions,
    now: number,
    currentR: SeatSeconds,
  ) {
    this.decision = new Promise((resolve) => (this.resolve = resolve));
    this.arrivalTime = now;
    this.arrivalR = currentR;
    this.finalWork = seatsTimesDuration(workEstimate.finalSeats, workEstimate.additionalLatencyMs);
    this.totalWork = seatsTimesDuration(workEstimate.initialSeats, qs.estimatedServiceDurationMs) + this.finalWork;
  }

  get maxSeats(): number {
    return maxSeats(this.workEstimate);
  }

  /** Ends the execution: the initial seats are released now, the final ones after the additional latency. Returns whether the queue set is idle. */
  finish(): boolean {
    if (this.state !== 'executing') return this.qs.isIdle();
    this.state = 'finished';
    return this.qs.finishRequest(this);
  }

  watchSignal(onAbort: () => void): void {
    const signal = this.options.signal;
    if (!signal) return;
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    this.dropSignal = () => signal.removeEventListener('abort', onAbort);
  }

  decide(decision: Decision): void {
    this.dropSignal?.();
    this.dropSignal = undefined;
    this.resolve(decision);
  }
}

export class QueueSet {
  readonly seatDemand: Integrator;
  readonly counters: QueueSetCounters = { dispatched: 0, rejected: 0, cancelled: 0, epochAdvances: 0 };
  /** Upstream's G; a test may change it, as upstream's tests construct queue sets with other values. */
  estimatedServiceDurationMs = ESTIMATED_SERVICE_DURATION_MS;
  /**
   * The virtual clock is wound back by half its range once it passes three quarters of it; a
   * test may narrow the range to see that happen.
   */
  maxSeatSeconds = MAX_SEAT_SECONDS;
  private queues: Queue[] = [];
  private dealer: Dealer | undefined;
  private concurrencyLimit = 0;
  private currentR: SeatSeconds = 0;
  private lastRealTime: number;
  /** The index of the queue last dispatched from. */
  private robinIndex = -1;
  private totRequestsWaiting = 0;
  private totRequestsExecuting = 0;
  private totSeatsInUse = 0;
  private totSeatsWaiting = 0;
  private enqueues = 0;
  /** Executing requests that came through no queue (exempt and reject-type levels). */
  private readonly queueless = new Set<QueueSetRequest>();

  private constructor(
    private readonly clock: Clock,
    private qCfg: QueuingConfig,
  ) {
    this.lastRealTime = clock.now();
    this.seatDemand = new Integrator(() => clock.now());
  }

  /** A queue set, or why the queuing configuration cannot be dealt (upstream's wording). */
  static create(clock: Clock, qCfg: QueuingConfig, concurrencyLimit: number): QueueSet | { error: string } {
    const qs = new QueueSet(clock, qCfg);
    const problem = qs.reconfigure(qCfg, concurrencyLimit);
    return problem ?? qs;
  }

  /** The shuffle-sharding check upstream makes before accepting a queuing configuration. */
  static checkConfig(qCfg: QueuingConfig): Dealer | undefined | { error: string } {
    if (qCfg.desiredNumQueues <= 0) return undefined;
    const dealer = Dealer.create(qCfg.desiredNumQueues, qCfg.handSize);
    if (dealer instanceof Dealer) return dealer;
    return { error: `the QueueSetConfig implies an invalid shuffle sharding config (DesiredNumQueues is deckSize): ${dealer.error}` };
  }

  get name(): string {
    return this.qCfg.name;
  }

  get limit(): number {
    return this.concurrencyLimit;
  }

  /**
   * A new configuration: more queues are added now, surplus ones go when they empty; with no
   * queues wanted the old hand size and length limit stay, for the queues still draining.
   */
  reconfigure(qCfg: QueuingConfig, concurrencyLimit: number): { error: string } | undefined {
    const dealer = QueueSet.checkConfig(qCfg);
    if (dealer && !(dealer instanceof Dealer)) return dealer;
    this.syncTime();
    let cfg = qCfg;
    if (qCfg.desiredNumQueues > 0) {
      while (this.queues.length < qCfg.desiredNumQueues) this.queues.push(new Queue(this.queues.length));
    } else {
      cfg = { ...qCfg, queueLengthLimit: this.qCfg.queueLengthLimit, handSize: this.qCfg.handSize };
    }
    this.qCfg = cfg;
    this.dealer = dealer;
    this.concurrencyLimit = concurrencyLimit;
    this.dispatchAsMuchAsPossible();
    return undefined;
  }

  isIdle(): boolean {
    return this.totRequestsWaiting === 0 && this.totRequestsExecuting === 0;
  }

  /** Seats held by executing requests plus the widest seats of waiting ones: the level's demand. */
  seatDemandNow(): number {
    return this.totSeatsInUse + this.totSeatsWaiting;
  }

  startRequest(options: StartOptions): StartResult {
    this.syncTime();
    const we = options.workEstimate;
    if (this.qCfg.desiredNumQueues < 1) {
      if (!this.canAccommodateSeats(maxSeats(we))) {
        this.counters.rejected++;
        return { rejected: 'concurrency-limit', idle: this.isIdle() };
      }
      const r = new QueueSetRequest(this, we, options, this.clock.now(), this.currentR);
      this.startExecuting(r);
      return { request: r };
    }
    const queue = this.queues[this.shuffleShard(options.hash)]!;
    // Refused only when the level is full and so is the chosen queue.
    if (this.totSeatsInUse >= this.concurrencyLimit && queue.waiting.length >= this.qCfg.queueLengthLimit) {
      this.counters.rejected++;
      return { rejected: 'queue-full', idle: this.isIdle() };
    }
    const r = new QueueSetRequest(this, we, options, this.clock.now(), this.currentR);
    r.queue = queue;
    if (queue.isEmpty()) queue.nextDispatchR = this.currentR;
    queue.enqueue(r);
    this.totRequestsWaiting++;
    this.totSeatsWaiting += r.maxSeats;
    options.onQueued?.(true);
    this.noteDemand();
    this.boundNextDispatch(queue);
    r.watchSignal(() => this.cancelWaiting(r));
    this.dispatchAsMuchAsPossible();
    return { request: r };
  }

  /** Upstream's wait() on a cancelled context: a request still waiting leaves its queue. */
  private cancelWaiting(r: QueueSetRequest): void {
    if (r.state !== 'waiting') return;
    this.syncTime();
    const queue = r.queue!;
    if (!queue.remove(r)) return;
    r.state = 'cancelled';
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= r.maxSeats;
    this.counters.rejected++;
    this.counters.cancelled++;
    r.options.onQueued?.(false);
    this.noteDemand();
    this.boundNextDispatch(queue);
    r.decide('cancel');
  }

  /** Deals the flow's hand and picks the queue with the least waiting work, starting the scan at a rotating offset. */
  private shuffleShard(hash: bigint): number {
    const hand = this.dealer!.deal(hash);
    const offset = this.enqueues % hand.length;
    this.enqueues++;
    let best = -1;
    let least = MAX_SEAT_SECONDS;
    for (let i = 0; i < hand.length; i++) {
      const idx = hand[(offset + i) % hand.length]!;
      const work = this.queues[idx]!.sums.totalWork;
      if (work < least) {
        least = work;
        best = idx;
      }
    }
    return best;
  }

  /** Advances R over the time since the last event, at the rate the state has had since then. */
  private syncTime(): void {
    const now = this.clock.now();
    const elapsed = now - this.lastRealTime;
    this.lastRealTime = now;
    this.currentR += seatsTimesDuration(this.virtualTimeRatio(), elapsed);
    const rDecrement = Math.floor(this.maxSeatSeconds / 2);
    if (this.currentR >= rDecrement + Math.floor(rDecrement / 2)) this.advanceEpoch(rDecrement);
  }

  private virtualTimeRatio(): number {
    let active = 0;
    let seatsRequested = 0;
    for (const q of this.queues) {
      seatsRequested += q.seatsInUse + q.sums.maxSeats;
      if (!q.isEmpty()) active++;
    }
    return active === 0 ? 0 : Math.min(seatsRequested, this.concurrencyLimit) / active;
  }

  /** Winds R and every reading taken from it back by the same amount, before R loses exactness. */
  private advanceEpoch(rDecrement: SeatSeconds): void {
    this.currentR -= rDecrement;
    for (const q of this.queues) {
      if (q.isEmpty()) {
        // The next arrival sets it from R.
        q.nextDispatchR = 0;
        continue;
      }
      q.nextDispatchR -= rDecrement;
      for (const r of q.waiting) r.arrivalR -= rDecrement;
    }
    this.counters.epochAdvances++;
  }

  private canAccommodateSeats(seats: number): boolean {
    if (this.qCfg.desiredNumQueues < 0) return true;
    // Wider than the whole level: it runs alone, once nothing else is executing.
    if (seats > this.concurrencyLimit) return this.totRequestsExecuting === 0;
    return this.totSeatsInUse + seats <= this.concurrencyLimit;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.totRequestsWaiting !== 0 && this.totSeatsInUse < this.concurrencyLimit && this.dispatchOne());
  }

  private dispatchOne(): boolean {
    const found = this.findDispatchQueue();
    if (!found) return false;
    const [queue, r, waitingSeats] = found;
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= waitingSeats;
    r.options.onQueued?.(false);
    queue.executing.add(r);
    queue.seatsInUse += r.maxSeats;
    this.startExecuting(r);
    queue.nextDispatchR += r.totalWork;
    this.boundNextDispatch(queue);
    return true;
  }

  /**
   * Scans the queues round-robin from the one after the last dispatched and takes the one whose
   * head would finish first in virtual time. Nothing is taken when that head does not fit now
   * (a wide request holds its place rather than being overtaken).
   */
  findDispatchQueue(): [Queue, QueueSetRequest, number] | undefined {
    let minFinish = MAX_SEAT_SECONDS;
    let minQueue: Queue | undefined;
    let minIndex = -1;
    const n = this.queues.length;
    for (let i = 0; i < n; i++) {
      this.robinIndex = (this.robinIndex + 1) % n;
      const q = this.queues[this.robinIndex]!;
      const head = q.waiting[0];
      if (!head) continue;
      const finish = q.nextDispatchR + head.totalWork;
      if (finish < minFinish) {
        minFinish = finish;
        minQueue = q;
        minIndex = this.robinIndex;
      }
    }
    const head = minQueue?.waiting[0];
    if (!minQueue || !head) return undefined;
    if (!this.canAccommodateSeats(head.maxSeats)) return undefined;
    minQueue.remove(head);
    // The seats it was counted as waiting with, before any clipping below (upstream subtracts the
    // clipped value, letting its waiting-seats total drift).
    const waitingSeats = head.maxSeats;
    // Final seats above the whole limit are clipped, the latency stretched to keep the work.
    if (head.workEstimate.finalSeats > this.concurrencyLimit) {
      const finalSeats = this.concurrencyLimit;
      head.workEstimate = {
        ...head.workEstimate,
        finalSeats,
        additionalLatencyMs: durationPerSeat(head.finalWork, finalSeats),
      };
    }
    // The next scan starts after the chosen queue, so the others win ties.
    this.robinIndex = minIndex;
    return [minQueue, head, waitingSeats];
  }

  private startExecuting(r: QueueSetRequest): void {
    r.state = 'executing';
    r.startTime = this.clock.now();
    this.totRequestsExecuting++;
    this.totSeatsInUse += r.maxSeats;
    if (!r.queue) this.queueless.add(r);
    this.counters.dispatched++;
    this.noteDemand();
    r.decide('execute');
  }

  /** @internal Called by QueueSetRequest.finish. */
  finishRequest(r: QueueSetRequest): boolean {
    this.syncTime();
    const now = this.clock.now();
    this.totRequestsExecuting--;
    const queue = r.queue;
    if (queue) {
      queue.executing.delete(r);
      // The virtual world guessed G for the request; it took S: give back (G − S)·seats.
      const actual = now - r.startTime;
      queue.nextDispatchR -= seatsTimesDuration(r.workEstimate.initialSeats, this.estimatedServiceDurationMs - actual);
      this.boundNextDispatch(queue);
    } else {
      this.queueless.delete(r);
    }
    const release = () => {
      this.totSeatsInUse -= r.maxSeats;
      if (queue) queue.seatsInUse -= r.maxSeats;
      this.noteDemand();
      this.removeQueueIfEmpty(queue);
    };
    if (r.workEstimate.additionalLatencyMs <= 0) {
      release();
    } else {
      // The reply has gone; the seats stay taken a little longer, for the watch events it causes.
      this.clock.setTimer(() => {
        this.syncTime();
        release();
        this.dispatchAsMuchAsPossible();
      }, r.workEstimate.additionalLatencyMs);
    }
    this.dispatchAsMuchAsPossible();
    return this.isIdle();
  }

  /** Anti-windup: a queue's next dispatch is never before its head request arrived (in R). */
  private boundNextDispatch(queue: Queue): void {
    const head = queue.waiting[0];
    if (head && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }

  private removeQueueIfEmpty(queue: Queue | undefined): void {
    if (!queue || this.queues.length <= this.qCfg.desiredNumQueues || !queue.isEmpty()) return;
    const at = queue.index;
    this.queues.splice(at, 1);
    for (let i = at; i < this.queues.length; i++) this.queues[i]!.index = i;
    // Keep robinIndex+1 the queue after the one last dispatched from.
    if (this.robinIndex >= at) this.robinIndex--;
  }

  private noteDemand(): void {
    this.seatDemand.set(this.totSeatsInUse + this.totSeatsWaiting);
  }

  dump(): QueueSetDump {
    const req = (r: QueueSetRequest): RequestDump => ({
      flowSchema: r.options.flowSchemaName,
      flowDistinguisher: r.options.flowDistinguisher,
      arriveTime: r.arrivalTime,
      startTime: r.state === 'waiting' ? undefined : r.startTime,
      workEstimate: r.workEstimate,
      details: r.options.details,
    });
    return {
      queues: this.queues.map((q) => ({
        index: q.index,
        nextDispatchR: formatSeatSeconds(q.nextDispatchR),
        waiting: q.waiting.map(req),
        executing: [...q.executing].map(req),
        seatsInUse: q.seatsInUse,
        initialSeatsSum: q.sums.initialSeats,
        maxSeatsSum: q.sums.maxSeats,
        totalWorkSum: formatSeatSeconds(q.sums.totalWork),
      })),
      queuelessExecuting: [...this.queueless].map(req),
      waiting: this.totRequestsWaiting,
      executing: this.totRequestsExecuting,
      seatsInUse: this.totSeatsInUse,
      seatsWaiting: this.totSeatsWaiting,
      ...this.counters,
    };
  }
}

export interface RequestDump {
  flowSchema: string;
  flowDistinguisher: string;
  arriveTime: number;
  startTime: number | undefined;
  workEstimate: WorkEstimate;
  details: unknown;
}

export interface QueueDump {
  index: number;
  nextDispatchR: string;
  waiting: RequestDump[];
  executing: RequestDump[];
  seatsInUse: number;
  initialSeatsSum: number;
  maxSeatsSum: number;
  totalWorkSum: string;
}

export interface QueueSetDump extends QueueSetCounters {
  queues: QueueDump[];
  queuelessExecuting: RequestDump[];
  waiting: number;
  executing: number;
  seatsInUse: number;
  seatsWaiting: number;
}
