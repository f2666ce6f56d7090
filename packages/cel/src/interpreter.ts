// Evaluation of a checked expression, with cel-go's runtime cost tracking: every identifier and
// field selection costs 1, every call its cost from runtime-cost.ts, list and map literals their
// base, and the logical operators, the conditional and constants nothing; the comprehensions that
// macros expand to cost what their steps cost, iteration by iteration. Evaluation stops as soon as
// the cost passes the limit. The tree is turned into closures once, at compile time.
import { ACCUMULATOR, OP, type Expr } from './ast.js';
import type { CheckedExpr } from './checker.js';
import type { Overload } from './functions/overload.js';
import { mapIndex } from './functions/operators.js';
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

/** One evaluation's state: the root variables, the comprehension variables' slots, the cost so far. */
export interface EvalState {
  readonly activation: Readonly<Record<string, Value>>;
  readonly slots: Value[];
  cost: number;
  readonly limit: number;
}

type Step = (state: EvalState) => Value;

function charge(state: EvalState, amount: number): void {
  state.cost += amount;
  if (state.cost > state.limit) throw new CostLimitExceeded();
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
    case 'list':
      return v instanceof ListValue;
    case 'map':
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

class Planner {
  private readonly slotOf: Map<string, number>[] = [];
  private slots = 0;

  constructor(private readonly checked: CheckedExpr) {}

  get slotCount(): number {
    return this.slots;
  }

  plan(e: Expr): Step {
    switch (e.kind) {
      case 'const': {
        const value = e.value;
        return () => value;
      }
      case 'ident':
        return this.planIdent(e);
      case 'select':
        return this.planSelect(e);
      case 'call':
        return this.planCall(e);
      case 'list': {
        const elements = e.elements.map((x) => this.plan(x));
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
      case 'map': {
        const entries = e.entries.map((x) => [this.plan(x.key), this.plan(x.value)] as const);
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
          const map = new LiteralMap(pairs);
          return map.size() === pairs.length ? map : new ErrorValue('Failed with repeated key');
        };
      }
      case 'comprehension':
        return this.planComprehension(e);
    }
  }

  private lookupSlot(name: string): number | undefined {
    for (let i = this.slotOf.length - 1; i >= 0; i--) {
      const slot = this.slotOf[i]!.get(name);
      if (slot !== undefined) return slot;
    }
    return undefined;
  }

  private planIdent(e: Expr & { kind: 'ident' }): Step {
    const slot = this.lookupSlot(e.name);
    if (slot !== undefined) {
      return (state) => {
        charge(state, COST.selectAndIdent);
        return state.slots[slot]!;
      };
    }
    const typeName = this.checked.typeIdents.get(e.id);
    if (typeName !== undefined) {
      const value = new TypeValue(typeName);
      return (state) => {
        charge(state, COST.selectAndIdent);
        return value;
      };
    }
    const name = e.name;
    return (state) => {
      charge(state, COST.selectAndIdent);
      const v = state.activation[name];
      return v === undefined ? new ErrorValue(`no such attribute: ${name}`) : v;
    };
  }

  private planSelect(e: Expr & { kind: 'select' }): Step {
    const operand = this.plan(e.operand);
    const field = e.field;
    if (e.testOnly) {
      return (state) => {
        const v = operand(state);
        charge(state, COST.selectAndIdent);
        if (v instanceof ErrorValue) return v;
        if (v instanceof MapValue) return v.get(field) !== undefined;
        return new ErrorValue('no such overload');
      };
    }
    return (state) => {
      const v = operand(state);
      charge(state, COST.selectAndIdent);
      if (v instanceof ErrorValue) return v;
      if (v instanceof MapValue) return mapIndex(v, field);
      return new ErrorValue('no such overload');
    };
  }

  private planCall(e: Expr & { kind: 'call' }): Step {
    const operands = [...(e.target ? [e.target] : []), ...e.args].map((x) => this.plan(x));
    switch (e.fn) {
      case OP.and:
      case OP.or:
        return this.planLogic(e.fn === OP.and, operands[0]!, operands[1]!);
      case OP.conditional: {
        const [cond, yes, no] = operands as [Step, Step, Step];
        return (state) => {
          const c = cond(state);
          if (c === true) return yes(state);
          if (c === false) return no(state);
          return c instanceof ErrorValue ? c : new ErrorValue('no such overload');
        };
      }
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
    const argTypes = [...(e.target ? [e.target] : []), ...e.args].map((x) => this.checked.types.get(x.id));
    const needsDispatch = candidates.length !== 1 || argTypes.some((t) => !t || t.kind === 'dyn');
    const fn = e.fn;
    const choose = (args: readonly Value[]): Overload | undefined => {
      if (!needsDispatch) return candidates[0];
      return candidates.find((o) => o.params.every((p, i) => hasType(args[i]!, p)));
    };
    return (state) => {
      const args: Value[] = [];
      let error: ErrorValue | undefined;
      for (const operand of operands) {
        const v = operand(state);
        if (v instanceof ErrorValue) error ??= v;
        args.push(v);
      }
      const overload = error ? undefined : choose(args);
      const result = error ?? (overload ? overload.impl(args) : new ErrorValue('no such overload'));
      charge(state, callCost(fn, overload?.id ?? '', args, result));
      return result;
    };
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

/** An evaluation's outcome: its value (an ErrorValue when it failed) and cost; `cancelled` when it passed its limit. */
export interface Evaluation {
  readonly value: Value;
  readonly cost: number;
  readonly cancelled: boolean;
}

export interface Program {
  /** Evaluates with the root variables given, stopping once the cost passes `limit`. */
  evaluate(activation: Readonly<Record<string, Value>>, limit: number): Evaluation;
}

export function plan(checked: CheckedExpr): Program {
  const planner = new Planner(checked);
  const root = planner.plan(checked.expr);
  const slots = planner.slotCount;
  return {
    evaluate(activation, limit) {
      const state: EvalState = { activation, slots: new Array<Value>(slots).fill(null), cost: 0, limit };
      try {
        return { value: root(state), cost: state.cost, cancelled: false };
      } catch (error) {
        if (!(error instanceof CostLimitExceeded)) throw error;
        return { value: new ErrorValue(error.message), cost: state.cost, cancelled: true };
      }
    },
  };
}
