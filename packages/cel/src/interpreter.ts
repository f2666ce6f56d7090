// Evaluation of a checked expression, with cel-go's runtime cost tracking as Kubernetes runs it:
// attributes (variables, selections, indexes, conditionals) as cel-go's planner builds them, every
// call its cost from runtime-cost.ts, list and map literals their base, the logical operators and
// constants nothing, the comprehensions that macros expand to what their steps cost, iteration by
// iteration; with Kubernetes' optimizations, what is computed ahead of time costs nothing (see
// Planner). Evaluation stops as soon as the cost passes the limit (a call's cost is charged before
// it runs), or once it runs longer than its time allows (interrupt.ts). The tree is turned into
// closures once, at compile time.
import { ACCUMULATOR, OP, type Expr } from './ast.js';
import { candidateNames, qualifiedName, type CheckedExpr } from './checker.js';
import type { Overload } from './functions/overload.js';
import { indexValue, mapIndex } from './functions/operators.js';
import { compileRegex } from './functions/regex-engine.js';
import { EvaluationInterrupted, ExpressionTimer, INTERRUPTED, tick, within, type Clock } from './interrupt.js';
import { ProgramError } from './issues.js';
import { CONVERSIONS, REGEX_FUNCTIONS, constantSet, setKey } from './optimize.js';
import { COST } from './limits.js';
import { callCost } from './runtime-cost.js';
import type { CelType } from './types.js';
import {
  ArrayList,
  Duration,
  ErrorValue,
  ListValue,
  LiteralMap,
  MapValue,
  OpaqueValue,
  Timestamp,
  TypeValue,
  UInt,
  type Value,
} from './values.js';

/** Thrown (not returned) when evaluation passes its cost limit: nothing may absorb it. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
    this.name = 'CostLimitExceeded';
  }
}

/** One evaluation's state: the root variables, the comprehension variables' slots, the cost so far, and its clock. */
export interface EvalState extends Clock {
  readonly activation: Readonly<Record<string, Value>>;
  readonly slots: Value[];
  cost: number;
  readonly limit: number;
}

type Step = (state: EvalState) => Value;

/** Steps between two readings of the clock: a reading costs about as much as a cheap step. */
const CLOCK_STRIDE = 16;

function charge(state: EvalState, amount: number): void {
  state.cost += amount;
  if (state.cost > state.limit) throw new CostLimitExceeded();
  tick(state, CLOCK_STRIDE);
}

/** Whether a value is one of `type`, for choosing among overloads when arguments are dyn. */
function hasType(v: Value, type: CelType): boolean {
  switch (type.kind) {
    case 'int':
      return typeof v === 'bigint';
    case 'uint':
      return v instanceof UInt;
    case 'double':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'null_type':
      return v === null;
    case 'timestamp':
      return v instanceof Timestamp;
    case 'duration':
      return v instanceof Duration;
    // As cel-go's runtime dispatch: a list or map by its first element (any when empty).
    case 'list':
      return v instanceof ListValue && (v.size() === 0 || hasType(v.get(0), type.elem));
    case 'map': {
      if (!(v instanceof MapValue)) return false;
      const [key] = v.keys();
      return key === undefined || (hasType(key, type.key) && hasType(v.get(key)!, type.value));
    }
    case 'object':
      return v instanceof MapValue;
    case 'type':
      return v instanceof TypeValue;
    case 'opaque':
      return v instanceof OpaqueValue && v.typeName === type.name;
    default:
      return true;
  }
}

/** A list the comprehensions that build lists (map, filter) append to in place, as cel-go's mutable list. */
class BuildingList extends ArrayList {
  constructor(readonly building: Value[]) {
    super(building);
  }
  override concat(other: ListValue): ListValue {
    for (const v of other.values()) this.building.push(v);
    return this;
  }
}

/** Whether an expression is planned as one of cel-go's attributes (see Planner.resolve). */
function isAttribute(e: Expr, checked: CheckedExpr): boolean {
  switch (e.kind) {
    case 'ident':
    case 'select':
      return !checked.typeIdents.has(e.id);
    case 'call':
      return e.fn === OP.index || e.fn === OP.conditional;
    default:
      return false;
  }
}

/**
 * Turns a checked expression into closures, charging cel-go's runtime costs as its planner and
 * cost observer would. Identifiers, selections, indexes and conditionals are cel-go's attributes,
 * chains of qualifiers (fields, indexes) on a root: a variable, a conditional, or anything else
 * (a literal, a call's result), whose own cost is paid. Evaluating a chain costs 1 per qualifier
 * applied (none after one fails), and 1 more unless its root is a conditional; a chain that is
 * only resolved, as an index or as a conditional's branch, does not cost that 1.
 *
 * With `optimize` (Kubernetes' cel.OptOptimize), what cel-go computes ahead of time costs nothing:
 * list and map literals of constants, conversions of constants (failing ones fail the program),
 * `in` against a list of constant scalars (a set lookup); constant regular expressions are
 * compiled, and fail the program when they do not compile.
 */
class Planner {
  private readonly slotOf: Map<string, number>[] = [];
  private slots = 0;
  /** The nodes that are constants (after folding), with their values. */
  private readonly constants = new Map<number, Value>();

  constructor(
    private readonly checked: CheckedExpr,
    private readonly optimize: boolean,
  ) {}

  get slotCount(): number {
    return this.slots;
  }

  private constant(e: Expr, value: Value): Step {
    this.constants.set(e.id, value);
    return () => value;
  }

  private constantOf(e: Expr): Value | undefined {
    return this.constants.get(e.id);
  }

  /** The step that evaluates `e` (cel-go's Eval). */
  plan(e: Expr): Step {
    switch (e.kind) {
      case 'const':
        return this.constant(e, e.value);
      case 'ident': {
        const typeName = this.checked.typeIdents.get(e.id);
        if (typeName !== undefined && this.lookupSlot(e.name) === undefined) return this.constant(e, new TypeValue(typeName));
        return this.evaluated(this.resolve(e), 1);
      }
      case 'select': {
        const typeName = this.checked.typeIdents.get(e.id);
        if (typeName !== undefined) return this.constant(e, new TypeValue(typeName));
        return this.evaluated(this.resolve(e), this.chainCost(e));
      }
      case 'call':
        if (e.fn === OP.index || e.fn === OP.conditional) return this.evaluated(this.resolve(e), this.chainCost(e));
        return this.planCall(e);
      case 'list':
        return this.planList(e);
      case 'map':
        return this.planMap(e);
      case 'comprehension':
        return this.planComprehension(e);
    }
  }

  /** An attribute evaluated: resolved, then its own cost charged. */
  private evaluated(resolve: Step, cost: number): Step {
    return (state) => {
      const v = resolve(state);
      charge(state, cost);
      return v;
    };
  }

  /** What evaluating the attribute chain `e` costs of its own: 1, or 0 when its root is a conditional. */
  private chainCost(e: Expr): number {
    let root = e;
    for (;;) {
      if (root.kind === 'select' && !this.checked.resolvedNames.has(root.id)) root = root.operand;
      else if (root.kind === 'call' && root.fn === OP.index) root = root.target ?? root.args[0]!;
      else break;
      if (!isAttribute(root, this.checked)) return COST.selectAndIdent;
    }
    return root.kind === 'call' && root.fn === OP.conditional ? 0 : COST.selectAndIdent;
  }

  /** What an attribute's operand, index or branch costs: resolved if an attribute, else evaluated. */
  private resolveOrEvaluate(e: Expr): Step {
    return isAttribute(e, this.checked) ? this.resolve(e) : this.plan(e);
  }

  /** The step that resolves the attribute `e` (cel-go's Resolve): its qualifiers' costs, not its own. */
  private resolve(e: Expr): Step {
    switch (e.kind) {
      case 'ident':
        return this.resolveIdent(e);
      case 'select':
        return this.resolveSelect(e);
      case 'call':
        return e.fn === OP.index ? this.resolveIndex(e) : this.resolveConditional(e);
      default:
        return this.plan(e);
    }
  }

  private lookupSlot(name: string): number | undefined {
    for (let i = this.slotOf.length - 1; i >= 0; i--) {
      const slot = this.slotOf[i]!.get(name);
      if (slot !== undefined) return slot;
    }
    return undefined;
  }

  private resolveIdent(e: Expr & { kind: 'ident' }): Step {
    const slot = this.lookupSlot(e.name);
    if (slot !== undefined) return (state) => state.slots[slot]!;
    return this.readVariable(e);
  }

  /** The root variable `e` names, or (unchecked) may name in the container, first found. */
  private readVariable(e: Expr & { kind: 'ident' | 'select' }): Step {
    const resolved = this.checked.resolvedNames.get(e.id);
    const name = resolved ?? (e.kind === 'ident' ? e.name : qualifiedName(e)!.name);
    const container = this.checked.uncheckedContainer;
    const names = container === undefined ? [name] : candidateNames(name, container);
    return (state) => {
      for (const candidate of names) {
        const v = state.activation[candidate];
        if (v !== undefined) return v;
      }
      return new ErrorValue(`no such attribute: ${name}`);
    };
  }

  private resolveSelect(e: Expr & { kind: 'select' }): Step {
    if (this.checked.resolvedNames.has(e.id)) return this.readVariable(e);
    if (this.checked.uncheckedContainer !== undefined && !e.testOnly) {
      const qualified = qualifiedName(e);
      if (qualified && this.lookupSlot(qualified.root.name) === undefined) return this.resolveMaybeQualified(e, qualified.name);
    }
    return this.resolveField(e);
  }

  /**
   * Unchecked, a selection that spells a qualified name reads the longest such name the
   * activation has (`a.b.c`, else `a.b` then `.c`, else `a` then `.b.c`), as cel-go's attributes.
   */
  private resolveMaybeQualified(e: Expr & { kind: 'select' }, qualified: string): Step {
    const whole = this.readVariable(e);
    const names = candidateNames(qualified, this.checked.uncheckedContainer);
    const shorter = this.resolveField(e);
    return (state) => (names.some((n) => n in state.activation) ? whole(state) : shorter(state));
  }

  private resolveField(e: Expr & { kind: 'select' }): Step {
    const operand = this.resolveOrEvaluate(e.operand);
    const field = e.field;
    return (state) => {
      const v = operand(state);
      if (v instanceof ErrorValue) return v;
      charge(state, COST.selectAndIdent);
      if (!(v instanceof MapValue)) return new ErrorValue('no such overload');
      if (!e.testOnly) return mapIndex(v, field);
      // A present field whose data does not convert is an error, not a presence.
      const present = v.get(field);
      return present instanceof ErrorValue ? present : present !== undefined;
    };
  }

  private resolveIndex(e: Expr & { kind: 'call' }): Step {
    const [operandExpr, indexExpr] = [...(e.target ? [e.target] : []), ...e.args] as [Expr, Expr];
    const operand = this.resolveOrEvaluate(operandExpr);
    const index = this.resolveOrEvaluate(indexExpr);
    return (state) => {
      const v = operand(state);
      if (v instanceof ErrorValue) return v;
      const key = index(state);
      charge(state, COST.selectAndIdent);
      return key instanceof ErrorValue ? key : indexValue(v, key);
    };
  }

  // cel-go's conditional attribute: the condition evaluated, then the branch taken resolved.
  private resolveConditional(e: Expr & { kind: 'call' }): Step {
    const [condExpr, yesExpr, noExpr] = e.args as [Expr, Expr, Expr];
    const cond = this.plan(condExpr);
    const yes = this.resolveOrEvaluate(yesExpr);
    const no = this.resolveOrEvaluate(noExpr);
    return (state) => {
      const c = cond(state);
      if (c === true) return yes(state);
      if (c === false) return no(state);
      return c instanceof ErrorValue ? c : new ErrorValue('no such overload');
    };
  }

  private planList(e: Expr & { kind: 'list' }): Step {
    const elements: Step[] = [];
    for (const x of e.elements) elements.push(this.plan(x));
    if (this.optimize && e.elements.every((x) => this.constants.has(x.id))) {
      return this.constant(e, new ArrayList(e.elements.map((x) => this.constantOf(x)!)));
    }
    return (state) => {
      const values: Value[] = [];
      for (const element of elements) {
        const v = element(state);
        if (v instanceof ErrorValue) return v;
        values.push(v);
      }
      charge(state, COST.listCreateBase);
      return new ArrayList(values);
    };
  }

  private planMap(e: Expr & { kind: 'map' }): Step {
    const entries = e.entries.map((x) => [this.plan(x.key), this.plan(x.value)] as const);
    // A repeated key keeps its last value: cel-go 0.16 (Kubernetes 1.28) does not refuse it.
    if (this.optimize && e.entries.every((x) => this.constants.has(x.key.id) && this.constants.has(x.value.id))) {
      return this.constant(e, new LiteralMap(e.entries.map((x) => [this.constantOf(x.key)!, this.constantOf(x.value)!] as const)));
    }
    return (state) => {
      const pairs: [Value, Value][] = [];
      for (const [key, value] of entries) {
        const k = key(state);
        if (k instanceof ErrorValue) return k;
        const v = value(state);
        if (v instanceof ErrorValue) return v;
        pairs.push([k, v]);
      }
      charge(state, COST.mapCreateBase);
      return new LiteralMap(pairs);
    };
  }

  private planCall(e: Expr & { kind: 'call' }): Step {
    const operandExprs = [...(e.target ? [e.target] : []), ...e.args];
    // A loop, not map(): a frame less per level of the tree.
    const operands: Step[] = [];
    for (const x of operandExprs) operands.push(this.plan(x));
    switch (e.fn) {
      case OP.and:
      case OP.or:
        return this.planLogic(e.fn === OP.and, operands[0]!, operands[1]!);
      case OP.notStrictlyFalse: {
        const [arg] = operands as [Step];
        return (state) => {
          const v = arg(state);
          charge(state, 1);
          return v !== false;
        };
      }
    }
    const candidates = this.checked.overloads.get(e.id) ?? [];
    const argTypes = operandExprs.map((x) => this.checked.types.get(x.id));
    const needsDispatch = candidates.length !== 1 || argTypes.some((t) => !t || t.kind === 'dyn');
    const fn = e.fn;
    // cel-go charges by the overload the checker resolved, none when several remained.
    const costId = candidates.length === 1 ? candidates[0]!.id : '';
    const choose = (args: readonly Value[]): Overload | undefined => {
      if (!needsDispatch) return candidates[0];
      return candidates.find((o) => o.params.every((p, i) => hasType(args[i]!, p))) ?? candidates.find((o) => o.accepts?.(args));
    };
    const call = (args: readonly Value[]): Value => {
      const error = args.find((a): a is ErrorValue => a instanceof ErrorValue);
      const overload = error ? undefined : choose(args);
      return error ?? (overload ? overload.impl(args) : new ErrorValue('no such overload'));
    };
    if (this.optimize) {
      const optimized = this.optimizeCall(e, operandExprs, operands, costId, call);
      if (optimized) return optimized;
    }
    return (state) => {
      const args = operands.map((operand) => operand(state));
      charge(state, callCost(fn, costId, args));
      return call(args);
    };
  }

  /** What cel-go's OptOptimize does with a call ahead of time, if anything. */
  private optimizeCall(e: Expr & { kind: 'call' }, operandExprs: readonly Expr[], operands: readonly Step[], costId: string, call: (args: readonly Value[]) => Value): Step | undefined {
    const constants = operandExprs.map((x) => this.constantOf(x));
    if (CONVERSIONS.has(e.fn) && !e.target && constants.length === 1 && constants[0] !== undefined) {
      const value = call(constants as Value[]);
      if (value instanceof ErrorValue) throw new ProgramError(value.message);
      return this.constant(e, value);
    }
    if (e.fn === OP.in && costId === 'in_list' && constants[1] instanceof ListValue) {
      const set = constantSet(constants[1]);
      if (set === 'empty') return this.constant(e, false);
      if (set) {
        const element = operands[0]!;
        return (state) => {
          const v = element(state);
          return v instanceof ErrorValue ? v : set.has(setKey(v));
        };
      }
    }
    if (REGEX_FUNCTIONS.has(e.fn) && typeof constants[1] === 'string') {
      const compiled = compileRegex(constants[1]);
      if (compiled instanceof ErrorValue) throw new ProgramError(compiled.message);
    }
    return undefined;
  }

  // cel-go's evalAnd / evalOr: short-circuit, and a decisive side absorbs the other's error.
  private planLogic(isAnd: boolean, left: Step, right: Step): Step {
    const decisive = !isAnd;
    return (state) => {
      const l = left(state);
      if (l === decisive) return decisive;
      const r = right(state);
      if (r === decisive) return decisive;
      if (typeof l === 'boolean' && typeof r === 'boolean') return !decisive;
      if (l instanceof ErrorValue) return l;
      if (r instanceof ErrorValue) return r;
      return new ErrorValue('no such overload');
    };
  }

  // cel-go's evalFold.
  private planComprehension(e: Expr & { kind: 'comprehension' }): Step {
    const range = this.plan(e.range);
    const init = this.plan(e.init);
    const accuSlot = this.slots++;
    const iterSlot = this.slots++;
    this.slotOf.push(new Map([[e.accuVar, accuSlot]]));
    this.slotOf.push(new Map([[e.iterVar, iterSlot]]));
    const cond = this.plan(e.cond);
    const step = this.plan(e.step);
    this.slotOf.pop();
    const result = this.plan(e.result);
    this.slotOf.pop();
    const buildsList = e.init.kind === 'list' && e.init.elements.length === 0 && e.accuVar === ACCUMULATOR;
    return (state) => {
      const r = range(state);
      if (r instanceof ErrorValue) return r;
      let items: Iterable<Value>;
      if (r instanceof ListValue) items = r.values();
      else if (r instanceof MapValue) items = r.keys();
      else return new ErrorValue(`got '${typeof r}', expected iterable type`);
      const saved = [state.slots[accuSlot], state.slots[iterSlot]];
      let accu = init(state);
      const building = buildsList ? new BuildingList([]) : undefined;
      if (building) accu = building;
      state.slots[accuSlot] = accu;
      for (const item of items) {
        // cel-go's interrupt point: each iteration (map() and filter() may charge nothing for one).
        tick(state, CLOCK_STRIDE);
        state.slots[iterSlot] = item;
        const c = cond(state);
        if (c === false) break;
        state.slots[accuSlot] = step(state);
      }
      let out = result(state);
      if (building && out === building) out = new ArrayList([...building.building]);
      state.slots[accuSlot] = saved[0]!;
      state.slots[iterSlot] = saved[1]!;
      return out;
    };
  }
}

/**
 * An evaluation's outcome: its value (an ErrorValue when it failed) and cost; `cancelled` when it
 * passed its cost limit, `interrupted` when it ran out of time (its value is then cel-go's
 * "operation interrupted").
 */
export interface Evaluation {
  readonly value: Value;
  readonly cost: number;
  readonly cancelled: boolean;
  readonly interrupted: boolean;
}

export interface Program {
  /**
   * Evaluates with the root variables given, stopping once the cost passes `limit` or the time its
   * timer allows (interrupt.ts; by default a timer of its own).
   */
  evaluate(activation: Readonly<Record<string, Value>>, limit: number, timer?: ExpressionTimer): Evaluation;
}

const isStackOverflow = (error: RangeError): boolean => /call stack/i.test(error.message);

/** The program of a checked expression; `optimize` as Kubernetes' cel.OptOptimize (see Planner). */
export function plan(checked: CheckedExpr, optimize: boolean): Program {
  const planner = new Planner(checked, optimize);
  const root = planner.plan(checked.expr);
  const slots = planner.slotCount;
  return {
    evaluate(activation, limit, timer = new ExpressionTimer()) {
      const state: EvalState = { activation, slots: new Array<Value>(slots).fill(null), cost: 0, limit, start: performance.now(), timer, ticks: 0 };
      const outcome = (value: Value, cancelled = false, interrupted = false): Evaluation => ({ value, cost: state.cost, cancelled, interrupted });
      try {
        return outcome(within(state, () => root(state)));
      } catch (error) {
        if (error instanceof CostLimitExceeded) return outcome(new ErrorValue(error.message), true);
        if (error instanceof EvaluationInterrupted) {
          timer.expire();
          return outcome(new ErrorValue(INTERRUPTED), false, true);
        }
        // The stack's end or an engine limit (a string too long): the expression fails, never the server.
        if (error instanceof RangeError) return outcome(new ErrorValue(isStackOverflow(error) ? 'max recursion depth exceeded' : error.message));
        throw error;
      }
    },
  };
}
