// The sentences upstream's validators are built from (MaxLenError, RegexError, EmptyError), word for word.

export const maxLenError = (length: number): string => `must be no more than ${length} characters`;

export const emptyError = (): string => 'must be non-empty';

/**
 * `<msg> (e.g. 'a',  or 'b', regex used for validation is '<re>')`. The doubled space before "or"
 * is upstream's: each example ends in ", " and the next starts with " or ".
 */
export function regexError(message: string, regex: string, ...examples: string[]): string {
  if (!examples.length) return `${message} (regex used for validation is '${regex}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${regex}')`;
}

const encoder = new TextEncoder();

/** Go's len() of a string: its length in UTF-8 bytes, which upstream's length limits count. */
export const byteLength = (value: string): number => encoder.encode(value).length;
