// Evaluating a policy's expressions for one request, as upstream's admission/plugin/cel filter.go and
// composition.go: each expression within the per-call limit, all of one pass within a budget they
// share (10,000,000 for a binding's validations, 2,500,000 for match conditions), and the variables
// evaluated when first read, at most once a pass, their cost charged to the pass.
import {
  ExpressionTimer,
  LiteralMap,
  MapValue,
  PER_CALL_LIMIT,
  ErrorValue,
  type CompiledExpression,
  type Value,
} from '@plat/cel';
import type { PolicyExpression } from './policy-cel.js';

/** The budget message upstream gives when a pass runs out (its prefix is matched on). */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** A compiled variable of the policy. */
export interface CompiledVariable {
  readonly name: string;
  readonly expression: PolicyExpression;
}

const EMPTY_VARIABLES = new LiteralMap([]);

/** The root variables of one pass, `variables` aside. */
export type Activation = Record<string, Value>;

/** One expression's outcome: its value, or why it has none, and how long it ran. */
export interface EvaluationResult {
  readonly value?: Value;
  readonly error?: string;
  /** Seconds spent evaluating it, the variables it read first included (0 when it did not compile). */
  readonly elapsed: number;
}

/** A pass's outcome: a result per expression (undefined where no expression was given), or a failure of the pass. */
export type PassResult = { results: (EvaluationResult | undefined)[]; remaining: number } | { error: string };

/**
 * The `variables` of one pass: each variable evaluated when first read, then kept; what they cost is
 * collected for the pass to charge (upstream's lazy map and composition context).
 */
class LazyVariables extends MapValue {
  private values: Map<string, Value> | undefined;
  private evaluating: string | undefined;
  private cost = 0;
  activation!: Activation;

  constructor(
    private readonly variables: ReadonlyMap<string, CompiledVariable>,
    private readonly timer: ExpressionTimer,
  ) {
    super();
  }

  size(): number {
    return this.variables.size;
  }

  keys(): Iterable<Value> {
    return this.variables.keys();
  }

  get(key: Value): Value | undefined {
    if (typeof key !== 'string') return undefined;
    const variable = this.variables.get(key);
    if (!variable) return undefined;
    const known = this.values?.get(key);
    if (known !== undefined) return known;
    const value = this.evaluate(variable);
    (this.values ??= new Map()).set(key, value);
    return value;
  }

  private evaluate({ name, expression }: CompiledVariable): Value {
    if (!expression.program) return new ErrorValue(`composited variable "${name}" fails to compile: ${expression.error?.detail ?? ''}`);
    // A variable can only read the ones before it and itself (those after it are not declared to it).
    if (this.evaluating === name) return new ErrorValue(`composited variable "${name}" fails to evaluate: it reads itself`);
    const outer = this.evaluating;
    this.evaluating = name;
    try {
      const evaluation = expression.program.evaluate(this.activation, PER_CALL_LIMIT, this.timer);
      this.cost += evaluation.cost;
      const value = evaluation.value;
      return value instanceof ErrorValue ? new ErrorValue(`composited variable "${name}" fails to evaluate: ${value.message}`) : value;
    } finally {
      this.evaluating = outer;
    }
  }

  /** What the variables evaluated since the last call cost. */
  takeCost(): number {
    const cost = this.cost;
    this.cost = 0;
    return cost;
  }
}

/**
 * Evaluates the expressions in order (upstream's ForInput): a compile error or a runtime error is the
 * expression's own result (one that ran out of time too: 'operation interrupted', as upstream's when
 * the request's context is done); running past the budget (the expressions' and the variables'
 * costs) fails the whole pass. `timer` bounds each expression's time, and once one is interrupted
 * the rest of its group (a request) are.
 */
export function evaluatePass(
  expressions: readonly (PolicyExpression | undefined)[],
  activation: Activation,
  variables: ReadonlyMap<string, CompiledVariable> | undefined,
  budget: number,
  timer = new ExpressionTimer(),
): PassResult {
  let remaining = budget;
  if (!expressions.some((e) => e !== undefined)) return { results: expressions.map(() => undefined), remaining };
  const lazy = variables?.size ? new LazyVariables(variables, timer) : undefined;
  // `variables` is declared even when the policy has none (upstream's composing compiler).
  const full: Activation = { ...activation, variables: lazy ?? EMPTY_VARIABLES };
  if (lazy) lazy.activation = full;
  const results: (EvaluationResult | undefined)[] = [];
  for (const expression of expressions) {
    if (!expression) {
      results.push(undefined);
      continue;
    }
    if (!expression.program) {
      results.push({ error: `compilation error: ${expression.error?.detail ?? ''}`, elapsed: 0 });
      continue;
    }
    const started = performance.now();
    const evaluation = (expression.program as CompiledExpression).evaluate(full, PER_CALL_LIMIT, timer);
    const elapsed = (performance.now() - started) / 1000;
    if (lazy) {
      const composition = lazy.takeCost();
      if (composition > remaining) return { error: OUT_OF_BUDGET };
      remaining -= composition;
    }
    if (evaluation.cost > remaining) return { error: OUT_OF_BUDGET };
    remaining -= evaluation.cost;
    const value = evaluation.value;
    results.push(value instanceof ErrorValue ? { error: `expression '${expression.source}' resulted in error: ${value.message}`, elapsed } : { value, elapsed });
  }
  return { results, remaining };
}
