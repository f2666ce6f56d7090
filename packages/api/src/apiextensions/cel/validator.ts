// The x-kubernetes-validations rules of a custom resource's schema, run on its objects (upstream's
// cel.Validator): compiled once per CRD version, a node per schema node that has rules at or below
// it; each rule sees `self` (and, on updates, `oldSelf` where old and new data pair up), costs are
// counted against the per-call limit and the object's budget, and each expression's time against
// the time bound (a rule that runs out of time fails with upstream's 'operation interrupted
// evaluating rule', as when its request's context is done; the object's other rules then do too);
// failures become field errors.
import { FieldError } from '@plat/apimachinery';
import {
  ErrorValue,
  ExpressionTimer,
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  PER_CALL_LIMIT,
  RUNTIME_COST_BUDGET,
  escapeName,
  valueOf,
  withTypeAndObjectMeta,
  type SchemaNode,
  type Value,
} from '@plat/cel';
import { childOf, indexOf, keyOf, type OptionalPath } from '../schema/field-path.js';
import type { JSONSchemaProps, ValidationRule } from '../types.js';
import { asSchemaNode, compileRules, ruleDeclType, type CompiledRule } from './compile-rules.js';

interface Outcome {
  errors: FieldError[];
  /** What is left of the budget; negative once validation had to stop. */
  remaining: number;
}

const additionalPropertiesOf = (s: JSONSchemaProps): JSONSchemaProps | undefined =>
  s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
const itemsOf = (s: JSONSchemaProps): JSONSchemaProps | undefined => (s.items && !Array.isArray(s.items) ? s.items : undefined);

function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (!s) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  if (hasRules(itemsOf(s)) || hasRules(additionalPropertiesOf(s))) return true;
  return Object.values(s.properties ?? {}).some(hasRules);
}

const ruleErrorString = (rule: ValidationRule): string => (rule.message ? rule.message.trim() : rule.rule.trim());
const messageOrDefault = (rule: ValidationRule): string => (rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`);
const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** Where an error is reported: upstream starts the root's rules at a nil path, printed `<nil>`. */
const fieldOf = (path: OptionalPath): string => (path ? path.toString() : '<nil>');
const invalidAt = (path: OptionalPath, value: string, detail: string): FieldError => new FieldError('FieldValueInvalid', fieldOf(path), value, detail);

/** A failed rule's error, of the type its reason asks for. */
function errorForReason(path: OptionalPath, value: string, detail: string, reason: ValidationRule['reason']): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return new FieldError('FieldValueForbidden', fieldOf(path), '', detail);
    case 'FieldValueRequired':
      return new FieldError('FieldValueRequired', fieldOf(path), '', detail);
    case 'FieldValueDuplicate':
      return new FieldError('FieldValueDuplicate', fieldOf(path), value, '');
    default:
      return invalidAt(path, value, detail);
  }
}

export class RuleValidator {
  private readonly rules: readonly CompiledRule[];
  private readonly compileError: string | undefined;
  private readonly items: RuleValidator | undefined;
  private readonly additionalProperties: RuleValidator | undefined;
  private readonly properties = new Map<string, RuleValidator>();

  /** The validator of a schema, or undefined when no rule is anywhere in it. `perCallLimit` is for tests. */
  static build(schema: JSONSchemaProps, isResourceRoot: boolean, perCallLimit = PER_CALL_LIMIT): RuleValidator | undefined {
    return hasRules(schema) ? new RuleValidator(schema, isResourceRoot, perCallLimit) : undefined;
  }

  private constructor(
    private readonly schema: JSONSchemaProps,
    private readonly isResourceRoot: boolean,
    private readonly perCallLimit: number,
  ) {
    const declType = ruleDeclType(schema, isResourceRoot);
    if (schema['x-kubernetes-validations']?.length && !declType) {
      this.rules = [];
      this.compileError = 'failed to convert to declType for CEL validation rules';
    } else {
      this.rules = declType ? compileRules(schema, declType) : [];
    }
    const items = itemsOf(schema);
    if (items) this.items = RuleValidator.build(items, items['x-kubernetes-embedded-resource'] === true, perCallLimit);
    const additional = additionalPropertiesOf(schema);
    if (additional) this.additionalProperties = RuleValidator.build(additional, additional['x-kubernetes-embedded-resource'] === true, perCallLimit);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      // Fields expressions cannot see are left out of validation entirely, as upstream leaves them.
      if (escapeName(name) !== undefined && !ruleDeclType(property, property['x-kubernetes-embedded-resource'] === true)) continue;
      const child = RuleValidator.build(property, property['x-kubernetes-embedded-resource'] === true, perCallLimit);
      if (child) this.properties.set(name, child);
    }
  }

  private get hasTransitionRules(): boolean {
    return this.rules.some((r) => r.transition);
  }

  /**
   * The errors of `object` (with `old`, its previous version, on an update) within `budget`, each
   * expression within the time `timer` allows (one timer for the whole object).
   */
  validate(path: OptionalPath, object: unknown, old: unknown, budget = RUNTIME_COST_BUDGET, timer = new ExpressionTimer()): Outcome {
    if (object === null || object === undefined) return { errors: [], remaining: budget };
    const outcome = this.validateRules(path, object, old ?? undefined, budget, timer);
    if (outcome.remaining < 0) return outcome;
    if (Array.isArray(object)) return this.merge(outcome, this.validateItems(path, object, Array.isArray(old) ? old : undefined, outcome.remaining, timer));
    if (typeof object === 'object') {
      const oldMap = old !== null && typeof old === 'object' && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
      return this.merge(outcome, this.validateFields(path, object as Record<string, unknown>, oldMap, outcome.remaining, timer));
    }
    return outcome;
  }

  private merge(first: Outcome, second: Outcome): Outcome {
    return { errors: [...first.errors, ...second.errors], remaining: second.remaining };
  }

  private validateRules(path: OptionalPath, object: unknown, old: unknown, budget: number, timer: ExpressionTimer): Outcome {
    const type = this.schema.type ?? '';
    if (this.compileError) return { errors: [invalidAt(path, type, `rule compiler initialization error: ${this.compileError}`)], remaining: budget };
    if (!this.rules.length) return { errors: [], remaining: budget };
    if (budget <= 0) return { errors: [invalidAt(path, type, outOfBudget)], remaining: -1 };
    const schema: SchemaNode = this.isResourceRoot ? withTypeAndObjectMeta(asSchemaNode(this.schema)) : asSchemaNode(this.schema);
    const activation: Record<string, Value> = { self: valueOf(object, schema) };
    if (old !== undefined && this.hasTransitionRules) activation.oldSelf = valueOf(old, schema);
    const errors: FieldError[] = [];
    let remaining = budget;
    for (const compiled of this.rules) {
      const rule = compiled.rule;
      if (compiled.error) {
        errors.push(invalidAt(path, type, `rule compile error: ${compiled.error}`));
        continue;
      }
      if (!compiled.program) continue;
      // A transition rule runs only where there is an old value to compare with.
      if (compiled.transition && old === undefined) continue;
      const result = compiled.program.evaluate(activation, this.perCallLimit, timer);
      if (result.cost > remaining) return { errors: [...errors, invalidAt(path, type, outOfBudget)], remaining: -1 };
      remaining -= result.cost;
      if (result.cancelled) {
        const detail = `'${(result.value as ErrorValue).message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`;
        return { errors: [...errors, invalidAt(path, type, detail)], remaining: -1 };
      }
      if (result.value instanceof ErrorValue) {
        const message = result.value.message;
        errors.push(
          message.startsWith('no such overload')
            ? invalidAt(path, type, `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`)
            : invalidAt(path, type, `${message} evaluating rule: ${ruleErrorString(rule)}`),
        );
        continue;
      }
      if (result.value === true) continue;
      const at = compiled.fieldPath ? childOf(path, compiled.fieldPath) : path;
      if (!compiled.messageExpression) {
        errors.push(errorForReason(at, type, messageOrDefault(rule), rule.reason));
        continue;
      }
      const message = compiled.messageExpression.evaluate(activation, this.perCallLimit, timer);
      if (message.cost > remaining) {
        return { errors: [...errors, invalidAt(at, type, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run')], remaining: -1 };
      }
      if (message.cancelled) {
        const detail = `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`;
        return { errors: [...errors, invalidAt(at, type, detail)], remaining: -1 };
      }
      remaining -= message.cost;
      const text = typeof message.value === 'string' ? message.value.trim() : undefined;
      // A message that fails or is unusable falls back to the rule's own.
      const usable = text !== undefined && text.length > 0 && Buffer.byteLength(text) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES && !/\n/.test(text);
      errors.push(errorForReason(at, type, usable ? text : messageOrDefault(rule), rule.reason));
    }
    return { errors, remaining };
  }

  private validateItems(path: OptionalPath, items: readonly unknown[], old: readonly unknown[] | undefined, budget: number, timer: ExpressionTimer): Outcome {
    const errors: FieldError[] = [];
    let remaining = budget;
    const itemSchema = itemsOf(this.schema);
    if (!this.items || !itemSchema) return { errors, remaining };
    const oldByKey = this.correlatableOldItems(old);
    for (let i = 0; i < items.length; i++) {
      const oldItem = oldByKey?.get(this.mapKey(items[i]));
      const outcome = this.items.validate(indexOf(path, i), items[i], oldItem, remaining, timer);
      errors.push(...outcome.errors);
      remaining = outcome.remaining;
      if (remaining < 0) break;
    }
    return { errors, remaining };
  }

  /** Only the items of a map list pair with old items (by their keys). */
  private correlatableOldItems(old: readonly unknown[] | undefined): Map<string, unknown> | undefined {
    if (!old || this.schema['x-kubernetes-list-type'] !== 'map') return undefined;
    const byKey = new Map<string, unknown>();
    for (const item of old) byKey.set(this.mapKey(item), item);
    return byKey;
  }

  private mapKey(item: unknown): string {
    const keys = this.schema['x-kubernetes-list-map-keys'] ?? [];
    const fields = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    return JSON.stringify(keys.map((k) => fields[k] ?? null));
  }

  private validateFields(path: OptionalPath, object: Record<string, unknown>, old: Record<string, unknown> | undefined, budget: number, timer: ExpressionTimer): Outcome {
    const errors: FieldError[] = [];
    let remaining = budget;
    // Every map type of 1.28 (granular, atomic) pairs a key's old and new values.
    if (this.additionalProperties) {
      for (const [key, value] of Object.entries(object)) {
        const outcome = this.additionalProperties.validate(keyOf(path, key), value, old?.[key], remaining, timer);
        errors.push(...outcome.errors);
        remaining = outcome.remaining;
        if (remaining < 0) return { errors, remaining };
      }
    }
    for (const [key, value] of Object.entries(object)) {
      const child = this.properties.get(key);
      if (!child) continue;
      const outcome = child.validate(childOf(path, key), value, old?.[key], remaining, timer);
      errors.push(...outcome.errors);
      remaining = outcome.remaining;
      if (remaining < 0) return { errors, remaining };
    }
    return { errors, remaining };
  }
}

/** Upstream's hasBlockingErr: errors that leave the data too unlike its schema for rules to run. */
export function blocksRules(errors: readonly FieldError[]): boolean {
  return errors.some((e) => ['FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'].includes(e.type));
}

export const rulesNotChecked = (): FieldError =>
  new FieldError('FieldValueInvalid', '<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation');

/** The rule errors of an object (on an update, with its old version), or the note that rules were skipped. */
export function ruleErrors(validator: RuleValidator | undefined, earlier: readonly FieldError[], object: unknown, old: unknown): FieldError[] {
  if (!validator) return [];
  if (blocksRules(earlier)) return [rulesNotChecked()];
  return validator.validate(undefined, object, old).errors;
}
