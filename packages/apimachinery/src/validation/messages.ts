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

/**
 * Go's len() of a string: its length in UTF-8 bytes, which upstream's length limits count. Counted
 * from the UTF-16 code units, without encoding: annotations are measured on every write.
 */
export function byteLength(value: string): number {
  let bytes = value.length;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      // A surrogate pair: two units, four bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
