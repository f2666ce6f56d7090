// The time bound of an evaluation. Costs bound what an expression may do, but cost is only a model:
// a step can take far longer than it is charged (a comparison of two deep lists costs by their
// lengths), and the event loop serves nothing while an expression runs. cel-go stops a comprehension
// when its context is done (checked every 100 iterations, InterruptCheckFrequency), failing the
// evaluation with "operation interrupted"; here the context is a clock, read every few steps and
// within the library's long loops. An expression is interrupted once it has run longer than
// EXPRESSION_TIME_LIMIT_MS plus TIME_PER_COST_UNIT_MS for each unit of cost charged so far:
//   - work the cost model does not see is stopped at 100 ms;
//   - work it sees is stopped by the per-call limit, as upstream stops it (1,000,000 units take
//     20 to 200 ms here once the engine has compiled the interpreter, 130 to 680 ms in a fresh
//     process on a loaded machine), and in any case by 2.1 s (100 ms + 1,000,000 x 2 us);
//   - the time counted is the time the process ran (CPU time), not the wall clock's.
// A flat bound of 100 ms would interrupt, in a fresh or loaded process, rules that upstream runs to
// the end or stops by their cost (its own e2e's nested all() over 725 items among them). Once one
// expression of a group (an object's rules, a request's policies) is interrupted, the others are
// too, as a Go context once done stays done.

/** How long an expression may run beyond what its cost accounts for, in milliseconds. */
export const EXPRESSION_TIME_LIMIT_MS = 100;

/**
 * The time one unit of cost accounts for, in milliseconds (2 us). Legitimate expressions take 6
 * to 110 ns a unit here once compiled by the engine (a regular expression per list item the
 * slowest), up to 700 ns averaged over a first run on a loaded machine, and past 1 us in a fresh
 * process sharing its core with two others (an expression stopped by its cost was interrupted by
 * the clock at 1 us): twice that, for a margin.
 */
export const TIME_PER_COST_UNIT_MS = 0.002;

/** cel-go's error for an evaluation stopped by its context. */
export const INTERRUPTED = 'operation interrupted';

/** Thrown (not returned) when an evaluation is interrupted: nothing may absorb it. */
export class EvaluationInterrupted extends Error {
  constructor() {
    super(INTERRUPTED);
    this.name = 'EvaluationInterrupted';
  }
}

/** The time bound of a group of evaluations (see the header). */
export class ExpressionTimer {
  private done = false;

  constructor(readonly perExpressionMs = EXPRESSION_TIME_LIMIT_MS) {}

  /** Every later expression of the group is interrupted at its first reading of the clock. */
  expire(): void {
    this.done = true;
  }

  get expired(): boolean {
    return this.done;
  }
}

/**
 * One evaluation's clock: when it started, its group's timer, the steps taken and the cost so far.
 * `start` moves later by the time the process was not running (see tick), so it is wall time less
 * the pauses.
 */
export interface Clock {
  start: number;
  readonly timer: ExpressionTimer;
  ticks: number;
  cost: number;
  /** The process's CPU time, in ms, at the evaluation's first reading of the clock. */
  cpuStart?: number;
}

/** The process's CPU time so far (user and system), in milliseconds. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The last reading of cpuMs and when (performance.now) it was taken. */
let lastCpu = { at: -Infinity, ms: 0 };

/**
 * The CPU time at an evaluation's first reading of the clock, read again at most once a millisecond
 * of wall time: a request's many policies each reach that first reading, and process.cpuUsage is a
 * system call (it was a fifth of the replica's CPU with 20 policies bound). A reading up to 1 ms old
 * is earlier, so the time counted as run errs by at most 1 ms towards interrupting.
 */
function startingCpuMs(now: number): number {
  if (now - lastCpu.at > 1) lastCpu = { at: now, ms: cpuMs() };
  return lastCpu.ms;
}

/** The clock of the evaluation running now, for the library's loops (evaluations may nest: see within). */
let running: Clock | undefined;

/** Runs `f` as the evaluation of `clock`: poll() reads it. */
export function within<T>(clock: Clock, f: () => T): T {
  const outer = running;
  running = clock;
  try {
    return f();
  } finally {
    running = outer;
  }
}

/** One step of `clock`: every `stride` steps (a power of two) the time is read, and past its bound the evaluation interrupted. */
export function tick(clock: Clock, stride: number): void {
  if ((++clock.ticks & (stride - 1)) !== 0) return;
  if (clock.timer.expired) throw new EvaluationInterrupted();
  const now = performance.now();
  // The CPU time at the first reading (shared by the evaluations of the same millisecond).
  clock.cpuStart ??= startingCpuMs(now);
  const bound = clock.timer.perExpressionMs + clock.cost * TIME_PER_COST_UNIT_MS;
  if (now - clock.start <= bound) return;
  // Past the bound by the wall clock: but on a loaded machine the process may not have run for part
  // of it (an expression with a second of work allowed was interrupted after a few hundred ms of its
  // own). What counts is the time it ran: wall time with the pauses taken out, measured as CPU time
  // (the process's, so the collector's threads count too: it errs towards interrupting). Its start
  // moves later by the pause, so the clock is read again only once the bound may really be passed.
  const ran = cpuMs() - clock.cpuStart;
  if (ran > bound) throw new EvaluationInterrupted();
  clock.start = now - Math.max(ran, 0);
}

/** One step of a library loop (an element compared, copied, measured) in the running evaluation. */
export function poll(): void {
  if (running !== undefined) tick(running, 1024);
}
