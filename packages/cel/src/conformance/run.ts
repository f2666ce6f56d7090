// Runs one cel-spec simple test as upstream's runner (cel-spec tests/simple/simple.go) does:
// parse, check with the test's declarations (unless it turns checking off), then evaluate the
// parsed-only expression and, when checked, the checked one; each result must match the
// expectation (a value compared exactly, by type; any error where an error is expected).
import { CelEnvironment, type CompiledExpression } from '../environment.js';
import { CompileError } from '../issues.js';
import { ErrorValue, ListValue, MapValue, OpaqueValue, Timestamp, Duration, TypeValue, UInt, typeName, type Value } from '../values.js';
import { formatDouble } from '../functions/conversions.js';
import type { Expectation, SimpleTest } from './simple-tests.js';

export interface Outcome {
  readonly passed: boolean;
  /** Why it did not pass. */
  readonly detail?: string;
}

/** No cost limit: conformance is about values, not budgets. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** Whether `actual` is `expected` exactly: the same type (1 is not 1u nor 1.0), NaN matching NaN, maps in any order. */
export function sameValue(expected: Value, actual: Value): boolean {
  if (typeName(expected) !== typeName(actual)) return false;
  if (typeof expected === 'number') return Object.is(expected, actual);
  if (expected instanceof UInt) return expected.value === (actual as UInt).value;
  if (expected instanceof Uint8Array) {
    const b = actual as Uint8Array;
    return expected.length === b.length && expected.every((x, i) => x === b[i]);
  }
  if (expected instanceof Timestamp || expected instanceof Duration) return expected.nanos === (actual as Timestamp | Duration).nanos;
  if (expected instanceof TypeValue) return expected.name === (actual as TypeValue).name;
  if (expected instanceof ListValue) {
    const list = actual as ListValue;
    if (expected.size() !== list.size()) return false;
    for (let i = 0; i < expected.size(); i++) if (!sameValue(expected.get(i), list.get(i))) return false;
    return true;
  }
  if (expected instanceof MapValue) {
    const map = actual as MapValue;
    if (expected.size() !== map.size()) return false;
    const keys = [...map.keys()];
    for (const key of expected.keys()) {
      const theirs = keys.find((k) => sameValue(key, k));
      if (theirs === undefined || !sameValue(expected.get(key)!, map.get(theirs)!)) return false;
    }
    return true;
  }
  if (expected instanceof OpaqueValue) return false;
  return expected === actual;
}

/** A value as CEL would write it, for the reports of failures. */
export function showValue(v: Value): string {
  if (v instanceof ErrorValue) return `error(${v.message})`;
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'number') return `${formatDouble(v)}(double)`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof UInt) return `${v.value}u`;
  if (v instanceof Uint8Array) return `b"${[...v].map((x) => `\\x${x.toString(16).padStart(2, '0')}`).join('')}"`;
  if (v instanceof Timestamp) return `timestamp(${v.nanos}ns)`;
  if (v instanceof Duration) return `duration(${v.nanos}ns)`;
  if (v instanceof TypeValue) return `type(${v.name})`;
  if (v instanceof ListValue) return `[${[...v.values()].map(showValue).join(', ')}]`;
  if (v instanceof MapValue) return `{${[...v.keys()].map((k) => `${showValue(k)}: ${showValue(v.get(k)!)}`).join(', ')}}`;
  if (v instanceof OpaqueValue) return `<${v.typeName}>`;
  return String(v);
}

function match(expected: Expectation, actual: Value): string | undefined {
  if (expected.kind === 'error' || expected.kind === 'unknown') {
    // Upstream's runner takes any error for an expected error or unknown.
    return actual instanceof ErrorValue ? undefined : `got ${showValue(actual)}, want an error`;
  }
  return sameValue(expected.value, actual) ? undefined : `got ${showValue(actual)}, want ${showValue(expected.value)}`;
}

function evaluate(program: CompiledExpression, test: SimpleTest, how: string): string | undefined {
  let value: Value;
  try {
    value = program.evaluate(test.bindings, UNLIMITED).value;
  } catch (error) {
    return `${how}: evaluation threw ${(error as Error).stack ?? error}`;
  }
  const mismatch = match(test.expected, value);
  return mismatch && `${how}: ${mismatch}`;
}

function compile(how: () => CompiledExpression, phase: string): CompiledExpression | string {
  try {
    return how();
  } catch (error) {
    if (error instanceof CompileError) return `${phase}: ${error.message.split('\n')[0]}`;
    return `${phase}: threw ${(error as Error).stack ?? error}`;
  }
}

export function runSimpleTest(test: SimpleTest): Outcome {
  if (test.disableMacros) return { passed: false, detail: 'parsing without macros is not supported' };
  // As cel-go's conformance server: cel-go's defaults, not Kubernetes' options.
  const env = new CelEnvironment(test.declarations, { container: test.container, optimize: false, homogeneousAggregateLiterals: false });
  const failures: string[] = [];
  const parsed = compile(() => env.compileUnchecked(test.expr), 'parse');
  if (typeof parsed === 'string') return { passed: false, detail: parsed };
  const uncheckedFailure = evaluate(parsed, test, 'unchecked');
  if (uncheckedFailure) failures.push(uncheckedFailure);
  if (!test.disableCheck) {
    const checked = compile(() => env.compile(test.expr), 'check');
    if (typeof checked === 'string') failures.push(checked);
    else {
      const checkedFailure = evaluate(checked, test, 'checked');
      if (checkedFailure) failures.push(checkedFailure);
    }
  }
  return failures.length ? { passed: false, detail: failures.join('; ') } : { passed: true };
}
