// Two corners of CEL's lexical grammar that the parser library reads otherwise than cel-go: a
// float literal with no digits before its point (`.5`), and a bytes literal's characters, which
// are their UTF-8 bytes (`b'ÿ'` is \xc3\xbf, not \xff).

/**
 * Where `source` has a float literal that starts with its point: the offsets of those points,
 * outside strings and comments. A point after an operand (`a.b`, `f().x`, `1.5`) is not one.
 */
export function leadingPointFloats(source: string): number[] {
  const points: number[] = [];
  let previous = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i = endOfString(source, i, /[rR]/.test(source[i - 1] ?? '') || /[rR][bB]|[bB][rR]/.test(source.slice(Math.max(0, i - 2), i)));
      previous = c;
      continue;
    }
    if (c === '.' && /[0-9]/.test(source[i + 1] ?? '') && !/[A-Za-z0-9_)\]}'"]/.test(previous)) points.push(i);
    if (!/\s/.test(c)) previous = c;
    i++;
  }
  return points;
}

/** The offset just past the string literal whose opening quote is at `start`. */
function endOfString(source: string, start: number, raw: boolean): number {
  const quote = source[start]!;
  const triple = source.startsWith(quote.repeat(3), start);
  const close = triple ? quote.repeat(3) : quote;
  let i = start + close.length;
  while (i < source.length) {
    if (!raw && source[i] === '\\') {
      i += 2;
      continue;
    }
    if (source.startsWith(close, i)) return i + close.length;
    if (!triple && source[i] === '\n') return i;
    i++;
  }
  return i;
}

const simpleEscapes: Record<string, number> = { '\\': 92, '?': 63, '"': 34, "'": 39, '`': 96, a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11 };

/**
 * The bytes of a bytes literal's source text (`b'...'`, `B"""..."""`, raw with r): characters as
 * their UTF-8 encoding, \x and octal escapes as single bytes. The parser has already rejected
 * malformed escapes.
 */
export function bytesLiteral(text: string): Uint8Array {
  const prefix = /^[bBrR]+/.exec(text)?.[0] ?? '';
  const raw = /[rR]/.test(prefix);
  const body = text.slice(prefix.length);
  const quote = body.startsWith(body[0]!.repeat(3)) ? body[0]!.repeat(3) : body[0]!;
  const content = body.slice(quote.length, body.length - quote.length);
  const encoder = new TextEncoder();
  const out: number[] = [];
  let i = 0;
  while (i < content.length) {
    const c = content[i]!;
    if (c !== '\\' || raw || i + 1 >= content.length) {
      const cp = content.codePointAt(i)!;
      out.push(...encoder.encode(String.fromCodePoint(cp)));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const next = content[i + 1]!;
    if (next in simpleEscapes) {
      out.push(simpleEscapes[next]!);
      i += 2;
    } else if (next === 'x' || next === 'X') {
      out.push(parseInt(content.slice(i + 2, i + 4), 16));
      i += 4;
    } else {
      out.push(parseInt(content.slice(i + 1, i + 4), 8) & 0xff);
      i += 4;
    }
  }
  return Uint8Array.from(out);
}
