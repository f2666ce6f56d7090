// Validation of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, as upstream's
// pkg/apis/admissionregistration/validation (Kubernetes 1.28): field rules, the policy's expressions
// compiled in its environment (policy-cel.ts), and upstream's messages and paths.
import {
  FieldError,
  GoFormatted,
  duplicate,
  forbidden,
  goQuote,
  invalid,
  isDNS1035Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPathSegmentName,
  nameIsDNSSubdomain,
  newPath,
  notSupported,
  required,
  validateLabelSelectorObject,
  type FieldPath,
} from '@plat/apimachinery';
import { PolicyCompiler, type PolicyExpression, type PolicyVariableOptions } from './policy-cel.js';
import type {
  AuditAnnotation,
  MatchCondition,
  MatchResources,
  NamedRuleWithOperations,
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicySpec,
  Validation,
  Variable,
} from './types.js';

export const MAX_MATCH_CONDITIONS = 64;
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;

const supportedFailurePolicies = ['Fail', 'Ignore'];
const supportedMatchPolicies = ['Equivalent', 'Exact'];
const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const supportedScopes = ['*', 'Cluster', 'Namespaced'];
const supportedValidationActions = ['Audit', 'Deny', 'Warn'];
/**
 * The reasons a validation may give. Upstream's API documents Unauthorized with the other three,
 * and its admission answers it with a 401, though its validation code lists only the three:
 * the documented set is taken here.
 */
const supportedReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];

/** A list as Go's %#v prints it: `[]string{"a", "b"}`. */
const goList = (type: string, values: readonly unknown[]): GoFormatted => new GoFormatted(`[]${type}{${values.map((v) => goQuote(String(v))).join(', ')}}`);

const tooMany = (path: FieldPath, actual: number, max: number): FieldError =>
  new FieldError('FieldValueTooMany', path.toString(), actual, `must have at most ${max} items`);

const hasWildcard = (values: readonly string[]): boolean => values.includes('*');
const hasNewlines = (s: string): boolean => /[\n\r]+/.test(s);
const nonEmpty = <T>(list: readonly T[] | undefined | null): readonly T[] => list ?? [];

function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!resources.length) errors.push(required(path));
  const withWildcardSubresource = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errors.push(required(path.index(i)));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSubresource.has(res)) errors.push(invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesWithWildcardResource.has(sub)) errors.push(invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSubresource.add(res);
    if (res === '*') subresourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errors.push(invalid(path, goList('string', resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource) errors.push(invalid(path, goList('string', resources), "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

function validateRuleWithOperations(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const operations = nonEmpty(rule.operations);
  if (!operations.length) errors.push(required(path.child('operations')));
  if (operations.length > 1 && operations.includes('*')) {
    errors.push(invalid(path.child('operations'), goList('admissionregistration.OperationType', operations), "if '*' is present, must not specify other operations"));
  }
  operations.forEach((operation, i) => {
    if (!supportedOperations.includes(operation)) errors.push(notSupported(path.child('operations').index(i), operation, supportedOperations));
  });
  const groups = nonEmpty(rule.apiGroups);
  if (!groups.length) errors.push(required(path.child('apiGroups')));
  if (groups.length > 1 && hasWildcard(groups)) errors.push(invalid(path.child('apiGroups'), goList('string', groups), "if '*' is present, must not specify other API groups"));
  const versions = nonEmpty(rule.apiVersions);
  if (!versions.length) errors.push(required(path.child('apiVersions')));
  if (versions.length > 1 && hasWildcard(versions)) errors.push(invalid(path.child('apiVersions'), goList('string', versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((version, i) => {
    if (version === '') errors.push(required(path.child('apiVersions').index(i)));
  });
  errors.push(...validateResources(nonEmpty(rule.resources), path.child('resources')));
  if (rule.scope !== undefined && !supportedScopes.includes(rule.scope)) errors.push(notSupported(path.child('scope'), rule.scope, supportedScopes));
  return errors;
}

function validateNamedRuleWithOperations(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  nonEmpty(rule.resourceNames).forEach((name, i) => {
    for (const message of isValidPathSegmentName(name)) errors.push(invalid(path.child('resourceNames').index(i), name, message));
    if (seen.has(name)) errors.push(duplicate(path.child('resourceNames').index(i), name));
    else seen.add(name);
  });
  return [...errors, ...validateRuleWithOperations(rule, path)];
}

function validateMatchResources(match: MatchResources | undefined, path: FieldPath): FieldError[] {
  if (!match) return [];
  const errors: FieldError[] = [];
  if (match.matchPolicy === undefined) errors.push(required(path.child('matchPolicy')));
  else if (!supportedMatchPolicies.includes(match.matchPolicy)) errors.push(notSupported(path.child('matchPolicy'), match.matchPolicy, supportedMatchPolicies));
  if (match.namespaceSelector === undefined) errors.push(required(path.child('namespaceSelector')));
  else errors.push(...validateLabelSelectorObject(match.namespaceSelector, path.child('namespaceSelector')));
  if (match.objectSelector === undefined) errors.push(required(path.child('objectSelector')));
  else errors.push(...validateLabelSelectorObject(match.objectSelector, path.child('objectSelector')));
  nonEmpty(match.resourceRules).forEach((rule, i) => errors.push(...validateNamedRuleWithOperations(rule, path.child('resourceRules').index(i))));
  nonEmpty(match.excludeResourceRules).forEach((rule, i) => errors.push(...validateNamedRuleWithOperations(rule, path.child('excludeResourceRules').index(i))));
  return errors;
}

/** "group/version" or "version" (the core group), as upstream's parseGroupVersion. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } | string {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return `unexpected GroupVersion string: ${apiVersion}`;
}

function validateParamKind(kind: ParamKind, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = kind.apiVersion ?? '';
  if (!apiVersion) {
    errors.push(required(path.child('apiVersion')));
  } else {
    const gv = parseGroupVersion(apiVersion);
    if (typeof gv === 'string') {
      errors.push(invalid(path.child('apiVersion'), apiVersion, gv));
    } else {
      if (gv.group) {
        const problems = isDNS1123Subdomain(gv.group);
        if (problems.length) errors.push(invalid(path.child('apiVersion'), gv.group, problems.join(',')));
      }
      if (!gv.version) {
        errors.push(invalid(path.child('apiVersion'), apiVersion, 'version must be specified'));
      } else {
        const problems = isDNS1035Label(gv.version);
        if (problems.length) errors.push(invalid(path.child('apiVersion'), gv.version, problems.join(',')));
      }
    }
  }
  const kindName = kind.kind ?? '';
  if (!kindName) {
    errors.push(required(path.child('kind')));
  } else {
    const problems = isDNS1035Label(kindName.toLowerCase());
    if (problems.length) errors.push(invalid(path.child('kind'), kindName, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  }
  return errors;
}

/** What a compile error of an expression reports, at `path` (upstream's convertCELErrorToValidationError). */
function expressionErrors(result: PolicyExpression, path: FieldPath, value: string = result.source): FieldError[] {
  if (!result.error) return [];
  return [result.error.type === 'Required' ? required(path, result.error.detail) : invalid(path, value, result.error.detail)];
}

interface PolicyValidationOptions {
  /** The match conditions are unchanged from the stored policy's: they are not compiled again. */
  ignoreMatchConditions: boolean;
}

function validateMatchConditions(conditions: readonly MatchCondition[], options: PolicyVariableOptions, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  // Match conditions never see variables: upstream compiles them without composition.
  const compiler = new PolicyCompiler(false);
  conditions.forEach((condition, i) => {
    const at = path.index(i);
    const expression = (condition.expression ?? '').trim();
    if (!expression) errors.push(required(at.child('expression')));
    else errors.push(...expressionErrors(compiler.compile(expression, 'matchCondition', options), at.child('expression')));
    const name = condition.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    else for (const message of isQualifiedName(name)) errors.push(invalid(at.child('name'), name, message));
    if (name) {
      if (names.has(name)) errors.push(duplicate(at.child('name'), name));
      else names.add(name);
    }
  });
  return errors;
}

const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
export const isCELIdentifier = (name: string): boolean => celIdentifier.test(name) && !celReserved.has(name);

function validateVariable(compiler: PolicyCompiler, variable: Variable, hasParams: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = variable.name ?? '';
  if (!name.trim()) errors.push(required(path.child('name'), 'name is not specified'));
  else if (!isCELIdentifier(name)) errors.push(invalid(path.child('name'), name, 'name is not a valid CEL identifier'));
  const expression = variable.expression ?? '';
  if (!expression.trim()) {
    errors.push(required(path.child('expression'), 'expression is not specified'));
  } else {
    errors.push(...expressionErrors(compiler.compileVariable(name, expression, { hasParams, hasAuthorizer: true }), path.child('expression')));
  }
  return errors;
}

function validateValidation(compiler: PolicyCompiler, validation: Validation, hasParams: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const expression = validation.expression ?? '';
  const message = validation.message ?? '';
  const messageExpression = validation.messageExpression ?? '';
  if (!expression.trim()) {
    errors.push(required(path.child('expression'), 'expression is not specified'));
  } else {
    errors.push(...expressionErrors(compiler.compile(expression, 'validation', { hasParams, hasAuthorizer: true }), path.child('expression')));
  }
  if (messageExpression.length > 0 && !messageExpression.trim()) {
    errors.push(invalid(path.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.trim()) {
    // Upstream's validation compiles messageExpression with params only where the policy has a paramKind.
    errors.push(...expressionErrors(compiler.compile(messageExpression, 'messageExpression', { hasParams, hasAuthorizer: false }), path.child('messageExpression')));
  }
  const trimmedMessage = message.trim();
  if (message.length > 0 && !trimmedMessage) errors.push(invalid(path.child('message'), message, 'message must be non-empty if specified'));
  else if (hasNewlines(trimmedMessage)) errors.push(invalid(path.child('message'), message, 'message must not contain line breaks'));
  if (validation.reason !== undefined && !supportedReasons.includes(validation.reason)) errors.push(notSupported(path.child('reason'), validation.reason, supportedReasons));
  return errors;
}

function validateAuditAnnotation(compiler: PolicyCompiler, policyName: string, annotation: AuditAnnotation, hasParams: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const key = annotation.key ?? '';
  if (policyName) {
    for (const message of isQualifiedName(`${policyName}/${key}`)) errors.push(invalid(path.child('key'), `${policyName}/${key}`, message));
  } else {
    errors.push(invalid(path.child('key'), key, 'requires metadata.name be non-empty'));
  }
  const valueExpression = annotation.valueExpression ?? '';
  const trimmed = valueExpression.trim();
  if (!trimmed) {
    errors.push(required(path.child('valueExpression'), 'valueExpression is not specified'));
  } else if (trimmed.length > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) {
    errors.push(required(path.child('valueExpression'), `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`));
  } else {
    errors.push(...expressionErrors(compiler.compile(trimmed, 'auditAnnotation', { hasParams, hasAuthorizer: true }), path.child('valueExpression'), valueExpression));
  }
  return errors;
}

function auditAnnotationsValue(annotations: readonly AuditAnnotation[]): GoFormatted {
  const items = annotations.map((a) => `admissionregistration.AuditAnnotation{Key:${goQuote(a.key ?? '')}, ValueExpression:${goQuote(a.valueExpression ?? '')}}`);
  return new GoFormatted(`[]admissionregistration.AuditAnnotation{${items.join(', ')}}`);
}

function validatePolicySpec(name: string, spec: ValidatingAdmissionPolicySpec, options: PolicyValidationOptions, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const hasParams = spec.paramKind !== undefined;
  // Variables need the composing compiler; it is made once per policy, as upstream's.
  const compiler = new PolicyCompiler(nonEmpty(spec.variables).length > 0);
  if (spec.failurePolicy === undefined) errors.push(required(path.child('failurePolicy')));
  else if (!supportedFailurePolicies.includes(spec.failurePolicy)) errors.push(notSupported(path.child('failurePolicy'), spec.failurePolicy, supportedFailurePolicies));
  if (spec.paramKind) errors.push(...validateParamKind(spec.paramKind, path.child('paramKind')));
  if (!spec.matchConstraints) {
    errors.push(required(path.child('matchConstraints')));
  } else {
    errors.push(...validateMatchResources(spec.matchConstraints, path.child('matchConstraints')));
    // At least one rule, to give the expressions' type information.
    if (!nonEmpty(spec.matchConstraints.resourceRules).length) errors.push(required(path.child('matchConstraints', 'resourceRules')));
  }
  if (!options.ignoreMatchConditions) {
    errors.push(...validateMatchConditions(nonEmpty(spec.matchConditions), { hasParams, hasAuthorizer: true }, path.child('matchConditions')));
  }
  nonEmpty(spec.variables).forEach((variable, i) => errors.push(...validateVariable(compiler, variable, hasParams, path.child('variables').index(i))));
  const validations = nonEmpty(spec.validations);
  const auditAnnotations = nonEmpty(spec.auditAnnotations);
  if (!validations.length && !auditAnnotations.length) {
    errors.push(required(path.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errors.push(required(path.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errors;
  }
  validations.forEach((validation, i) => errors.push(...validateValidation(compiler, validation, hasParams, path.child('validations').index(i))));
  if (auditAnnotations.length > MAX_AUDIT_ANNOTATIONS) {
    errors.push(invalid(path.child('auditAnnotations'), auditAnnotationsValue(auditAnnotations), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  auditAnnotations.forEach((annotation, i) => {
    const at = path.child('auditAnnotations').index(i);
    errors.push(...validateAuditAnnotation(compiler, name, annotation, hasParams, at));
    if (keys.has(annotation.key)) errors.push(duplicate(at.child('key'), annotation.key));
    keys.add(annotation.key);
  });
  return errors;
}

export function validateValidatingAdmissionPolicy(policy: ValidatingAdmissionPolicy): FieldError[] {
  return validatePolicySpec(policy.metadata.name ?? '', policy.spec ?? {}, { ignoreMatchConditions: false }, newPath('spec'));
}

const sameJSON = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function validateValidatingAdmissionPolicyUpdate(policy: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy): FieldError[] {
  // Match conditions that compiled when they were stored are not judged again (a newer library set
  // could refuse them), unless they or the paramKind they may read changed.
  const ignoreMatchConditions = sameJSON(policy.spec?.paramKind, old.spec?.paramKind) && sameJSON(policy.spec?.matchConditions, old.spec?.matchConditions);
  return validatePolicySpec(policy.metadata.name ?? '', policy.spec ?? {}, { ignoreMatchConditions }, newPath('spec'));
}

/** A JSONPath in braces, as client-go's jsonpath parser reads `{spec.validations[0].expression}`. */
function jsonPathProblem(fieldRef: string): string | undefined {
  // The subset of the JSONPath grammar field references use: dotted fields and [index] or ['key'].
  if (/^\.?[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*|\[\d+\]|\['[^']*'\])*$/.test(fieldRef)) return undefined;
  if (/[{}]/.test(fieldRef)) return 'unclosed action';
  return `unrecognized character in action: ${goQuote(fieldRef.replace(/^[\w.[\]'$-]*/, '').charAt(0))}`;
}

export function validateValidatingAdmissionPolicyStatus(policy: ValidatingAdmissionPolicy): FieldError[] {
  const errors: FieldError[] = [];
  const status = policy.status ?? {};
  const warningsPath = newPath('status', 'typeChecking', 'expressionWarnings');
  nonEmpty(status.typeChecking?.expressionWarnings).forEach((warning, i) => {
    const at = warningsPath.index(i);
    if (!warning.warning) errors.push(required(at.child('warning')));
    const fieldRef = (warning.fieldRef ?? '').trim();
    if (!fieldRef) errors.push(required(at.child('fieldRef')));
    else {
      const problem = jsonPathProblem(fieldRef);
      if (problem) errors.push(invalid(at.child('fieldRef'), fieldRef, `invalid JSONPath: ${problem}`));
    }
  });
  errors.push(...validateConditions(status.conditions ?? [], newPath('status', 'conditions')));
  return errors;
}

const conditionStatuses = ['False', 'True', 'Unknown'];
const conditionReason = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** metav1validation.ValidateConditions: each condition's fields, types unique. */
function validateConditions(conditions: readonly { type: string; status: string; observedGeneration?: number; lastTransitionTime: string; reason: string; message: string }[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const types = new Set<string>();
  conditions.forEach((condition, i) => {
    const at = path.index(i);
    const type = condition.type ?? '';
    if (types.has(type)) errors.push(duplicate(at.child('type'), type));
    types.add(type);
    for (const message of isQualifiedName(type)) errors.push(invalid(at.child('type'), type, message));
    if (!conditionStatuses.includes(condition.status)) errors.push(notSupported(at.child('status'), condition.status, conditionStatuses));
    if ((condition.observedGeneration ?? 0) < 0) errors.push(invalid(at.child('observedGeneration'), condition.observedGeneration, 'must be greater than or equal to zero'));
    if (!condition.lastTransitionTime) errors.push(required(at.child('lastTransitionTime'), 'must be set'));
    if (!condition.reason) errors.push(required(at.child('reason'), 'must be set'));
    else {
      if (!conditionReason.test(condition.reason)) {
        errors.push(invalid(at.child('reason'), condition.reason, "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"));
      }
      if (condition.reason.length > 1024) errors.push(new FieldError('FieldValueTooLong', at.child('reason').toString(), condition.reason, 'must have at most 1024 bytes'));
    }
    if ((condition.message ?? '').length > 32768) errors.push(new FieldError('FieldValueTooLong', at.child('message').toString(), condition.message, 'must have at most 32768 bytes'));
  });
  return errors;
}

function validateParamRef(ref: ParamRef | undefined, path: FieldPath): FieldError[] {
  if (!ref) return [];
  const errors: FieldError[] = [];
  const name = ref.name ?? '';
  if (name) {
    for (const message of isValidPathSegmentName(name)) errors.push(invalid(path.child('name'), name, message));
    if (ref.selector) errors.push(forbidden(path.child('name'), 'name and selector are mutually exclusive'));
  }
  if (ref.selector) {
    errors.push(...validateLabelSelectorObject(ref.selector, path.child('selector')));
    if (name) errors.push(forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (!name && !ref.selector) errors.push(required(path, 'one of name or selector must be specified'));
  if (!ref.parameterNotFoundAction) errors.push(required(path.child('parameterNotFoundAction')));
  else if (ref.parameterNotFoundAction !== 'Deny' && ref.parameterNotFoundAction !== 'Allow') {
    errors.push(notSupported(path.child('parameterNotFoundAction'), ref.parameterNotFoundAction, ['Deny', 'Allow']));
  }
  return errors;
}

function validateValidationActions(actions: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!supportedValidationActions.includes(action)) errors.push(notSupported(path.index(i), action, supportedValidationActions));
    if (seen.has(action)) errors.push(duplicate(path.index(i), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errors.push(
      invalid(
        path,
        goList('admissionregistration.ValidationAction', actions),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (!seen.size) errors.push(required(path, 'at least one validation action is required'));
  return errors;
}

export function validateValidatingAdmissionPolicyBinding(binding: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec = binding.spec ?? {};
  const path = newPath('spec');
  const errors: FieldError[] = [];
  const policyName = spec.policyName ?? '';
  if (!policyName) errors.push(required(path.child('policyName')));
  else for (const message of nameIsDNSSubdomain(policyName, false)) errors.push(invalid(path.child('policyName'), policyName, message));
  errors.push(...validateParamRef(spec.paramRef, path.child('paramRef')));
  // Upstream's path has this spelling.
  errors.push(...validateMatchResources(spec.matchResources, path.child('matchResouces')));
  errors.push(...validateValidationActions(nonEmpty(spec.validationActions), path.child('validationActions')));
  return errors;
}
