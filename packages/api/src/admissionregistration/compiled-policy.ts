// A ValidatingAdmissionPolicy compiled once per generation (every binding of it shares the result):
// its match constraints with selectors parsed, and its variables, match conditions, validations,
// message expressions and audit annotations compiled as upstream's runtime compiles them (a composing
// compiler, so that `variables` is declared; the authorizer everywhere but in message expressions).
import { PolicyCompiler, type PolicyExpression } from './policy-cel.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicySpec } from './types.js';
import { compileMatch, type CompiledMatch } from './matching.js';
import type { CompiledVariable } from './policy-evaluation.js';

export interface CompiledValidation {
  readonly expression: PolicyExpression;
  readonly messageExpression: PolicyExpression | undefined;
  readonly message: string;
  readonly reason: string | undefined;
}

export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly valueExpression: PolicyExpression;
}

export interface CompiledPolicy {
  readonly name: string;
  readonly uid: string | undefined;
  readonly generation: number;
  readonly spec: ValidatingAdmissionPolicySpec;
  /** Fail unless the policy says Ignore (an unknown value is refused as upstream refuses it). */
  readonly failurePolicy: string;
  readonly matchConstraints: CompiledMatch;
  readonly variables: ReadonlyMap<string, CompiledVariable>;
  readonly matchConditions: readonly { name: string; expression: PolicyExpression }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  const hasParams = spec.paramKind !== undefined;
  const withAuthorizer = { hasParams, hasAuthorizer: true };
  const compiler = new PolicyCompiler(true);
  const variables = new Map<string, CompiledVariable>();
  for (const variable of spec.variables ?? []) {
    variables.set(variable.name, { name: variable.name, expression: compiler.compileVariable(variable.name, variable.expression ?? '', withAuthorizer) });
  }
  return {
    name: policy.metadata.name ?? '',
    uid: policy.metadata.uid,
    generation: policy.metadata.generation ?? 0,
    spec,
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConstraints: compileMatch(spec.matchConstraints ?? {}),
    variables,
    matchConditions: (spec.matchConditions ?? []).map((condition) => ({
      name: condition.name,
      expression: compiler.compile(condition.expression ?? '', 'matchCondition', withAuthorizer),
    })),
    validations: (spec.validations ?? []).map((validation) => ({
      expression: compiler.compile(validation.expression ?? '', 'validation', withAuthorizer),
      messageExpression: validation.messageExpression ? compiler.compile(validation.messageExpression, 'messageExpression', { hasParams, hasAuthorizer: false }) : undefined,
      message: validation.message ?? '',
      reason: validation.reason,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((annotation) => ({
      key: annotation.key,
      valueExpression: compiler.compile(annotation.valueExpression ?? '', 'auditAnnotation', withAuthorizer),
    })),
  };
}
