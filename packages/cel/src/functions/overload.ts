// How a library declares its functions: each overload with cel-go's id (costs are keyed by it), its
// parameter and result types for the checker, and its implementation for the interpreter.
import { DynType, type CelType } from '../types.js';
import { ErrorValue, type Value } from '../values.js';

export interface Overload {
  /** cel-go's overload id (e.g. `add_int64`), which the cost model keys on. */
  readonly id: string;
  /** Called as `target.fn(args)`: the target is the first parameter. */
  readonly member: boolean;
  readonly params: readonly CelType[];
  readonly result: CelType;
  /** The arguments are checked (or, for dyn ones, matched at runtime) against `params`; errors are returned as ErrorValue. */
  readonly impl: (args: readonly Value[]) => Value;
  /**
   * Arguments it also takes at runtime when no overload's parameters match them (they were dyn
   * when checked): cel-go runs the standard operators by their values' traits, so numbers of
   * different types compare.
   */
  readonly accepts?: (args: readonly Value[]) => boolean;
}

export interface FunctionDecl {
  readonly name: string;
  readonly overloads: readonly Overload[];
}

export const err = (message: string): ErrorValue => new ErrorValue(message);
export const noSuchOverload = (): ErrorValue => new ErrorValue('no such overload');

export const global = (id: string, params: readonly CelType[], result: CelType, impl: (args: readonly Value[]) => Value): Overload => ({
  id,
  member: false,
  params,
  result,
  impl,
});

export const member = (id: string, params: readonly CelType[], result: CelType, impl: (args: readonly Value[]) => Value): Overload => ({
  id,
  member: true,
  params,
  result,
  impl,
});

export const fn = (name: string, ...overloads: Overload[]): FunctionDecl => ({ name, overloads });

/** `dyn(x)`: x itself, typed dyn. */
export const dynFunction = fn('dyn', global('to_dyn', [DynType], DynType, ([v]) => v!));
