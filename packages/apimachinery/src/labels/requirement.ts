// One requirement of a label selector (key, operator, values): its checks, its match, its canonical text.
import { goQuote } from '../go-format.js';
import { goStringSlice } from '../go-string-slice.js';
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';

/** upstream's selection.Operator values; `gt` and `lt` are the `>` and `<` of the string syntax. */
export type LabelSelectorOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values: string[];
}

/**
 * Upstream's messages for a bad key or value: a field error's text with a path that may be Go's nil
 * path, `<nil>`, as the string parser reports a bad key.
 */
const invalidText = (field: string, value: string, detail: string): string => `${field}: Invalid value: ${value}: ${detail}`;

export function labelKeyProblem(key: string, field: string): string | undefined {
  const errors = isQualifiedName(key);
  return errors.length ? invalidText(field, goQuote(key), errors.join('; ')) : undefined;
}

const isInt64 = (value: string): boolean => {
  if (!/^[+-]?[0-9]+$/.test(value)) return false;
  const n = BigInt(value);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
};

/**
 * The problems upstream's NewRequirement finds, as messages. `values` is null for a Go nil slice,
 * which upstream prints differently from an empty one.
 */
export function requirementProblems(key: string, operator: LabelSelectorOperator, values: readonly string[] | null): string[] {
  const problems: string[] = [];
  const keyProblem = labelKeyProblem(key, 'key');
  if (keyProblem) problems.push(keyProblem);
  const list = values ?? [];
  const shown = goStringSlice(values);
  switch (operator) {
    case 'in':
    case 'notin':
      if (!list.length) problems.push(invalidText('values', shown, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (list.length !== 1) problems.push(invalidText('values', shown, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (list.length) problems.push(invalidText('values', shown, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (list.length !== 1) problems.push(invalidText('values', shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
      list.forEach((value, i) => {
        if (!isInt64(value)) problems.push(invalidText(`values[${i}]`, goQuote(value), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  list.forEach((value, i) => {
    const errors = isValidLabelValue(value);
    if (errors.length) problems.push(invalidText(`values[${i}][${key}]`, goQuote(value), errors.join('; ')));
  });
  return [...new Set(problems)];
}

/** Whether `labels` satisfy the requirement; a missing key satisfies only notin, != and !. */
export function requirementMatches(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const { key, operator, values } = requirement;
  const present = Object.hasOwn(labels, key);
  const value = present ? labels[key]! : '';
  switch (operator) {
    case 'in':
    case '=':
    case '==':
      return present && values.includes(value);
    case 'notin':
    case '!=':
      return !present || !values.includes(value);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt': {
      if (!present || values.length !== 1 || !isInt64(value) || !isInt64(values[0]!)) return false;
      const [have, want] = [BigInt(value), BigInt(values[0]!)];
      return operator === 'gt' ? have > want : have < want;
    }
  }
}

const operatorText: Record<LabelSelectorOperator, string> = {
  in: ' in ',
  notin: ' notin ',
  '=': '=',
  '==': '==',
  '!=': '!=',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

// Go's sort.Strings order: by UTF-8 bytes, which for these label values is code unit order.
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Upstream's Requirement.String: `!key`, `key`, `key=v`, `key in (a,b)` with several values sorted. */
export function requirementString({ key, operator, values }: LabelRequirement): string {
  if (operator === '!') return `!${key}`;
  if (operator === 'exists') return key;
  const list = values.length === 1 ? values[0]! : [...values].sort(byteOrder).join(',');
  return operator === 'in' || operator === 'notin' ? `${key}${operatorText[operator]}(${list})` : `${key}${operatorText[operator]}${list}`;
}
