// Protocol buffers' text format, as far as cel-spec's conformance files use it: messages of named
// fields (`name: value`, `name { ... }`, `[type.url] { ... }`), lists (`[a, b]`), strings with C
// escapes (kept as bytes: `\303\251` is two bytes of one UTF-8 character), numbers and enum or
// keyword identifiers. Without the schema a field's repetition is unknown, so every field keeps
// all its occurrences in order.

export type TextValue =
  | { readonly kind: 'string'; readonly bytes: Uint8Array }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'identifier'; readonly text: string }
  | { readonly kind: 'message'; readonly message: TextMessage };

/** A message: each field's values in the order they appear (lists flattened into them). */
export class TextMessage {
  readonly fields = new Map<string, TextValue[]>();

  add(name: string, value: TextValue): void {
    const values = this.fields.get(name);
    if (values) values.push(value);
    else this.fields.set(name, [value]);
  }

  all(name: string): readonly TextValue[] {
    return this.fields.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.fields.has(name);
  }

  /** The one value of a field (the last, as the text format merges repeated singular fields). */
  one(name: string): TextValue | undefined {
    const values = this.fields.get(name);
    return values?.[values.length - 1];
  }

  message(name: string): TextMessage | undefined {
    const v = this.one(name);
    return v?.kind === 'message' ? v.message : undefined;
  }

  messages(name: string): TextMessage[] {
    return this.all(name).flatMap((v) => (v.kind === 'message' ? [v.message] : []));
  }

  string(name: string): string | undefined {
    const v = this.one(name);
    return v?.kind === 'string' ? new TextDecoder().decode(v.bytes) : undefined;
  }

  /** A number's or identifier's text (`12`, `-inf`, `INT64`, `true`). */
  token(name: string): string | undefined {
    const v = this.one(name);
    return v?.kind === 'number' || v?.kind === 'identifier' ? v.text : undefined;
  }

  flag(name: string): boolean {
    const t = this.token(name);
    return t === 'true' || t === 't' || t === 'True' || t === '1';
  }
}

export class TextFormatError extends Error {
  constructor(message: string, line: number) {
    super(`text format, line ${line}: ${message}`);
    this.name = 'TextFormatError';
  }
}

const simpleEscapes: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63 };

class Reader {
  private pos = 0;

  constructor(private readonly text: string) {}

  private get line(): number {
    let n = 1;
    for (let i = 0; i < this.pos; i++) if (this.text[i] === '\n') n++;
    return n;
  }

  fail(message: string): never {
    throw new TextFormatError(message, this.line);
  }

  /** Skips spaces and `#` comments; the next character, or '' at the end. */
  peek(): string {
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) return '';
      if (c === '#') {
        while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos++;
      } else if (/\s/.test(c)) this.pos++;
      else return c;
    }
  }

  accept(c: string): boolean {
    if (this.peek() !== c) return false;
    this.pos++;
    return true;
  }

  expect(c: string): void {
    if (!this.accept(c)) this.fail(`expected '${c}', found '${this.peek() || 'end of input'}'`);
  }

  /** A field name: an identifier, or a bracketed extension or type URL. */
  fieldName(): string {
    if (this.accept('[')) {
      const end = this.text.indexOf(']', this.pos);
      if (end < 0) this.fail('unterminated [name]');
      const name = this.text.slice(this.pos, end).trim();
      this.pos = end + 1;
      return `[${name}]`;
    }
    return this.word() ?? this.fail(`expected a field name, found '${this.peek()}'`);
  }

  private word(): string | undefined {
    this.peek();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.text.slice(this.pos, this.pos + 256));
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  /** A scalar: strings (adjacent ones joined), a number, or an identifier. */
  scalar(): TextValue {
    const c = this.peek();
    if (c === '"' || c === "'") {
      const parts: number[] = [];
      while (this.peek() === '"' || this.peek() === "'") parts.push(...this.quoted());
      return { kind: 'string', bytes: Uint8Array.from(parts) };
    }
    const m = /^-?(?:[0-9.][0-9A-Za-z_.+-]*|[A-Za-z_][A-Za-z0-9_]*)/.exec(this.text.slice(this.pos, this.pos + 512));
    if (!m) this.fail(`expected a value, found '${c}'`);
    this.pos += m[0].length;
    // Numbers, and signed keywords such as -inf, are numbers; other words are identifiers.
    return /^[-0-9.]/.test(m[0]) ? { kind: 'number', text: m[0] } : { kind: 'identifier', text: m[0] };
  }

  private quoted(): number[] {
    const quote = this.text[this.pos++]!;
    const out: number[] = [];
    const encoder = new TextEncoder();
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined || c === '\n') this.fail('unterminated string');
      this.pos++;
      if (c === quote) return out;
      if (c !== '\\') {
        // A whole code point, so that a surrogate pair encodes as one character.
        const cp = this.text.codePointAt(this.pos - 1)!;
        if (cp > 0xffff) this.pos++;
        out.push(...encoder.encode(String.fromCodePoint(cp)));
        continue;
      }
      const e = this.text[this.pos++]!;
      if (e in simpleEscapes) out.push(simpleEscapes[e]!);
      else if (/[0-7]/.test(e)) {
        let digits = e;
        while (digits.length < 3 && /[0-7]/.test(this.text[this.pos] ?? '')) digits += this.text[this.pos++];
        out.push(parseInt(digits, 8) & 0xff);
      } else if (e === 'x' || e === 'X') {
        let digits = '';
        while (digits.length < 2 && /[0-9a-fA-F]/.test(this.text[this.pos] ?? '')) digits += this.text[this.pos++];
        if (!digits) this.fail('\\x with no digits');
        out.push(parseInt(digits, 16));
      } else if (e === 'u' || e === 'U') {
        const n = e === 'u' ? 4 : 8;
        const digits = this.text.slice(this.pos, this.pos + n);
        if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== n) this.fail(`\\${e} needs ${n} hex digits`);
        this.pos += n;
        out.push(...encoder.encode(String.fromCodePoint(parseInt(digits, 16))));
      } else this.fail(`unknown escape \\${e}`);
    }
  }

  atEnd(): boolean {
    return this.peek() === '';
  }
}

function parseFields(reader: Reader, close: string): TextMessage {
  const message = new TextMessage();
  for (;;) {
    if (close ? reader.accept(close) : reader.atEnd()) return message;
    const name = reader.fieldName();
    const colon = reader.accept(':');
    const next = reader.peek();
    if (next === '{' || next === '<') {
      reader.accept(next);
      message.add(name, { kind: 'message', message: parseFields(reader, next === '{' ? '}' : '>') });
    } else if (next === '[' && colon) {
      reader.accept('[');
      while (!reader.accept(']')) {
        const c = reader.peek();
        if (c === '{' || c === '<') {
          reader.accept(c);
          message.add(name, { kind: 'message', message: parseFields(reader, c === '{' ? '}' : '>') });
        } else message.add(name, reader.scalar());
        reader.accept(',');
      }
    } else {
      if (!colon) reader.fail(`expected ':' after ${name}`);
      message.add(name, reader.scalar());
    }
    if (!reader.accept(',')) reader.accept(';');
  }
}

/** The message a text-format document describes. */
export function parseTextProto(text: string): TextMessage {
  return parseFields(new Reader(text), '');
}
