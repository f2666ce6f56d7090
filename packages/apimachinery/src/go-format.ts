// Go's fmt verbs that upstream messages are built with (%q, %v), so that our messages read the same.

const goEscapes: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

const hex = (c: number, width: number): string => c.toString(16).padStart(width, '0');

/** Go's %q for a string: double-quoted, Go's escapes, printable Unicode kept as is. */
export function goQuote(value: string): string {
  let out = '"';
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    const escape = goEscapes[ch];
    if (escape) out += escape;
    else if (c < 0x20 || c === 0x7f) out += `\\x${hex(c, 2)}`;
    // C1 controls and the invisible separators Go does not count as printable.
    else if ((c >= 0x80 && c < 0xa0) || c === 0x2028 || c === 0x2029 || c === 0xfeff) out += `\\u${hex(c, 4)}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %v for the JSON-like values a field error carries; objects and arrays print as JSON. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      return JSON.stringify(value) ?? String(value);
  }
}
