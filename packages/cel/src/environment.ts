// The environment expressions compile in: the variables they may read and the function libraries
// of Kubernetes 1.28 (cel-go's standard library, strings v0, lists, regex, URLs, authorizer).
// Compiling parses, type-checks and plans once; the result evaluates many times.
import { check, type CheckedExpr } from './checker.js';
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

  constructor(
    readonly source: string,
    readonly checked: CheckedExpr,
  ) {
    this.program = plan(checked);
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

  /** The value and runtime cost; evaluation stops (cancelled) once the cost passes `limit`. */
  evaluate(activation: Readonly<Record<string, Value>>, limit: number): Evaluation {
    return this.program.evaluate(activation, limit);
  }
}

export class CelEnvironment {
  private readonly functions: ReadonlyMap<string, FunctionDecl>;

  /** Variables by name and type; `extraLibraries` add functions to Kubernetes' set. */
  constructor(
    private readonly variables: ReadonlyMap<string, CelType>,
    extraLibraries: readonly (readonly FunctionDecl[])[] = [],
  ) {
    this.functions = extraLibraries.length ? mergeFunctions([...baseLibraries, ...extraLibraries]) : baseFunctions;
  }

  /** Parses and checks `source`; throws CompileError (cel-go's texts) when it does not compile. */
  compile(source: string): CompiledExpression {
    const expr = parse(source);
    const checked = check(source, expr, { variables: this.variables, functions: this.functions, typeIdentifiers });
    return new CompiledExpression(source, checked);
  }
}
