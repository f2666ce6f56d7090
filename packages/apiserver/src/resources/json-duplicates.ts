// Duplicate keys in a JSON text, with their paths. JSON.parse keeps the last of duplicate keys
// silently, so fieldValidation needs this one pass over the raw text (LIBRARIES.md measured it as
// the cheapest way). The text must already be valid JSON.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Paths like `metadata.name` or `spec.rules[0].verbs` of keys that appear twice in one object. */
export function findDuplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  // The path to where the scan is, as segments: joined only when a duplicate is found, which is
  // rare, rather than for every key.
  const path: (string | number)[] = [];
  let i = 0;

  const skipSpace = (): void => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  };
  /** From an opening quote to past its closing quote: found with indexOf, not a byte at a time. */
  const skipString = (): void => {
    let close = text.indexOf('"', i + 1);
    for (;;) {
      // A quote after an odd number of backslashes is part of the string.
      let backslashes = 0;
      while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
    i = close + 1;
  };
  const readKey = (): string => {
    const start = i;
    skipString();
    const raw = text.slice(start + 1, i - 1);
    // "\u0061" and "a" are the same key: a key with an escape is compared decoded.
    return raw.includes('\\') ? (JSON.parse(text.slice(start, i)) as string) : raw;
  };
  const value = (): void => {
    skipSpace();
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === CLOSE_OBJECT) {
        i++;
        return;
      }
      const seen = new Set<string>();
      for (;;) {
        skipSpace();
        const key = readKey();
        if (seen.has(key)) duplicates.push(pathString(path, key));
        seen.add(key);
        skipSpace();
        i++; // colon
        path.push(key);
        value();
        path.pop();
        skipSpace();
        if (text.charCodeAt(i++) === CLOSE_OBJECT) return;
      }
    } else if (c === OPEN_ARRAY) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === CLOSE_ARRAY) {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        path.push(index);
        value();
        path.pop();
        skipSpace();
        if (text.charCodeAt(i++) === CLOSE_ARRAY) return;
      }
    } else if (c === QUOTE) {
      skipString();
    } else {
      // A number, true, false or null: up to the next delimiter.
      for (let d = text.charCodeAt(i); i < text.length && d !== 0x2c && d !== CLOSE_OBJECT && d !== CLOSE_ARRAY && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = text.charCodeAt(++i));
    }
  };
  value();
  return duplicates;
}

/** `spec.rules[0].verbs`: keys joined by dots, array indexes in brackets. */
function pathString(path: readonly (string | number)[], key: string): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  return out ? `${out}.${key}` : key;
}
