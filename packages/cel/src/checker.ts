// The type checker: a type for every node, the overloads each call may resolve to (the cost model
// and the interpreter key on them), and cel-go's errors for what does not type.
import { ACCUMULATOR, OP, type Expr } from './ast.js';
import type { FunctionDecl, Overload } from './functions/overload.js';
import { CompileError, type Issue } from './issues.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  ErrorType,
  IntType,
  NullType,
  StringType,
  Substitution,
  TimestampType,
  UintType,
  finalize,
  formatType,
  isAssignable,
  listOf,
  mapOf,
  sameType,
  typeOf,
  type CelType,
} from './types.js';
import { Duration, Timestamp, UInt, type Value } from './values.js';

export interface CheckedExpr {
  readonly expr: Expr;
  /** Every node's type, by node id. */
  readonly types: ReadonlyMap<number, CelType>;
  /** Every call's candidate overloads, by node id (more than one when arguments are dyn). */
  readonly overloads: ReadonlyMap<number, readonly Overload[]>;
  /** Identifiers that name a type (`int`), by node id: their value is that type. */
  readonly typeIdents: ReadonlyMap<number, string>;
  /** The root variables the expression reads. */
  readonly variables: ReadonlySet<string>;
  /**
   * Identifiers, and selections that spell a qualified variable (`a.b.c`), resolved to the
   * variable they read where its name is not their own text, by node id.
   */
  readonly resolvedNames: ReadonlyMap<number, string>;
  /** Set when unchecked: names resolve at runtime, against the activation (resolvedNames is empty). */
  readonly uncheckedContainer?: string;
  readonly outputType: CelType;
}

export interface CheckerEnv {
  readonly variables: ReadonlyMap<string, CelType>;
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  readonly typeIdentifiers: ReadonlyMap<string, CelType>;
  /** The namespace names resolve in (cel-go's container): none in Kubernetes. */
  readonly container?: string;
  /** The elements of a list literal, and a map literal's keys and values, must be of one type (Kubernetes). */
  readonly homogeneousAggregateLiterals?: boolean;
}

/** The names `name` may stand for in `container`, most qualified first (cel-go's ResolveCandidateNames). */
export function candidateNames(name: string, container: string | undefined): string[] {
  if (!container) return [name];
  const candidates: string[] = [];
  for (let prefix = container; prefix; prefix = prefix.slice(0, Math.max(0, prefix.lastIndexOf('.')))) {
    candidates.push(`${prefix}.${name}`);
  }
  candidates.push(name);
  return candidates;
}

/** The dotted name a chain of selections on an identifier spells (`a.b.c`), with its root identifier. */
export function qualifiedName(e: Expr): { name: string; root: Expr & { kind: 'ident' } } | undefined {
  if (e.kind === 'ident') return { name: e.name, root: e };
  if (e.kind !== 'select' || e.testOnly) return undefined;
  const operand = qualifiedName(e.operand);
  return operand && { name: `${operand.name}.${e.field}`, root: operand.root };
}

function constType(v: Value): CelType {
  switch (typeof v) {
    case 'bigint':
      return IntType;
    case 'number':
      return DoubleType;
    case 'string':
      return StringType;
    case 'boolean':
      return BoolType;
  }
  if (v === null) return NullType;
  if (v instanceof Uint8Array) return BytesType;
  if (v instanceof UInt) return UintType;
  if (v instanceof Timestamp) return TimestampType;
  if (v instanceof Duration) return DurationType;
  return DynType;
}

/** A copy of `t` with its type parameters renamed apart, so each call binds its own. */
function instantiate(t: CelType, suffix: string): CelType {
  switch (t.kind) {
    case 'param':
      return { kind: 'param', name: `${t.name}${suffix}` };
    case 'list':
      return listOf(instantiate(t.elem, suffix));
    case 'map':
      return mapOf(instantiate(t.key, suffix), instantiate(t.value, suffix));
    case 'type':
      return t.of ? typeOf(instantiate(t.of, suffix)) : t;
    default:
      return t;
  }
}

class Checker {
  private readonly subst = new Substitution();
  private readonly types = new Map<number, CelType>();
  private readonly overloads = new Map<number, readonly Overload[]>();
  private readonly typeIdents = new Map<number, string>();
  private readonly variables = new Set<string>();
  private readonly resolvedNames = new Map<number, string>();
  private readonly issues: Issue[] = [];
  private readonly scopes: Map<string, CelType>[] = [];
  private fresh = 0;

  constructor(private readonly env: CheckerEnv) {}

  run(expr: Expr): CheckedExpr {
    const t = this.check(expr);
    const types = new Map<number, CelType>();
    for (const [id, type] of this.types) types.set(id, finalize(type, this.subst));
    return {
      expr,
      types,
      overloads: this.overloads,
      typeIdents: this.typeIdents,
      variables: this.variables,
      resolvedNames: this.resolvedNames,
      outputType: finalize(t, this.subst),
    };
  }

  get errors(): readonly Issue[] {
    return this.issues;
  }

  private error(e: Expr, message: string): CelType {
    this.issues.push({ offset: e.offset, message });
    return ErrorType;
  }

  private freshParam(): CelType {
    return { kind: 'param', name: `_var${this.fresh++}` };
  }

  private check(e: Expr): CelType {
    const t = this.checkNode(e);
    this.types.set(e.id, t);
    return t;
  }

  private lookup(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(name);
      if (t) return t;
    }
    return undefined;
  }

  private checkNode(e: Expr): CelType {
    switch (e.kind) {
      case 'const':
        return constType(e.value);
      case 'ident': {
        const local = this.lookup(e.name);
        if (local) return local;
        const variable = this.resolveVariable(e, e.name);
        if (variable) return variable;
        const type = this.env.typeIdentifiers.get(e.name);
        if (type) {
          this.typeIdents.set(e.id, e.name);
          return typeOf(type);
        }
        return this.error(e, `undeclared reference to '${e.name}' (in container '${this.env.container ?? ''}')`);
      }
      case 'select':
        return this.checkSelect(e);
      case 'call':
        return this.checkCall(e);
      case 'list': {
        let elem: CelType | undefined;
        for (const element of e.elements) elem = this.join(element, elem, this.check(element));
        return listOf(elem ?? this.freshParam());
      }
      case 'map': {
        let key: CelType | undefined;
        let value: CelType | undefined;
        for (const entry of e.entries) {
          key = this.join(entry.key, key, this.check(entry.key));
          value = this.join(entry.value, value, this.check(entry.value));
        }
        return mapOf(key ?? this.freshParam(), value ?? this.freshParam());
      }
      case 'comprehension':
        return this.checkComprehension(e);
    }
  }

  /**
   * The type of a literal's elements so far joined with the next one's (`e`'s): the same, or dyn;
   * with homogeneous aggregate literals (Kubernetes'), a different type is an error.
   */
  private join(e: Expr, previous: CelType | undefined, next: CelType): CelType {
    if (!previous) return next;
    const mark = this.subst.mark();
    if (isAssignable(previous, next, this.subst)) return previous;
    this.subst.rollback(mark);
    if (!this.env.homogeneousAggregateLiterals) return DynType;
    this.error(e, `expected type '${formatType(finalize(previous, this.subst))}' but found '${formatType(finalize(next, this.subst))}'`);
    return previous;
  }

  /** The type of the variable `name` resolves to in the container, noting what `e` reads; undefined when none. */
  private resolveVariable(e: Expr, name: string): CelType | undefined {
    for (const candidate of candidateNames(name, this.env.container)) {
      const type = this.env.variables.get(candidate);
      if (!type) continue;
      this.variables.add(candidate);
      if (candidate !== name || e.kind !== 'ident') this.resolvedNames.set(e.id, candidate);
      return type;
    }
    return undefined;
  }

  private checkSelect(e: Expr & { kind: 'select' }): CelType {
    // A selection that spells a declared variable's qualified name reads that variable (longest first).
    const qualified = qualifiedName(e);
    if (qualified && e.kind === 'select' && !this.lookup(qualified.root.name)) {
      const variable = this.resolveVariable(e, qualified.name);
      if (variable) return variable;
      // A dotted type name: google.protobuf.Timestamp.
      const type = this.env.typeIdentifiers.get(qualified.name);
      if (type) {
        this.typeIdents.set(e.id, qualified.name);
        return typeOf(type);
      }
    }
    const operand = this.subst.resolve(this.check(e.operand));
    let result: CelType;
    switch (operand.kind) {
      case 'object': {
        const field = operand.fields.get(e.field);
        result = field ?? this.error(e, `undefined field '${e.field}'`);
        break;
      }
      case 'map':
        if (!isAssignable(operand.key, StringType, this.subst)) return this.error(e, `type '${formatType(operand)}' does not support field selection`);
        result = operand.value;
        break;
      case 'dyn':
      case 'error':
      case 'param':
        result = DynType;
        break;
      default:
        return this.error(e, `type '${formatType(operand)}' does not support field selection`);
    }
    return e.testOnly ? BoolType : result;
  }

  private checkCall(e: Expr & { kind: 'call' }): CelType {
    // A loop, not map(): a frame less per level of the tree (see parse.ts's MAX_TREE_DEPTH).
    const argTypes: CelType[] = [];
    if (e.target) argTypes.push(this.check(e.target));
    for (const a of e.args) argTypes.push(this.check(a));
    const decl = this.env.functions.get(e.fn);
    if (!decl) return this.error(e, `undeclared reference to '${e.fn}' (in container '${this.env.container ?? ''}')`);
    const isMember = e.target !== undefined;
    const matched: Overload[] = [];
    let result: CelType | undefined;
    for (const overload of decl.overloads) {
      if (overload.member !== isMember || overload.params.length !== argTypes.length) continue;
      const suffix = `#${this.fresh++}`;
      const mark = this.subst.mark();
      if (!overload.params.every((p, i) => isAssignable(instantiate(p, suffix), argTypes[i]!, this.subst))) {
        this.subst.rollback(mark);
        continue;
      }
      const overloadResult = this.subst.apply(instantiate(overload.result, suffix));
      // The first overload that fits keeps its bindings; the others only say what else may fit.
      if (matched.length > 0) this.subst.rollback(mark);
      matched.push(overload);
      if (!result) result = overloadResult;
      else if (result.kind !== 'dyn' && !sameType(result, overloadResult)) result = DynType;
    }
    if (!matched.length) {
      const shown = argTypes.map((t) => formatType(finalize(t, this.subst)));
      const applied = isMember ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
      return this.error(e, `found no matching overload for '${e.fn}' applied to '${applied}'`);
    }
    this.overloads.set(e.id, matched);
    return result!;
  }

  private checkComprehension(e: Expr & { kind: 'comprehension' }): CelType {
    const range = this.subst.resolve(this.check(e.range));
    let iterType: CelType;
    switch (range.kind) {
      case 'list':
        iterType = range.elem;
        break;
      case 'map':
        iterType = range.key;
        break;
      case 'dyn':
      case 'error':
      case 'param':
        iterType = DynType;
        break;
      default:
        this.error(e.range, `expression of type '${formatType(range)}' cannot be the range of a comprehension (must be list, map, or dynamic)`);
        iterType = DynType;
    }
    const accuType = this.check(e.init);
    this.scopes.push(new Map([[e.accuVar, accuType]]));
    this.scopes.push(new Map([[e.iterVar, iterType]]));
    const cond = this.check(e.cond);
    if (!isAssignable(BoolType, cond, this.subst)) this.error(e.cond, `expected type '${formatType(BoolType)}' but found '${formatType(cond)}'`);
    const step = this.check(e.step);
    if (!isAssignable(accuType, step, this.subst)) {
      this.error(e.step, `expected type '${formatType(finalize(accuType, this.subst))}' but found '${formatType(finalize(step, this.subst))}'`);
    }
    this.scopes.pop();
    const result = this.check(e.result);
    this.scopes.pop();
    return result;
  }
}

/** Type-checks `expr` (parsed from `source`) in `env`; a CompileError lists what does not type. */
export function check(source: string, expr: Expr, env: CheckerEnv): CheckedExpr {
  const checker = new Checker(env);
  const checked = checker.run(expr);
  if (checker.errors.length) throw new CompileError(source, checker.errors);
  return checked;
}

export { ACCUMULATOR, OP };

/**
 * `expr` as cel-go runs a parsed expression it has not checked: every node dyn, every call
 * dispatched at runtime among the overloads of its name and arity (none: a runtime error),
 * identifiers read from the activation. Kubernetes always checks; this serves the conformance tests that turn checking off.
 */
export function uncheckedExpr(expr: Expr, env: CheckerEnv): CheckedExpr {
  const types = new Map<number, CelType>();
  const overloads = new Map<number, readonly Overload[]>();
  const typeIdents = new Map<number, string>();
  const variables = new Set<string>();
  const visit = (e: Expr, locals: ReadonlySet<string>): void => {
    types.set(e.id, DynType);
    switch (e.kind) {
      case 'ident':
        if (locals.has(e.name)) break;
        if (!env.variables.has(e.name) && env.typeIdentifiers.has(e.name)) typeIdents.set(e.id, e.name);
        else variables.add(e.name);
        break;
      case 'select': {
        const qualified = qualifiedName(e);
        if (qualified && !locals.has(qualified.root.name) && !env.variables.has(qualified.name) && env.typeIdentifiers.has(qualified.name)) {
          typeIdents.set(e.id, qualified.name);
          break;
        }
        visit(e.operand, locals);
        break;
      }
      case 'call': {
        if (e.target) visit(e.target, locals);
        for (const a of e.args) visit(a, locals);
        const arity = e.args.length + (e.target ? 1 : 0);
        const candidates = (env.functions.get(e.fn)?.overloads ?? []).filter((o) => o.member === (e.target !== undefined) && o.params.length === arity);
        overloads.set(e.id, candidates);
        break;
      }
      case 'list':
        for (const x of e.elements) visit(x, locals);
        break;
      case 'map':
        for (const entry of e.entries) {
          visit(entry.key, locals);
          visit(entry.value, locals);
        }
        break;
      case 'comprehension': {
        visit(e.range, locals);
        visit(e.init, locals);
        const inner = new Set([...locals, e.accuVar, e.iterVar]);
        visit(e.cond, inner);
        visit(e.step, inner);
        visit(e.result, new Set([...locals, e.accuVar]));
        break;
      }
    }
  };
  visit(expr, new Set());
  return { expr, types, overloads, typeIdents, variables, resolvedNames: new Map(), uncheckedContainer: env.container ?? '', outputType: DynType };
}
