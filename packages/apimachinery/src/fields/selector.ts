// Field selectors: `f=v,g!=w` with backslash escapes in values, parsed and matched as upstream's fields.ParseSelector.
import { SelectorParseError } from '../selector-parse-error.js';

export interface FieldRequirement {
  readonly field: string;
  /** `==` in the text is `=` here, as upstream's selection.Equals. */
  readonly operator: '=' | '!=';
  readonly value: string;
}

const escapeValue = (value: string): string => value.replace(/[\\,=]/g, (ch) => `\\${ch}`);

export class FieldSelector {
  /** True when the selector restricts nothing. */
  readonly empty: boolean;

  constructor(
    /** In upstream's order: the terms as written, sorted as text. */
    readonly requirements: readonly FieldRequirement[],
  ) {
    this.empty = requirements.length === 0;
  }

  /** Whether the object's selectable fields satisfy every term; a missing field has the value "". */
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every(({ field, operator, value }) => {
      const actual = Object.hasOwn(fields, field) ? fields[field] : '';
      return operator === '=' ? actual === value : actual !== value;
    });
  }

  /** The value a `field=value` term requires, if the selector has one. */
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /** Upstream's canonical text: `f=v` terms joined by ',', values escaped again. */
  toString(): string {
    return this.requirements.map(({ field, operator, value }) => `${field}${operator}${escapeValue(value)}`).join(',');
  }
}

/** The comma-separated terms; a backslash keeps the next character (and itself) in the term. */
function splitTerms(text: string): string[] {
  if (!text) return [];
  const terms: string[] = [];
  let term = '';
  let escaped = false;
  for (const ch of text) {
    if (escaped) escaped = false;
    else if (ch === '\\') escaped = true;
    else if (ch === ',') {
      terms.push(term);
      term = '';
      continue;
    }
    term += ch;
  }
  terms.push(term);
  return terms;
}

/** The first operator in the term, left to right; != and == are tried before =. */
function splitTerm(term: string): [string, '=' | '==' | '!=', string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** Undoes escapeValue; an unknown escape, a trailing backslash or a bare ',' or '=' is an error. */
function unescapeValue(value: string): string {
  let out = '';
  let escaped = false;
  for (const ch of value) {
    if (escaped) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      out += ch;
      escaped = false;
    } else if (ch === '\\') escaped = true;
    else if (ch === ',' || ch === '=') {
      // Upstream prints the rune with %v: its code point as a number.
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`);
    } else out += ch;
  }
  if (escaped) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * Parses a field selector as upstream's fields.ParseSelector; throws SelectorParseError with
 * upstream's message. A term with neither field nor value (`=`) selects everything, as upstream's.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const terms = splitTerms(text).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (!term) continue;
    const split = splitTerm(term);
    if (!split) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${term}'`);
    const [field, op, raw] = split;
    const value = unescapeValue(raw);
    if (field || value) requirements.push({ field, operator: op === '!=' ? '!=' : '=', value });
  }
  return new FieldSelector(requirements);
}
