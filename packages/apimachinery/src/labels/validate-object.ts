// Validation of a metav1.LabelSelector object in a spec, as upstream's metav1validation.ValidateLabelSelector.
import { forbidden, invalid, required, type FieldError, type FieldPath } from '../field-errors.js';
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';
import { validateLabels } from '../validation/object-meta.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function validateRequirement(expression: unknown, path: FieldPath): FieldError[] {
  if (!isRecord(expression)) return [invalid(path, expression, 'must be a label selector requirement')];
  const errors: FieldError[] = [];
  const { key, operator, values } = expression;
  const list: unknown[] = Array.isArray(values) ? values : [];
  if (values !== undefined && values !== null && !Array.isArray(values)) errors.push(invalid(path.child('values'), values, 'must be a list of strings'));
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (!list.length) errors.push(required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (list.length) errors.push(forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errors.push(invalid(path.child('operator'), operator ?? '', 'not a valid selector operator'));
  }
  const keyText = typeof key === 'string' ? key : '';
  if (key !== undefined && typeof key !== 'string') errors.push(invalid(path.child('key'), key, 'must be a string'));
  for (const message of isQualifiedName(keyText)) errors.push(invalid(path.child('key'), keyText, message));
  list.forEach((value, i) => {
    if (typeof value !== 'string') errors.push(invalid(path.child('values').index(i), value, 'must be a string'));
    else for (const message of isValidLabelValue(value)) errors.push(invalid(path.child('values').index(i), value, message));
  });
  return errors;
}

/**
 * matchLabels as labels; each matchExpressions entry with a known operator, values only where the
 * operator takes them, a qualified-name key and label values. A null selector is valid.
 */
export function validateLabelSelectorObject(selector: unknown, path: FieldPath): FieldError[] {
  if (selector === undefined || selector === null) return [];
  if (!isRecord(selector)) return [invalid(path, selector, 'must be a label selector')];
  const errors = validateLabels(selector.matchLabels, path.child('matchLabels'));
  const expressions = selector.matchExpressions;
  if (expressions === undefined || expressions === null) return errors;
  if (!Array.isArray(expressions)) return [...errors, invalid(path.child('matchExpressions'), expressions, 'must be a list')];
  expressions.forEach((expression: unknown, i) => errors.push(...validateRequirement(expression, path.child('matchExpressions').index(i))));
  return errors;
}
