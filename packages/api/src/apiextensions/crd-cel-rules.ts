// The x-kubernetes-validations rules of a CRD schema. The rules themselves are CEL expressions,
// which this server cannot compile or evaluate yet (issue 26): a rule accepted now would never
// be enforced, so every rule is refused with a 422 until the CEL work replaces this file's
// refuseValidationRules with upstream's compilation and cost checks.
import { forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import type { JSONSchemaProps } from './types.js';

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** The shape of each rule (upstream checks it whether or not the rules compile). */
export function validateValidationRuleFields(schema: JSONSchemaProps, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const rulePath = path.child('x-kubernetes-validations').index(i);
    const text = (rule.rule ?? '').trim();
    const message = rule.message ?? '';
    const trimmedMessage = message.trim();
    if (!text) errors.push(required(rulePath.child('rule'), 'rule is not specified'));
    else if (message.length > 0 && !trimmedMessage) errors.push(invalid(rulePath.child('message'), message, 'message must be non-empty if specified'));
    else if (hasNewlines(trimmedMessage)) errors.push(invalid(rulePath.child('message'), message, 'message must not contain line breaks'));
    else if (hasNewlines(text) && !trimmedMessage) {
      errors.push(required(rulePath.child('message'), 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = rule.messageExpression ?? '';
    if (messageExpression.length > 0 && !messageExpression.trim()) {
      errors.push(required(rulePath.child('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && rule.reason !== null && !supportedReasons.includes(rule.reason)) {
      errors.push(notSupported(rulePath.child('reason'), rule.reason, supportedReasons));
    }
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath.length > 0 && !fieldPath.trim()) errors.push(invalid(rulePath.child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fieldPath)) errors.push(invalid(rulePath.child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
  });
  return errors;
}

/**
 * Where upstream compiles a schema's rules and checks their cost, this server refuses them: CEL
 * is not implemented yet (issue 26), and a rule must never be accepted and then not enforced.
 * Called for every schema a rule may be attached to (the root and what properties, items and
 * additionalProperties lead to; under allOf, anyOf, oneOf and not the structural check forbids them).
 */
export function refuseValidationRules(schema: JSONSchemaProps, path: FieldPath): FieldError[] {
  return (schema['x-kubernetes-validations'] ?? []).map((_, i) =>
    forbidden(path.child('x-kubernetes-validations').index(i).child('rule'), 'x-kubernetes-validations rules are not supported by this server yet'),
  );
}
