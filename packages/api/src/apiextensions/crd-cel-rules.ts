// The x-kubernetes-validations rules of a CRD schema, as upstream checks them when the CRD is
// written: each rule's fields, then (on a structural schema without errors) its compilation, its
// estimated cost against the per-rule and per-schema limits, and where transition rules may be.
import { GoFormatted, forbidden, goQuote, invalid, notSupported, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, UNBOUNDED_COST } from '@plat/cel';
import { compileRules, ruleDeclType, asSchemaNode } from './cel/compile-rules.js';
import { validFieldPath } from './cel/rule-field-path.js';
import type { JSONSchemaProps, ValidationRule } from './types.js';

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

function fieldPathValid(schema: JSONSchemaProps, fieldPath: string): boolean {
  try {
    validFieldPath(fieldPath, asSchemaNode(schema));
    return true;
  } catch {
    return false;
  }
}

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
    if (fieldPath.length > 0 && !fieldPathValid(schema, fieldPath)) errors.push(invalid(rulePath.child('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  });
  return errors;
}

/** Where rules may be checked: upstream's CELSchemaContext, one per schema node as the walk descends. */
export interface CelSchemaContext {
  /** Whether this node or one above has rules (only then is type information built). */
  readonly withinRuleScope: boolean;
  /** The product of maxItems and maxProperties above; undefined when something above is unbounded. */
  readonly maxCardinality: number | undefined;
  /** Whether `self` is a resource root here (the schema's root, or an embedded resource). */
  readonly resourceRoot: boolean;
  readonly totalCost: TotalCost;
}

/** The estimated cost of every rule of one CRD version's schema, and its most expensive rules. */
export class TotalCost {
  total = 0;
  readonly mostExpensive: { path: FieldPath; cost: number }[] = [];

  observe(path: FieldPath, cost: number): void {
    this.total = Math.min(this.total + cost, UNBOUNDED_COST);
    // Rules below 1% of the limit are not worth naming.
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    this.mostExpensive.splice(4);
  }
}

const hasRules = (schema: JSONSchemaProps | undefined): boolean => (schema?.['x-kubernetes-validations']?.length ?? 0) > 0;

export function rootCelContext(schema: JSONSchemaProps): CelSchemaContext {
  return { withinRuleScope: hasRules(schema), maxCardinality: 1, resourceRoot: true, totalCost: new TotalCost() };
}

/** How many of a child each element of `schema` can hold: maxItems or maxProperties, 1 for an object's fields. */
function maxElements(schema: JSONSchemaProps): number | undefined {
  switch (schema.type) {
    case 'object':
      if (schema.additionalProperties !== undefined) return schema.maxProperties !== undefined ? Math.max(0, schema.maxProperties) : undefined;
      return 1;
    case 'array':
      return schema.maxItems !== undefined ? Math.max(0, schema.maxItems) : undefined;
    default:
      return 1;
  }
}

/** The context of `child`, a property, the items or the additionalProperties of `parentSchema`. */
export function childCelContext(parent: CelSchemaContext | undefined, parentSchema: JSONSchemaProps, child: JSONSchemaProps): CelSchemaContext | undefined {
  if (!parent) return undefined;
  const factor = maxElements(parentSchema);
  const cardinality = parent.maxCardinality === undefined || factor === undefined ? undefined : Math.min(parent.maxCardinality * factor, UNBOUNDED_COST);
  return {
    withinRuleScope: parent.withinRuleScope || hasRules(child),
    maxCardinality: cardinality,
    resourceRoot: child['x-kubernetes-embedded-resource'] === true,
    totalCost: parent.totalCost,
  };
}

/** Upstream's getCostErrorMessage: by how much `cost` exceeds `limit`. */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const exceed = cost / limit;
  const factor = exceed > 100 ? 'more than 100x' : exceed < 1.5 ? `${exceed.toFixed(6)}x` : `${exceed.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** A rule as Go's %#v prints upstream's internal ValidationRule, the value its compile errors show. */
function ruleValue(rule: ValidationRule): GoFormatted {
  // Go prints the reason pointer's address; the reason itself says more.
  const reason = rule.reason ? `(*apiextensions.FieldValueErrorReason)(${goQuote(rule.reason)})` : '(*apiextensions.FieldValueErrorReason)(nil)';
  return new GoFormatted(
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(rule.fieldPath ?? '')}}`,
  );
}

const multiplyCapped = (cost: number, cardinality: number): number => (cost === 0 ? 0 : Math.min(cost * cardinality, UNBOUNDED_COST));

/**
 * The rules of one schema node compiled and costed, as upstream checks them when a CRD is written:
 * compile errors, estimated costs over the limit (times how often the node can occur), transition
 * rules where old and new data cannot be paired (`uncorrelatable`: the highest list above that is
 * not a map list). Each rule's cost joins the schema's total.
 */
export function celRuleErrors(schema: JSONSchemaProps, path: FieldPath, context: CelSchemaContext, uncorrelatable: FieldPath | undefined): FieldError[] {
  const rulesPath = path.child('x-kubernetes-validations');
  const declType = context.withinRuleScope ? ruleDeclType(schema, context.resourceRoot) : undefined;
  if (!declType) return [invalid(rulesPath, '', 'internal error: failed to retrieve type information for x-kubernetes-validations')];
  const errors: FieldError[] = [];
  compileRules(schema, declType).forEach((compiled, i) => {
    const rulePath = rulesPath.index(i);
    const cost = multiplyCapped(compiled.maxCost, context.maxCardinality ?? compiled.maxCardinality);
    if (cost > STATIC_ESTIMATED_COST_LIMIT) errors.push(forbidden(rulePath.child('rule'), costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    context.totalCost.observe(rulePath.child('rule'), cost);
    if (compiled.error) errors.push(invalid(rulePath.child('rule'), ruleValue(compiled.rule), compiled.error));
    if (compiled.messageExpressionError) {
      errors.push(invalid(rulePath.child('messageExpression'), ruleValue(compiled.rule), compiled.messageExpressionError));
    } else if (compiled.messageExpression) {
      const messageCost = compiled.messageExpressionMaxCost;
      if (messageCost > STATIC_ESTIMATED_COST_LIMIT) {
        errors.push(forbidden(rulePath.child('messageExpression'), costErrorMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT)));
      }
      context.totalCost.observe(rulePath.child('messageExpression'), messageCost);
    }
    if (compiled.transition && uncorrelatable) {
      errors.push(invalid(rulePath.child('rule'), compiled.rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable.toString()}`));
    }
  });
  return errors;
}

/** The schema-wide check: every rule's cost together, and the most expensive rules named when over. */
export function totalCostErrors(totalCost: TotalCost, schemaPath: FieldPath): FieldError[] {
  if (totalCost.total <= STATIC_ESTIMATED_CRD_COST_LIMIT) return [];
  return [
    ...totalCost.mostExpensive.map(({ path }) => forbidden(path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')),
    forbidden(
      schemaPath,
      costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', totalCost.total, STATIC_ESTIMATED_CRD_COST_LIMIT),
    ),
  ];
}
