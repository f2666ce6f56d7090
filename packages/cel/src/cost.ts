// The static cost estimate of a checked expression: cel-go's checker/cost.go with Kubernetes'
// library estimates (k8s.io/apiserver pkg/cel/library/cost.go). Sizes of data come from a
// SizeEstimator by the node's path from a variable (`self`, `spec`, `@items`, `@keys`, `@values`),
// as upstream finds them; a range [min, max] is carried and max is what limits compare against.
import { ACCUMULATOR, OP, type Expr } from './ast.js';
import type { CheckedExpr } from './checker.js';
import { AUTHZ_NOMINAL_FUNCTIONS, COST, TRAVERSAL_FUNCTIONS } from './limits.js';
import type { CelType } from './types.js';
import { codePointLength } from './values.js';

/** A range of costs or sizes; MAX stands for "unbounded" and absorbs arithmetic as cel-go's saturating uint64. */
export interface Estimate {
  readonly min: number;
  readonly max: number;
}

/** cel-go's math.MaxUint64, as a number: estimates saturate there. */
export const MAX = 18446744073709551615;

const add = (a: number, b: number): number => (a + b >= MAX ? MAX : a + b);
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : a >= MAX / b ? MAX : a * b);
const byFactor = (a: number, f: number): number => (a > 0 && f > 0 && a >= MAX / f ? MAX : Math.ceil(a * f));

const sum = (a: Estimate, b: Estimate): Estimate => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const product = (a: Estimate, b: Estimate): Estimate => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });
const factor = (a: Estimate, f: number): Estimate => ({ min: byFactor(a.min, f), max: byFactor(a.max, f) });
const union = (a: Estimate, b: Estimate): Estimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const fixed = (n: number): Estimate => ({ min: n, max: n });
const ZERO = fixed(0);
const UNBOUNDED: Estimate = { min: 0, max: MAX };

/** Where the sizes of data come from: by path from a variable (the first element is the variable). */
export interface SizeEstimator {
  estimateSize(path: readonly string[]): Estimate | undefined;
}

interface Node {
  readonly path: readonly string[] | undefined;
  readonly type: CelType | undefined;
  readonly expr: Expr | undefined;
  readonly computed: Estimate | undefined;
}

class Coster {
  private readonly paths = new Map<number, readonly string[]>();
  private readonly iterRanges = new Map<string, number[]>();
  private readonly computedSizes = new Map<number, Estimate>();

  constructor(
    private readonly checked: CheckedExpr,
    private readonly sizes: SizeEstimator,
  ) {}

  private typeOf(e: Expr): CelType | undefined {
    return this.checked.types.get(e.id);
  }

  private node(e: Expr): Node {
    let path = this.paths.get(e.id);
    // Only paths from root variables: the accumulator's size says nothing of the data.
    if (path && path[0] === ACCUMULATOR) path = undefined;
    return { path, type: this.typeOf(e), expr: e, computed: this.computedSizes.get(e.id) ?? computedSize(e) };
  }

  /** cel-go's sizeEstimate: computed, else estimated, else 1 for fixed-size types, else unbounded. */
  private size(n: Node): Estimate {
    if (n.computed) return n.computed;
    const estimated = n.path ? this.sizes.estimateSize(n.path) : undefined;
    if (estimated) return estimated;
    return n.type && isScalar(n.type) ? fixed(1) : UNBOUNDED;
  }

  /** Kubernetes' library estimator's sizeEstimate: no fixed-size fallback. */
  private librarySize(n: Node): Estimate {
    if (n.computed) return n.computed;
    const estimated = n.path ? this.sizes.estimateSize(n.path) : undefined;
    return estimated ?? UNBOUNDED;
  }

  cost(e: Expr): Estimate {
    switch (e.kind) {
      case 'const':
        return fixed(COST.const);
      case 'ident': {
        const ranges = this.iterRanges.get(e.name);
        const range = ranges?.[ranges.length - 1];
        if (range !== undefined) {
          const rangeType = this.checked.types.get(range);
          const base = this.paths.get(range) ?? [];
          if (rangeType?.kind === 'list') this.paths.set(e.id, [...base, '@items']);
          else if (rangeType?.kind === 'map') this.paths.set(e.id, [...base, '@keys']);
        } else {
          this.paths.set(e.id, [e.name]);
        }
        return fixed(COST.selectAndIdent);
      }
      case 'select': {
        if (e.testOnly) return sum(fixed(COST.selectAndIdent), this.cost(e.operand));
        let total = this.cost(e.operand);
        const operandType = this.typeOf(e.operand);
        if (operandType && (operandType.kind === 'map' || operandType.kind === 'object' || operandType.kind === 'param')) {
          total = sum(total, fixed(COST.selectAndIdent));
        }
        this.paths.set(e.id, [...(this.paths.get(e.operand.id) ?? []), e.field]);
        return total;
      }
      case 'call':
        return this.callCost(e);
      case 'list': {
        let total = fixed(COST.listCreateBase);
        for (const x of e.elements) total = sum(total, this.cost(x));
        return total;
      }
      case 'map': {
        let total = fixed(COST.mapCreateBase);
        for (const x of e.entries) total = sum(sum(total, this.cost(x.key)), this.cost(x.value));
        return total;
      }
      case 'comprehension': {
        let total = sum(this.cost(e.range), this.cost(e.init));
        const stack = this.iterRanges.get(e.iterVar) ?? [];
        stack.push(e.range.id);
        this.iterRanges.set(e.iterVar, stack);
        const loop = this.cost(e.cond);
        const step = this.cost(e.step);
        stack.pop();
        total = sum(total, this.cost(e.result));
        const count = this.size(this.node(e.range));
        return sum(total, product(count, sum(step, loop)));
      }
    }
  }

  private callCost(e: Expr & { kind: 'call' }): Estimate {
    // Loops, not map(): a frame less per level of the tree.
    const argCosts: Estimate[] = [];
    for (const a of e.args) argCosts.push(this.cost(a));
    const args = e.args.map((a) => this.node(a));
    const overloads = this.checked.overloads.get(e.id);
    if (!overloads?.length) return ZERO;
    let total = ZERO;
    let target: Node | undefined;
    if (e.target) {
      total = sum(total, this.cost(e.target));
      target = this.node(e.target);
    }
    let fnCost: Estimate = { min: MAX, max: 0 };
    let resultSize: Estimate | undefined;
    for (const overload of overloads) {
      const estimate = this.functionCost(e.fn, overload.id, target, args, argCosts);
      fnCost = union(fnCost, estimate.cost);
      if (estimate.resultSize) resultSize = resultSize ? union(resultSize, estimate.resultSize) : estimate.resultSize;
      if (overload.id === 'index_list' && e.args.length > 0) this.paths.set(e.id, [...(this.paths.get(e.args[0]!.id) ?? []), '@items']);
      if (overload.id === 'index_map' && e.args.length > 0) this.paths.set(e.id, [...(this.paths.get(e.args[0]!.id) ?? []), '@values']);
    }
    if (resultSize) this.computedSizes.set(e.id, resultSize);
    return sum(total, fnCost);
  }

  private functionCost(fn: string, overloadId: string, target: Node | undefined, args: Node[], argCosts: Estimate[]): { cost: Estimate; resultSize?: Estimate } {
    const argSum = (): Estimate => argCosts.reduce(sum, ZERO);
    const library = this.libraryCost(fn, target, args);
    if (library) return { cost: sum(library.cost, argSum()), ...(library.resultSize && { resultSize: library.resultSize }) };
    const traversal = COST.stringTraversalFactor;
    switch (overloadId) {
      case 'string_to_bytes':
        if (args.length === 1) {
          const sz = this.size(args[0]!);
          return { cost: sum(factor(sz, traversal), argSum()), resultSize: { min: sz.min, max: mul(sz.max, 4) } };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const sz = this.size(args[0]!);
          return { cost: sum(factor(sz, traversal), argSum()), resultSize: { min: Math.floor(sz.min / 4), max: sz.max } };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return { cost: sum(factor(this.size(args[0]!), traversal), argSum()) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: sum(this.size(args[1]!), argSum()) };
        break;
      case 'matches_string':
        if (target && args.length === 1) {
          const strCost = factor(sum(this.size(target), fixed(1)), traversal);
          const regexCost = factor(this.size(args[0]!), COST.regexStringLengthFactor);
          return { cost: sum(product(strCost, regexCost), argSum()) };
        }
        break;
      case 'contains_string':
        if (target && args.length === 1) {
          return { cost: sum(product(factor(this.size(target), traversal), factor(this.size(args[0]!), traversal)), argSum()) };
        }
        break;
      case 'logical_or':
      case 'logical_and': {
        const [lhs, rhs] = argCosts as [Estimate, Estimate];
        return { cost: { min: lhs.min, max: add(lhs.max, rhs.max) } };
      }
      case 'conditional': {
        const size = union(this.size(args[1]!), this.size(args[2]!));
        const [c, yes, no] = argCosts as [Estimate, Estimate, Estimate];
        return { cost: sum(c, union(yes, no)), resultSize: size };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = sum(this.size(args[0]!), this.size(args[1]!));
          if (overloadId === 'add_list') return { cost: sum(fixed(1), argSum()), resultSize };
          return { cost: sum(factor(resultSize, traversal), argSum()), resultSize };
        }
        break;
      case 'less_string':
      case 'greater_string':
      case 'less_equals_string':
      case 'greater_equals_string':
      case 'less_bytes':
      case 'greater_bytes':
      case 'less_equals_bytes':
      case 'greater_equals_bytes':
      case 'equals':
      case 'not_equals': {
        const smallestMax = Math.min(this.size(args[0]!).max, this.size(args[1]!).max);
        const range = { min: smallestMax > 0 ? 1 : 0, max: smallestMax };
        return { cost: sum(factor(range, traversal), argSum()) };
      }
    }
    return { cost: sum(fixed(1), argSum()) };
  }

  /** The element node of a list node, for the list functions' per-element costs. */
  private elementOf(list: Node): Node | undefined {
    if (list.type?.kind !== 'list') return undefined;
    return { path: list.path ? [...list.path, '@items'] : undefined, type: list.type.elem, expr: undefined, computed: undefined };
  }

  // Kubernetes' EstimateCallCost, by function name.
  private libraryCost(fn: string, target: Node | undefined, args: Node[]): { cost: Estimate; resultSize?: Estimate } | undefined {
    const traversal = COST.stringTraversalFactor;
    if (AUTHZ_NOMINAL_FUNCTIONS.has(fn)) return { cost: fixed(1) };
    if (TRAVERSAL_FUNCTIONS.has(fn)) {
      if (!target) return undefined;
      const element = this.elementOf(target);
      if (element) {
        // One comparison per element, and for strings or bytes their traversal.
        let perElement = fixed(1);
        if (element.type?.kind === 'string' || element.type?.kind === 'bytes') perElement = sum(perElement, factor(this.librarySize(element), traversal));
        return { cost: product(this.librarySize(target), perElement) };
      }
      return { cost: factor(this.librarySize(target), traversal) };
    }
    switch (fn) {
      case 'check':
        return { cost: fixed(COST.authzCheck) };
      case 'url':
        return args.length === 1 ? { cost: factor(this.librarySize(args[0]!), traversal) } : undefined;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim': {
        if (!target) return undefined;
        const sz = this.librarySize(target);
        return { cost: factor(sz, traversal), resultSize: sz };
      }
      case 'replace': {
        if (!target || args.length < 2) return undefined;
        const sz = this.librarySize(target);
        const toReplace = this.librarySize(args[0]!);
        const replaceWith = this.librarySize(args[1]!);
        let countMax: number;
        let countMin: number;
        let retainedMax = 0;
        let retainedMin = 0;
        if (toReplace.min === 0) {
          countMax = sz.max < MAX ? sz.max + 1 : sz.max;
          retainedMax = sz.max;
        } else if (replaceWith.max <= toReplace.min) {
          countMax = 0;
          retainedMax = sz.max;
        } else {
          countMax = Math.ceil(sz.max / toReplace.min);
        }
        if (toReplace.max === 0) {
          countMin = sz.min < MAX ? sz.min + 1 : sz.min;
          retainedMin = sz.min;
        } else if (toReplace.max <= replaceWith.min) {
          countMin = 0;
          retainedMin = sz.min;
        } else {
          countMin = Math.ceil(sz.min / toReplace.max);
        }
        const size = sum(product({ min: countMin, max: countMax }, replaceWith), { min: retainedMin, max: retainedMax });
        return { cost: factor(sz, 2 * traversal), resultSize: size };
      }
      case 'split': {
        if (!target) return undefined;
        const sz = this.librarySize(target);
        let max = sz.max;
        const limit = args[1]?.expr;
        if (limit?.kind === 'const' && typeof limit.value === 'bigint') max = Number(limit.value);
        return { cost: factor(sz, 2 * traversal), resultSize: { min: 0, max } };
      }
      case 'join': {
        if (!target) return undefined;
        const listSize = this.librarySize(target);
        const element = this.elementOf(target);
        let sz = element ? product(listSize, this.librarySize(element)) : ZERO;
        if (args.length > 0) {
          const separators = { min: listSize.min > 0 ? listSize.min - 1 : 0, max: listSize.max > 0 ? listSize.max - 1 : 0 };
          sz = sum(sz, product(this.librarySize(args[0]!), separators));
        }
        return { cost: factor(sz, traversal), resultSize: sz };
      }
      case 'find':
      case 'findAll': {
        if (!target || args.length < 1) return undefined;
        const sz = this.librarySize(target);
        const strCost = factor(sum(sz, fixed(1)), traversal);
        const regexCost = factor(this.librarySize(args[0]!), COST.regexStringLengthFactor);
        return { cost: product(strCost, regexCost), resultSize: { min: 0, max: sz.max } };
      }
    }
    return undefined;
  }
}

/** The exact size of constants and literals (cel-go's ComputedSize). */
function computedSize(e: Expr): Estimate | undefined {
  if (e.kind === 'const') {
    const v = e.value;
    if (typeof v === 'string') return fixed(codePointLength(v));
    if (v instanceof Uint8Array) return fixed(v.length);
    return fixed(1);
  }
  if (e.kind === 'list') return fixed(e.elements.length);
  if (e.kind === 'map') return fixed(e.entries.length);
  return undefined;
}

/** Types of a known fixed size (cel-go's isScalar): numbers, bool, timestamps and durations. */
function isScalar(t: CelType): boolean {
  switch (t.kind) {
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
    case 'timestamp':
    case 'duration':
      return true;
    default:
      return false;
  }
}

/** The estimated cost range of a checked expression. */
export function estimateCost(checked: CheckedExpr, sizes: SizeEstimator): Estimate {
  return new Coster(checked, sizes).cost(checked.expr);
}

export { OP };
