// The time bound of an evaluation. Costs bound what an expression may do, but cost is only a model:
// a step can take far longer than it is charged (a comparison of two deep lists costs by their
// lengths), and the event loop serves nothing while an expression runs. cel-go stops a comprehension
// when its context is done (checked every 100 iterations, InterruptCheckFrequency), failing the
// evaluation with "operation interrupted"; here the context is a clock, read every few steps and
// within the library's long loops: an expression is interrupted once it has run
// EXPRESSION_TIME_LIMIT_MS. Once one expression of a group (an object's rules, a policy's
// expressions) is interrupted, the others are too, as a Go context once done stays done.

/**
 * How long one expression may hold the event loop, in milliseconds. Legitimate expressions that
 * spend the whole per-call cost limit (1,000,000) take 6 to 110 ms here once the engine has
 * compiled them (a regular expression per list item being the slowest), so the bound is about
 * twice the slowest: a shorter one would interrupt rules that upstream runs to the end. A first
 * run, or a loaded machine, can still take such a rule past it.
 */
export const EXPRESSION_TIME_LIMIT_MS = 200;

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

/** One evaluation's clock: when it started, its group's timer, the steps taken. */
export interface Clock {
  readonly start: number;
  readonly timer: ExpressionTimer;
  ticks: number;
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
  if (performance.now() - clock.start > clock.timer.perExpressionMs) throw new EvaluationInterrupted();
}

/** One step of a library loop (an element compared, copied, measured) in the running evaluation. */
export function poll(): void {
  if (running !== undefined) tick(running, 1024);
}
