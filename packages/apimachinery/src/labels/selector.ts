// Label selectors: the string syntax (`a=b,c in (d,e),!f`) parsed as upstream's labels.Parse, and matching against an object's labels.
import { SelectorParseError } from '../selector-parse-error.js';
import { lex, type Token, type TokenType } from './lexer.js';
import {
  labelKeyProblem,
  requirementMatches,
  requirementProblems,
  requirementString,
  type LabelRequirement,
  type LabelSelectorOperator,
} from './requirement.js';

export class LabelSelector {
  /** True when the selector restricts nothing (it matches every object). */
  readonly empty: boolean;

  /** Use parseLabelSelector or labelSelectorFromObject. */
  constructor(
    /** The requirements, sorted by key; all must hold. */
    readonly requirements: readonly LabelRequirement[],
    /** Upstream's labels.Nothing(): the selector of a null metav1.LabelSelector. */
    readonly matchesNothing = false,
  ) {
    this.empty = !matchesNothing && requirements.length === 0;
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.matchesNothing) return false;
    const set = labels ?? {};
    return this.requirements.every((requirement) => requirementMatches(requirement, set));
  }

  /** The value the selector requires `key` to have (`key=v`, `key==v` or `key in (v)`), if any. */
  requiresExactMatch(key: string): string | undefined {
    const requirement = this.requirements.find((r) => r.key === key);
    if (!requirement || requirement.values.length !== 1) return undefined;
    return ['=', '==', 'in'].includes(requirement.operator) ? requirement.values[0] : undefined;
  }

  /** Upstream's canonical text: requirements sorted by key, joined by ','. */
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** A stable sort by key, as upstream sorts requirements (its sort keeps equal keys in order for short lists). */
export const sortByKey = (requirements: LabelRequirement[]): LabelRequirement[] =>
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

const operatorOf: Partial<Record<TokenType, LabelSelectorOperator>> = {
  in: 'in',
  notin: 'notin',
  '=': '=',
  '==': '==',
  '!=': '!=',
  '>': 'gt',
  '<': 'lt',
};

const fail = (message: string): never => {
  throw new SelectorParseError(message);
};

/** The recursive descent over the tokens; throws messages without the "unable to parse requirement" prefix. */
class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  /** The next token. Where values are expected, `in` and `notin` are plain identifiers. */
  private peek(values = true): Token {
    const token = this.tokens[this.position]!;
    return values && (token.type === 'in' || token.type === 'notin') ? { ...token, type: 'identifier' } : token;
  }

  private next(values = true): Token {
    const token = this.peek(values);
    this.position++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.peek();
      if (token.type === 'end') return requirements;
      if (token.type !== 'identifier' && token.type !== '!') {
        return fail(`found '${token.literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.requirement());
      } catch (error) {
        if (error instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${error.message}`);
        throw error;
      }
      const after = this.next();
      if (after.type === 'end') return requirements;
      if (after.type !== ',') return fail(`found '${after.literal}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.type !== 'identifier' && following.type !== '!') {
        return fail(`found '${following.literal}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let token = this.next();
    const negated = token.type === '!';
    if (negated) token = this.next();
    if (token.type !== 'identifier') return fail(`found '${token.literal}', expected: identifier`);
    const key = token.literal;
    const keyProblem = labelKeyProblem(key, '<nil>');
    if (keyProblem) return fail(keyProblem);
    const following = this.peek().type;
    if (negated || following === 'end' || following === ',') return this.build(key, negated ? '!' : 'exists', []);

    const operatorToken = this.next(false);
    const operator = operatorOf[operatorToken.type];
    if (!operator) return fail(`found '${operatorToken.literal}', expected: ${binaryOperators}`);
    return this.build(key, operator, operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue());
  }

  private build(key: string, operator: LabelSelectorOperator, values: string[]): LabelRequirement {
    // Upstream collects values in a set: deduplicated and sorted.
    const sorted = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const problems = requirementProblems(key, operator, sorted);
    if (problems.length) fail(problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    return { key, operator, values: sorted };
  }

  /** `(a,b,c)`; empty entries (`()`, `(a,)`, `(,)`) are the empty value. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.type !== '(') return fail(`found '${open.literal}' expected: '('`);
    const first = this.peek();
    if (first.type === ')') {
      this.next();
      return [''];
    }
    if (first.type !== 'identifier' && first.type !== ',') return fail(`found '${first.literal}', expected: ',', ')' or identifier`);
    const values = this.identifiers();
    this.next(); // the ')' identifiers() stopped at
    return values;
  }

  private identifiers(): string[] {
    const values: string[] = [];
    for (;;) {
      const token = this.next();
      if (token.type === 'identifier') {
        values.push(token.literal);
        const following = this.peek();
        if (following.type === ',') continue;
        if (following.type === ')') return values;
        return fail(`found '${following.literal}', expected: ',' or ')'`);
      }
      if (token.type !== ',') return fail(`found '${token.literal}', expected: ',', or identifier`);
      if (!values.length) values.push('');
      const following = this.peek().type;
      if (following === ')') {
        values.push('');
        return values;
      }
      if (following === ',') values.push('');
    }
  }

  /** The one value after = == != > <; none at all is the empty value. */
  private exactValue(): string[] {
    const following = this.peek().type;
    if (following === 'end' || following === ',') return [''];
    const token = this.next();
    if (token.type !== 'identifier') return fail(`found '${token.literal}', expected: identifier`);
    return [token.literal];
  }
}

/**
 * Parses a selector as upstream's labels.Parse; throws SelectorParseError with upstream's message.
 * The empty string selects everything.
 */
export function parseLabelSelector(text: string): LabelSelector {
  return new LabelSelector(sortByKey(new Parser(lex(text)).parse()));
}
