// The environment expressions compile in: the variables they may read and the function libraries
// of Kubernetes 1.28 (cel-go's standard library, strings v0, lists, regex, URLs, authorizer).
// Compiling parses, type-checks and plans once; the result evaluates many times.
import { check, uncheckedExpr, type CheckedExpr, type CheckerEnv } from './checker.js';
import { estimateCost, type Estimate, type SizeEstimator } from './cost.js';
import { authzLibrary } from './functions/authz.js';
import { conversionFunctions, typeIdentifiers } from './functions/conversions.js';
import { listsLibrary } from './functions/lists.js';
import { operatorFunctions } from './functions/operators.js';
import type { FunctionDecl, Overload } from './functions/overload.js';
import { regexLibrary } from './functions/regex.js';
import { standardStringFunctions, stringsExtension } from './functions/strings.js';
import { timeFunctions } from './functions/time.js';
import { urlsLibrary } from './functions/urls.js';
import { plan, type Evaluation, type Program } from './interpreter.js';
import type { ExpressionTimer } from './interrupt.js';
import { CompileError, NO_LOCATION, ProgramError } from './issues.js';
import { parse } from './parse.js';
import type { CelType } from './types.js';
import type { Value } from './values.js';

const baseLibraries: readonly (readonly FunctionDecl[])[] = [
  operatorFunctions,
  conversionFunctions,
  timeFunctions,
  standardStringFunctions,
  stringsExtension,
  listsLibrary,
  regexLibrary,
  urlsLibrary,
  authzLibrary,
];

/** The libraries' declarations merged by function name (indexOf is both the strings' and the lists'). */
function mergeFunctions(libraries: readonly (readonly FunctionDecl[])[]): Map<string, FunctionDecl> {
  const merged = new Map<string, Overload[]>();
  for (const library of libraries) {
    for (const decl of library) merged.set(decl.name, [...(merged.get(decl.name) ?? []), ...decl.overloads]);
  }
  return new Map([...merged].map(([name, overloads]) => [name, { name, overloads }]));
}

const baseFunctions = mergeFunctions(baseLibraries);

/** A compiled expression: its checked tree, its result type, and its program. */
export class CompiledExpression {
  private readonly program: Program;

  /** Throws ProgramError when planning finds a constant that fails (see Planner's optimizations). */
  constructor(
    readonly source: string,
    readonly checked: CheckedExpr,
    optimize = true,
  ) {
    try {
      this.program = plan(checked, optimize);
    } catch (error) {
      if (error instanceof ProgramError) throw new ProgramError(error.message, checked.outputType);
      throw error;
    }
  }

  get outputType(): CelType {
    return this.checked.outputType;
  }

  /** Whether the expression reads the root variable `name` (oldSelf makes a transition rule). */
  references(name: string): boolean {
    return this.checked.variables.has(name);
  }

  /** The estimated cost range, with data sizes from `sizes`. */
  estimateCost(sizes: SizeEstimator): Estimate {
    return estimateCost(this.checked, sizes);
  }

  /**
   * The value and runtime cost; evaluation stops (cancelled) once the cost passes `limit`, and
   * (interrupted) once it runs longer than its timer allows (interrupt.ts; its own by default).
   */
  evaluate(activation: Readonly<Record<string, Value>>, limit: number, timer?: ExpressionTimer): Evaluation {
    return this.program.evaluate(activation, limit, timer);
  }
}

/**
 * The last guard of the stack: parse() keeps trees within cel-go's depth, which every stage
 * handles with thousands of frames to spare; should a caller already be that deep, the expression
 * is refused with cel-go's depth error rather than failing the request.
 */
function guardDepth<T>(source: string, compile: () => T): T {
  try {
    return compile();
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new CompileError(source, [{ offset: NO_LOCATION, message: 'max recursion depth exceeded' }]);
    }
    throw error;
  }
}

export interface EnvironmentOptions {
  /** Functions added to Kubernetes' set (the admission policies' own, for instance). */
  readonly libraries?: readonly (readonly FunctionDecl[])[];
  /** The namespace names resolve in (cel-go's container): none in Kubernetes. */
  readonly container?: string;
  /**
   * Kubernetes' cel.OptOptimize, on unless false: constants computed when an expression is
   * compiled (a failing one is a ProgramError), at no runtime cost. cel-go's conformance runs
   * without it.
   */
  readonly optimize?: boolean;
  /**
   * Kubernetes' cel.HomogeneousAggregateLiterals, on unless false: a list literal's elements (a
   * map literal's keys, and values) of one type, else a compile error. cel-go's default is off.
   */
  readonly homogeneousAggregateLiterals?: boolean;
}

export class CelEnvironment {
  private readonly functions: ReadonlyMap<string, FunctionDecl>;
  private readonly container: string;
  private readonly optimize: boolean;
  private readonly homogeneousAggregateLiterals: boolean;

  constructor(
    private readonly variables: ReadonlyMap<string, CelType>,
    options: EnvironmentOptions = {},
  ) {
    const extra = options.libraries ?? [];
    this.functions = extra.length ? mergeFunctions([...baseLibraries, ...extra]) : baseFunctions;
    this.container = options.container ?? '';
    this.optimize = options.optimize ?? true;
    this.homogeneousAggregateLiterals = options.homogeneousAggregateLiterals ?? true;
  }

  private checkerEnv(): CheckerEnv {
    return { variables: this.variables, functions: this.functions, typeIdentifiers, container: this.container, homogeneousAggregateLiterals: this.homogeneousAggregateLiterals };
  }

  /**
   * Parses, checks and plans `source`: a CompileError (cel-go's texts) when it does not compile, a
   * ProgramError when it checks but cannot be planned (program instantiation, in cel-go's words).
   */
  compile(source: string): CompiledExpression {
    return guardDepth(source, () => {
      const expr = parse(source);
      const checked = check(source, expr, this.checkerEnv());
      return new CompiledExpression(source, checked, this.optimize);
    });
  }

  /**
   * Parses `source` and plans it unchecked, as cel-go runs an expression it was not asked to check
   * (calls dispatched on their arguments' runtime types). For the conformance tests: Kubernetes
   * checks every expression it runs.
   */
  compileUnchecked(source: string): CompiledExpression {
    return guardDepth(source, () => {
      const expr = parse(source);
      const checked = uncheckedExpr(expr, this.checkerEnv());
      return new CompiledExpression(source, checked, this.optimize);
    });
  }
}
