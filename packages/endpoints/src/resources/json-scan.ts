// One pass over a JSON text for what JSON.parse does not tell: duplicate keys with their paths
// (JSON.parse keeps the last silently; fieldValidation reports them, and LIBRARIES.md measured this
// scan as the cheapest way), nesting past MAX_NESTING_DEPTH (the recursive steps after decoding
// must not overflow the stack), and number literals a double cannot hold exactly. The text must
// already be valid JSON.
import { MAX_NESTING_DEPTH, depthExceededMessage, isInexactNumberLiteral, tagNumberLiteral } from '@plat/apimachinery';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

export interface JsonScan {
  /** Paths like `metadata.name` or `spec.rules[0].verbs` of keys that appear twice in one object. */
  duplicates: string[];
  /** [start, end) of each number literal that JSON.parse would round. */
  inexactNumbers: [number, number][];
  /** Nested deeper than MAX_NESTING_DEPTH: the scan stopped there. */
  tooDeep: boolean;
}

export function scanJson(text: string): JsonScan {
  const duplicates: string[] = [];
  const inexactNumbers: [number, number][] = [];
  let depth = 0;
  let tooDeep = false;
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
    if ((c === OPEN_OBJECT || c === OPEN_ARRAY) && ++depth > MAX_NESTING_DEPTH) {
      tooDeep = true;
      return;
    }
    if (c === OPEN_OBJECT) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === CLOSE_OBJECT) {
        i++;
        depth--;
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
        if (tooDeep) return;
        skipSpace();
        if (text.charCodeAt(i++) === CLOSE_OBJECT) {
          depth--;
          return;
        }
      }
    } else if (c === OPEN_ARRAY) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === CLOSE_ARRAY) {
        i++;
        depth--;
        return;
      }
      for (let index = 0; ; index++) {
        path.push(index);
        value();
        path.pop();
        if (tooDeep) return;
        skipSpace();
        if (text.charCodeAt(i++) === CLOSE_ARRAY) {
          depth--;
          return;
        }
      }
    } else if (c === QUOTE) {
      skipString();
    } else {
      // A number, true, false or null: up to the next delimiter.
      const start = i;
      for (let d = text.charCodeAt(i); i < text.length && d !== 0x2c && d !== CLOSE_OBJECT && d !== CLOSE_ARRAY && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = text.charCodeAt(++i));
      // Letters start only true, false and null; of numbers, the short plain ones are exact.
      if (c <= 0x39 && (i - start > 15 || hasExponent(text, start, i)) && isInexactNumberLiteral(text.slice(start, i))) {
        inexactNumbers.push([start, i]);
      }
    }
  };
  value();
  return { duplicates, inexactNumbers, tooDeep };
}

function hasExponent(text: string, start: number, end: number): boolean {
  for (let j = start; j < end; j++) if ((text.charCodeAt(j) | 0x20) === 0x65) return true;
  return false;
}

/** `spec.rules[0].verbs`: keys joined by dots, array indexes in brackets. */
function pathString(path: readonly (string | number)[], key: string): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  return out ? `${out}.${key}` : key;
}

/** A JSON text that cannot be decoded: its syntax, or nesting past the bound. */
export class JsonDecodeError extends Error {
  override readonly name = 'JsonDecodeError';
}

export interface DecodedJson {
  value: unknown;
  /** Paths of keys given twice in one object. */
  duplicates: string[];
}

/**
 * JSON.parse, with the scan's findings: a syntax error or nesting past the bound throws
 * JsonDecodeError, and number literals a double would round come back as tagged strings (see
 * @plat/apimachinery exact-number), for the schema check to resolve.
 */
export function decodeJson(text: string): DecodedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonDecodeError(error instanceof Error ? error.message : String(error));
  }
  const scan = scanJson(text);
  if (scan.tooDeep) throw new JsonDecodeError(depthExceededMessage);
  if (scan.inexactNumbers.length) value = JSON.parse(withTaggedNumbers(text, scan.inexactNumbers));
  return { value, duplicates: scan.duplicates };
}

/** The text with each listed number literal replaced by its tagged string. */
function withTaggedNumbers(text: string, literals: readonly [number, number][]): string {
  let out = '';
  let from = 0;
  for (const [start, end] of literals) {
    out += text.slice(from, start) + JSON.stringify(tagNumberLiteral(text.slice(start, end)));
    from = end;
  }
  return out + text.slice(from);
}
