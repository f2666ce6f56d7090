// One binding's evaluation of its policy for one request and one parameter object, as upstream's
// validatingadmissionpolicy validator.go: match conditions first (their own budget), then the
// validations and the messages of those that failed (sharing the binding's budget), then the audit
// annotations; errors become decisions by the failure policy.
import { ExpressionTimer, MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, RUNTIME_COST_BUDGET, type Value } from '@plat/cel';
import { AUTHORIZER, REQUEST_RESOURCE_AUTHORIZER, NAMESPACE_OBJECT } from './policy-cel.js';
import type { CompiledPolicy } from './compiled-policy.js';
import { evaluatePass, type Activation } from './policy-evaluation.js';

/** upstream's RuntimeCELCostBudgetMatchConditions. */
export const MATCH_CONDITIONS_BUDGET = 2_500_000;

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: 'admit' | 'deny' | 'error';
  readonly message: string;
  /** The status reason of a denial (Invalid when the validation names none). */
  readonly reason?: string;
  /**
   * Seconds its validation expression ran (0 for a failure of the whole pass), for
   * apiserver_validating_admission_policy_check_duration_seconds. 1.28 never fills this in and
   * observes 0 every time; 1.32 does, as here.
   */
  readonly elapsed: number;
}

export interface PolicyAuditAnnotation {
  readonly key: string;
  readonly action: 'publish' | 'exclude' | 'error';
  readonly value?: string;
  readonly error?: string;
  /** Seconds its valueExpression ran, as a decision's. */
  readonly elapsed: number;
}

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly PolicyAuditAnnotation[];
}

const actionForError = (failurePolicy: string): PolicyDecision['action'] => (failurePolicy === 'Ignore' ? 'admit' : 'deny');

const errorResult = (failurePolicy: string, message: string): ValidateResult => ({
  decisions: [{ action: actionForError(failurePolicy), evaluation: 'error', message, elapsed: 0 }],
  auditAnnotations: [],
});

/** upstream's utilerrors.NewAggregate(...).Error(): one message alone, several in brackets. */
const aggregate = (messages: readonly string[]): string => (messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`);

/** The message a messageExpression gave, when usable: a string, trimmed, short enough, on one line. */
function usableMessage(value: Value | undefined): string {
  if (typeof value !== 'string') return '';
  const message = value.trim();
  if (Buffer.byteLength(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || message.includes('\n')) return '';
  return message;
}

/**
 * Evaluates `policy` for one binding and one parameter object. `activation` holds object, oldObject,
 * request, namespaceObject, params (when declared) and the authorizer variables. `timer` is the
 * request's (upstream's context): once one expression runs out of time, the others do.
 */
export function evaluatePolicy(policy: CompiledPolicy, activation: Activation, budget = RUNTIME_COST_BUDGET, timer = new ExpressionTimer()): ValidateResult {
  const failurePolicy = policy.failurePolicy;
  if (policy.matchConditions.length) {
    // Match conditions do not see the namespace object (upstream passes none).
    const pass = evaluatePass(
      policy.matchConditions.map((c) => c.expression),
      { ...activation, [NAMESPACE_OBJECT]: null },
      policy.variables,
      MATCH_CONDITIONS_BUDGET,
      timer,
    );
    if ('error' in pass) return failurePolicy === 'Fail' ? errorResult(failurePolicy, pass.error) : { decisions: [], auditAnnotations: [] };
    const errors: string[] = [];
    for (const result of pass.results) {
      if (result?.error !== undefined) errors.push(result.error);
      // Any condition false: the policy does not apply.
      else if (result?.value === false) return { decisions: [], auditAnnotations: [] };
    }
    if (errors.length) return failurePolicy === 'Fail' ? errorResult(failurePolicy, aggregate(errors)) : { decisions: [], auditAnnotations: [] };
  }

  const validations = evaluatePass(
    policy.validations.map((v) => v.expression),
    activation,
    policy.variables,
    budget,
    timer,
  );
  if ('error' in validations) return errorResult(failurePolicy, validations.error);
  // Messages are evaluated with what the validations left of the budget, without the authorizer.
  const { [AUTHORIZER]: _a, [REQUEST_RESOURCE_AUTHORIZER]: _r, ...withoutAuthorizer } = activation;
  const messages = evaluatePass(
    policy.validations.map((v) => v.messageExpression),
    withoutAuthorizer,
    policy.variables,
    validations.remaining,
    timer,
  );
  const messageFailure = 'error' in messages ? messages.error : undefined;
  const decisions = validations.results.map((result, i): PolicyDecision => {
    const validation = policy.validations[i]!;
    const elapsed = result?.elapsed ?? 0;
    if (result?.error !== undefined) return { action: actionForError(failurePolicy), evaluation: 'error', message: result.error, elapsed };
    // The message pass ran out of budget: every validation fails with it, as upstream's.
    if (messageFailure !== undefined) {
      return { action: actionForError(failurePolicy), evaluation: 'error', message: `failed messageExpression: ${messageFailure}`, elapsed };
    }
    if (result?.value === true) return { action: 'admit', evaluation: 'admit', message: '', elapsed };
    const evaluated = 'error' in messages ? undefined : messages.results[i];
    let message = evaluated?.error === undefined ? usableMessage(evaluated?.value) : '';
    if (!message && validation.message) message = validation.message.trim();
    if (!message) message = `failed expression: ${validation.expression.source.trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: validation.reason ?? 'Invalid', elapsed };
  });

  // Audit annotations have a budget of their own, and no authorizer.
  const annotations = evaluatePass(
    policy.auditAnnotations.map((a) => a.valueExpression),
    withoutAuthorizer,
    policy.variables,
    budget,
    timer,
  );
  if ('error' in annotations) return errorResult(failurePolicy, annotations.error);
  const auditAnnotations = annotations.results.map((result, i): PolicyAuditAnnotation => {
    const { key, valueExpression } = policy.auditAnnotations[i]!;
    const elapsed = result?.elapsed ?? 0;
    if (result?.error !== undefined) return { key, action: failurePolicy === 'Ignore' ? 'exclude' : 'error', error: result.error, elapsed };
    const value = result?.value;
    if (typeof value === 'string') {
      const trimmed = value.trim();
      return trimmed ? { key, action: 'publish', value: trimmed, elapsed } : { key, action: 'exclude', elapsed };
    }
    if (value === null) return { key, action: 'exclude', elapsed };
    return {
      key,
      elapsed,
      action: 'error',
      error: `valueExpression '${valueExpression.source}' resulted in unsupported return type: ${typeOfValue(value)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}

function typeOfValue(value: Value | undefined): string {
  switch (typeof value) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    default:
      return 'dyn';
  }
}
