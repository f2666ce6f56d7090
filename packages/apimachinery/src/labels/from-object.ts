// A metav1.LabelSelector object (matchLabels, matchExpressions) as a LabelSelector, as upstream's LabelSelectorAsSelector.
import { goQuote } from '../go-format.js';
import { SelectorParseError } from '../selector-parse-error.js';
import { requirementProblems, type LabelRequirement, type LabelSelectorOperator } from './requirement.js';
import { LabelSelector, sortByKey } from './selector.js';

export interface LabelSelectorObject {
  matchLabels?: Readonly<Record<string, string>> | null;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] | null }[] | null;
}

const operators: Record<string, LabelSelectorOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function requirement(key: string, operator: LabelSelectorOperator, values: readonly string[]): LabelRequirement {
  // Upstream copies the values with append([]string(nil), ...): an empty list becomes a nil slice.
  const problems = requirementProblems(key, operator, values.length ? values : null);
  if (problems.length) throw new SelectorParseError(problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
  return { key, operator, values: [...values] };
}

/**
 * A null or absent selector matches nothing; one with neither matchLabels nor matchExpressions
 * matches everything. Throws SelectorParseError for an unknown operator or a bad key or value.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | undefined | null): LabelSelector {
  if (!selector) return new LabelSelector([], true);
  const labels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const expressions = selector.matchExpressions ?? [];
  if (!labels.length && !expressions.length) return new LabelSelector([]);
  const requirements = labels.map(([key, value]) => requirement(key, '=', [value]));
  for (const expression of expressions) {
    const operator = operators[expression.operator];
    if (!operator) throw new SelectorParseError(`${goQuote(expression.operator)} is not a valid label selector operator`);
    requirements.push(requirement(expression.key, operator, expression.values ?? []));
  }
  return new LabelSelector(sortByKey(requirements));
}
