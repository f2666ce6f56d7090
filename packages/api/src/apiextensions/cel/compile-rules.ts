// The x-kubernetes-validations rules of one schema node compiled (upstream's cel.Compile): each
// rule and messageExpression parsed and checked with `self` and `oldSelf` of the node's type, its
// estimated cost, whether it is a transition rule, and its fieldPath normalized. Shared by the
// CRD's validation (which reports the errors and costs) and the custom resources' validator (which
// runs the programs).
import {
  CelEnvironment,
  CompileError,
  ProgramError,
  type CelType,
  declTypeSizes,
  maxCardinality,
  schemaDeclType,
  type CompiledExpression,
  type DeclType,
  type SchemaNode,
} from '@plat/cel';
import type { JSONSchemaProps, ValidationRule } from '../types.js';
import { validFieldPath } from './rule-field-path.js';

export interface CompiledRule {
  readonly rule: ValidationRule;
  /** Undefined when the rule is empty or did not compile. */
  readonly program?: CompiledExpression;
  /** Why the rule did not compile (`compilation failed: ...`). */
  readonly error?: string;
  /** Whether the rule reads oldSelf: it runs only on updates that have an old value. */
  readonly transition: boolean;
  readonly maxCost: number;
  /** How often the node's data can occur in one request, when nothing above bounds it. */
  readonly maxCardinality: number;
  readonly messageExpression?: CompiledExpression;
  readonly messageExpressionError?: string;
  readonly messageExpressionMaxCost: number;
  readonly fieldPath?: string;
}

export const asSchemaNode = (schema: JSONSchemaProps): SchemaNode => schema as unknown as SchemaNode;

/** The node's declared type, as its rules see `self`: undefined when expressions cannot see it. */
export function ruleDeclType(schema: JSONSchemaProps, isResourceRoot: boolean): DeclType | undefined {
  return schemaDeclType(asSchemaNode(schema), isResourceRoot, 'Object');
}

/** The compiled expression, or why not: it did not check, or (checked to `outputType`) it could not be planned. */
type Compiled = CompiledExpression | { readonly compileError: string } | { readonly programError: string; readonly outputType: CelType | undefined };

function compileOne(env: CelEnvironment, source: string): Compiled {
  try {
    return env.compile(source);
  } catch (error) {
    if (error instanceof CompileError) return { compileError: error.message };
    if (error instanceof ProgramError) return { programError: error.message, outputType: error.outputType };
    throw error;
  }
}

/** Every rule of the node compiled, in order. */
export function compileRules(schema: JSONSchemaProps, declType: DeclType): CompiledRule[] {
  const env = new CelEnvironment(
    new Map([
      ['self', declType.type],
      ['oldSelf', declType.type],
    ]),
  );
  const sizes = declTypeSizes(declType);
  const cardinality = maxCardinality(declType.minSerializedSize);
  return (schema['x-kubernetes-validations'] ?? []).map((rule): CompiledRule => {
    const empty: CompiledRule = { rule, transition: false, maxCost: 0, maxCardinality: 0, messageExpressionMaxCost: 0 };
    if (!rule.rule?.trim()) return empty;
    const compiled = compileOne(env, rule.rule);
    if ('compileError' in compiled) return { ...empty, error: `compilation failed: ${compiled.compileError}` };
    // Upstream checks the type before it instantiates the program.
    if (compiled.outputType?.kind !== 'bool') return { ...empty, error: 'cel expression must evaluate to a bool' };
    if ('programError' in compiled) return { ...empty, error: `program instantiation failed: ${compiled.programError}` };
    let result: CompiledRule = {
      ...empty,
      program: compiled,
      transition: compiled.references('oldSelf'),
      maxCost: compiled.estimateCost(sizes).max,
      maxCardinality: cardinality,
    };
    if (rule.messageExpression) {
      const message = compileOne(env, rule.messageExpression);
      if ('compileError' in message) return { ...result, messageExpressionError: `messageExpression compilation failed: ${message.compileError}` };
      if (message.outputType?.kind !== 'string') return { ...result, messageExpressionError: 'messageExpression must evaluate to a string' };
      if ('programError' in message) return { ...result, messageExpressionError: `messageExpression instantiation failed: ${message.programError}` };
      result = { ...result, messageExpression: message, messageExpressionMaxCost: message.estimateCost(sizes).max };
    }
    if (rule.fieldPath) {
      try {
        result = { ...result, fieldPath: validFieldPath(rule.fieldPath, asSchemaNode(schema)) };
      } catch {
        // An invalid fieldPath is the CRD validation's to report; the rule then reports at its own path.
      }
    }
    return result;
  });
}
