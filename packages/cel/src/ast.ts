// The expression tree the checker, the cost estimator and the interpreter share: cel-go's shape,
// with the macros (has, all, exists, exists_one, map, filter) already expanded into presence tests
// and comprehensions exactly as cel-go expands them, so that costs count the same steps.
import type { Value } from './values.js';

interface Base {
  /** Unique within one expression. */
  readonly id: number;
  /** Offset in the source where errors about this node point. */
  readonly offset: number;
}

export type Expr =
  | (Base & { readonly kind: 'const'; readonly value: Value })
  | (Base & { readonly kind: 'ident'; readonly name: string })
  | (Base & { readonly kind: 'select'; readonly operand: Expr; readonly field: string; readonly testOnly: boolean })
  | (Base & { readonly kind: 'call'; readonly fn: string; readonly target: Expr | undefined; readonly args: readonly Expr[] })
  | (Base & { readonly kind: 'list'; readonly elements: readonly Expr[] })
  | (Base & { readonly kind: 'map'; readonly entries: readonly { readonly key: Expr; readonly value: Expr }[] })
  | (Base & {
      readonly kind: 'comprehension';
      readonly iterVar: string;
      readonly range: Expr;
      readonly accuVar: string;
      readonly init: Expr;
      readonly cond: Expr;
      readonly step: Expr;
      readonly result: Expr;
    });

/** The accumulator's name in expanded macros (cel-go's). */
export const ACCUMULATOR = '__result__';

/** Operator function names (cel-go's). */
export const OP = {
  add: '_+_',
  subtract: '_-_',
  multiply: '_*_',
  divide: '_/_',
  modulo: '_%_',
  equals: '_==_',
  notEquals: '_!=_',
  less: '_<_',
  lessEquals: '_<=_',
  greater: '_>_',
  greaterEquals: '_>=_',
  in: '@in',
  index: '_[_]',
  not: '!_',
  negate: '-_',
  and: '_&&_',
  or: '_||_',
  conditional: '_?_:_',
  notStrictlyFalse: '@not_strictly_false',
} as const;

/** Every node of `e`, parents before children. */
export function* walk(e: Expr): Generator<Expr> {
  yield e;
  switch (e.kind) {
    case 'select':
      yield* walk(e.operand);
      break;
    case 'call':
      if (e.target) yield* walk(e.target);
      for (const a of e.args) yield* walk(a);
      break;
    case 'list':
      for (const a of e.elements) yield* walk(a);
      break;
    case 'map':
      for (const entry of e.entries) {
        yield* walk(entry.key);
        yield* walk(entry.value);
      }
      break;
    case 'comprehension':
      yield* walk(e.range);
      yield* walk(e.init);
      yield* walk(e.cond);
      yield* walk(e.step);
      yield* walk(e.result);
      break;
  }
}
