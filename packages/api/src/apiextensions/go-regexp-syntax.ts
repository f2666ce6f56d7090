// Whether a pattern is a regular expression Go's regexp package compiles (RE2 syntax, Perl flags),
// and if not, Go's error text: a schema's `pattern` is checked with regexp.Compile, so a pattern
// JavaScript accepts may still be refused (lookarounds, backreferences) and the other way round
// (`(?i)`, `\z`, `[[:alpha:]]`, `\Q...\E`).

const codes = {
  invalidCharRange: 'invalid character class range',
  invalidEscape: 'invalid escape sequence',
  invalidNamedCapture: 'invalid named capture',
  invalidPerlOp: 'invalid or unsupported Perl syntax',
  invalidRepeatOp: 'invalid nested repetition operator',
  invalidRepeatSize: 'invalid repeat count',
  missingBracket: 'missing closing ]',
  missingParen: 'missing closing )',
  missingRepeatArgument: 'missing argument to repetition operator',
  trailingBackslash: 'trailing backslash at end of expression',
  unexpectedParen: 'unexpected )',
  nestingDepth: 'expression nests too deeply',
} as const;

class RegexpSyntaxError extends Error {
  constructor(code: keyof typeof codes, expr: string) {
    super(`error parsing regexp: ${codes[code]}: \`${expr}\``);
  }
}

// Go's unicode.Categories: only these short names, not the long ones JavaScript also knows.
const unicodeCategories = new Set(
  'C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '),
);

const posixClasses = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit']);

/** A script name, as Go's unicode.Scripts has them (the Unicode names; JavaScript's table serves). */
function isUnicodeScript(name: string): boolean {
  if (!/^[A-Za-z_]+$/.test(name)) return false;
  try {
    new RegExp(`\\p{Script=${name}}`, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The first code point of the text as a string (undefined when empty), without splitting all of it. */
const firstChar = (t: string): string | undefined => (t === '' ? undefined : String.fromCodePoint(t.codePointAt(0)!));

const isOctal = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '7';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isAsciiAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);
const maxRepeat = 1000;
const maxNesting = 1000;

/** A parsed piece, kept only as far as the repeat-count limit needs (nested counted repeats). */
interface Node {
  repeatMax?: number;
  repeatMin?: number;
  subs: Node[];
}

type StackEntry = { kind: 'expr'; node: Node } | { kind: 'paren'; capturing: boolean } | { kind: 'bar' };

// Go's repeatIsValid: nested counted repetitions may not multiply past 1000.
function repeatIsValid(node: Node, n: number): boolean {
  if (node.repeatMax !== undefined) {
    let m = node.repeatMax;
    if (m === 0) return true;
    if (m < 0) m = node.repeatMin ?? 0;
    if (m > n) return false;
    if (m > 0) n = Math.floor(n / m);
  }
  return node.subs.every((sub) => repeatIsValid(sub, n));
}

class Parser {
  private readonly stack: StackEntry[] = [];
  private depth = 0;

  constructor(private readonly whole: string) {}

  private pushExpr(node: Node = { subs: [] }): void {
    this.stack.push({ kind: 'expr', node });
  }

  parse(): void {
    let t = this.whole;
    let lastRepeat = '';
    while (t !== '') {
      let repeat = '';
      const c = t[0]!;
      if (c === '(') {
        if (t.length >= 2 && t[1] === '?') t = this.perlFlags(t);
        else {
          this.openGroup();
          t = t.slice(1);
        }
      } else if (c === '|') {
        this.stack.push({ kind: 'bar' });
        t = t.slice(1);
      } else if (c === ')') {
        this.closeGroup();
        t = t.slice(1);
      } else if (c === '^' || c === '$' || c === '.') {
        this.pushExpr();
        t = t.slice(1);
      } else if (c === '[') {
        t = this.charClass(t);
        this.pushExpr();
      } else if (c === '*' || c === '+' || c === '?') {
        const before = t;
        const after = this.repeat(-1, -1, before, t.slice(1), lastRepeat);
        repeat = before;
        t = after;
      } else if (c === '{') {
        const before = t;
        const parsed = parseRepeat(t);
        if (!parsed) {
          this.pushExpr();
          t = t.slice(1);
        } else {
          const { min, max, rest } = parsed;
          if (min < 0 || min > maxRepeat || max > maxRepeat || (max >= 0 && min > max)) {
            throw new RegexpSyntaxError('invalidRepeatSize', before.slice(0, before.length - rest.length));
          }
          const after = this.repeat(min, max, before, rest, lastRepeat);
          repeat = before;
          t = after;
        }
      } else if (c === '\\') {
        t = this.escape(t);
      } else {
        this.pushExpr();
        t = t.slice(firstChar(t)!.length);
      }
      lastRepeat = repeat;
    }
    if (this.stack.some((e) => e.kind === 'paren')) throw new RegexpSyntaxError('missingParen', this.whole);
  }

  /** A group; a capturing one nests the expression a level deeper, and Go stops at 1000 levels. */
  private openGroup(capturing = true): void {
    if (capturing && ++this.depth >= maxNesting) throw new RegexpSyntaxError('nestingDepth', this.whole);
    this.stack.push({ kind: 'paren', capturing });
  }

  private closeGroup(): void {
    const subs: Node[] = [];
    for (;;) {
      const top = this.stack.pop();
      if (!top) throw new RegexpSyntaxError('unexpectedParen', this.whole);
      if (top.kind === 'paren') {
        if (top.capturing) this.depth--;
        break;
      }
      if (top.kind === 'expr') subs.unshift(top.node);
    }
    this.pushExpr({ subs });
  }

  /** A repetition operator applied to the last piece; `min` -1 for `*`, `+` and `?`. */
  private repeat(min: number, max: number, before: string, after: string, lastRepeat: string): string {
    if (after.startsWith('?')) after = after.slice(1);
    if (lastRepeat !== '') throw new RegexpSyntaxError('invalidRepeatOp', lastRepeat.slice(0, lastRepeat.length - after.length));
    const top = this.stack[this.stack.length - 1];
    if (!top || top.kind !== 'expr') {
      throw new RegexpSyntaxError('missingRepeatArgument', before.slice(0, before.length - after.length));
    }
    if (min >= 0) {
      const node: Node = { repeatMin: min, repeatMax: max, subs: [top.node] };
      if ((min >= 2 || max >= 2) && !repeatIsValid(node, maxRepeat)) {
        throw new RegexpSyntaxError('invalidRepeatSize', before.slice(0, before.length - after.length));
      }
      top.node = node;
    } else top.node = { subs: [top.node] };
    return after;
  }

  /** `(?flags)`, `(?flags:`, `(?P<name>` and `(?<name>`. */
  private perlFlags(s: string): string {
    const named = (s.length > 4 && s[2] === 'P' && s[3] === '<') || (s.length > 3 && s[2] === '<');
    if (named) {
      const begin = s[2] === 'P' ? 4 : 3;
      const end = s.indexOf('>');
      if (end < 0) throw new RegexpSyntaxError('invalidNamedCapture', s);
      const name = s.slice(begin, end);
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new RegexpSyntaxError('invalidNamedCapture', s.slice(0, end + 1));
      this.openGroup();
      return s.slice(end + 1);
    }
    let t = s.slice(2);
    let negated = false;
    let sawFlag = false;
    while (t !== '') {
      const c = firstChar(t)!;
      t = t.slice(c.length);
      if (c === 'i' || c === 'm' || c === 's' || c === 'U') {
        sawFlag = true;
      } else if (c === '-') {
        if (negated) break;
        negated = true;
        sawFlag = false;
      } else if (c === ':' || c === ')') {
        if (negated && !sawFlag) break;
        if (c === ':') this.openGroup(false);
        return t;
      } else break;
    }
    throw new RegexpSyntaxError('invalidPerlOp', s.slice(0, s.length - t.length));
  }

  /** A backslash outside a class: an assertion, a class escape, \Q...\E or one character. */
  private escape(t: string): string {
    if (t.length >= 2) {
      switch (t[1]) {
        case 'A':
        case 'b':
        case 'B':
        case 'z':
          this.pushExpr();
          return t.slice(2);
        case 'C':
          throw new RegexpSyntaxError('invalidEscape', t.slice(0, 2));
        case 'Q': {
          const end = t.indexOf('\\E', 2);
          const literal = end < 0 ? t.slice(2) : t.slice(2, end);
          if (literal !== '') this.pushExpr();
          return end < 0 ? '' : t.slice(end + 2);
        }
      }
    }
    const unicode = unicodeClass(t);
    if (unicode !== undefined) {
      this.pushExpr();
      return unicode;
    }
    const perl = perlClass(t);
    if (perl !== undefined) {
      this.pushExpr();
      return perl;
    }
    const rest = parseEscape(t);
    this.pushExpr();
    return rest;
  }

  /** A bracketed class; returns what follows its `]`. */
  private charClass(s: string): string {
    let t = s.slice(1);
    if (t.startsWith('^')) t = t.slice(1);
    let first = true;
    while (t === '' || t[0] !== ']' || first) {
      first = false;
      if (t.length > 2 && t[0] === '[' && t[1] === ':') {
        const end = t.indexOf(':]', 2);
        if (end >= 0) {
          const name = t.slice(0, end + 2);
          const inner = name.slice(2, -2).replace(/^\^/, '');
          if (!posixClasses.has(inner)) throw new RegexpSyntaxError('invalidCharRange', name);
          t = t.slice(end + 2);
          continue;
        }
      }
      const unicode = unicodeClass(t);
      if (unicode !== undefined) {
        t = unicode;
        continue;
      }
      const perl = perlClass(t);
      if (perl !== undefined) {
        t = perl;
        continue;
      }
      const range = t;
      const low = classChar(t, s);
      t = low.rest;
      if (t.length >= 2 && t[0] === '-' && t[1] !== ']') {
        const high = classChar(t.slice(1), s);
        t = high.rest;
        if (high.rune < low.rune) throw new RegexpSyntaxError('invalidCharRange', range.slice(0, range.length - t.length));
      }
    }
    return t.slice(1);
  }
}

function parseInt(s: string): { n: number; rest: string } | undefined {
  if (s === '' || s[0]! < '0' || s[0]! > '9') return undefined;
  if (s.length >= 2 && s[0] === '0' && s[1]! >= '0' && s[1]! <= '9') return undefined;
  const digits = /^[0-9]+/.exec(s)![0];
  // Go stops counting at ten digits: such a count is too big either way.
  return { n: digits.length > 9 ? -1 : Number(digits), rest: s.slice(digits.length) };
}

/** `{n}`, `{n,}` or `{n,m}`; undefined when `{` is a literal brace. */
function parseRepeat(s: string): { min: number; max: number; rest: string } | undefined {
  const low = parseInt(s.slice(1));
  if (!low) return undefined;
  let { rest } = low;
  let min = low.n;
  let max: number;
  if (rest === '') return undefined;
  if (rest[0] !== ',') max = min;
  else {
    rest = rest.slice(1);
    if (rest === '') return undefined;
    if (rest[0] === '}') max = -1;
    else {
      const high = parseInt(rest);
      if (!high) return undefined;
      max = high.n;
      rest = high.rest;
      if (max < 0) min = -1;
    }
  }
  if (rest === '' || rest[0] !== '}') return undefined;
  return { min, max, rest: rest.slice(1) };
}

/** `\pN`, `\p{Greek}`, `\P{^L}`: returns what follows, or undefined when `t` is no such escape. */
function unicodeClass(t: string): string | undefined {
  if (t.length < 2 || t[0] !== '\\' || (t[1] !== 'p' && t[1] !== 'P')) return undefined;
  const after = t.slice(2);
  const c = firstChar(after);
  let name: string;
  let seq: string;
  let rest: string;
  if (c !== '{') {
    seq = t.slice(0, 2 + (c?.length ?? 0));
    name = seq.slice(2);
    rest = t.slice(seq.length);
  } else {
    const end = t.indexOf('}');
    if (end < 0) throw new RegexpSyntaxError('invalidCharRange', t);
    seq = t.slice(0, end + 1);
    name = t.slice(3, end);
    rest = t.slice(end + 1);
  }
  if (name.startsWith('^')) name = name.slice(1);
  if (name !== 'Any' && !unicodeCategories.has(name) && !isUnicodeScript(name)) throw new RegexpSyntaxError('invalidCharRange', seq);
  return rest;
}

/** `\d \D \s \S \w \W`. */
const perlClass = (t: string): string | undefined => (t.length >= 2 && t[0] === '\\' && 'dDsSwW'.includes(t[1]!) ? t.slice(2) : undefined);

function classChar(s: string, wholeClass: string): { rune: number; rest: string } {
  if (s === '') throw new RegexpSyntaxError('missingBracket', wholeClass);
  if (s[0] === '\\') {
    const rest = parseEscape(s);
    return { rune: escapedRune(s.slice(0, s.length - rest.length)), rest };
  }
  const c = firstChar(s)!;
  return { rune: c.codePointAt(0)!, rest: s.slice(c.length) };
}

const cEscapes: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };

/** The code point of an escape parseEscape accepted. */
function escapedRune(escape: string): number {
  const body = escape.slice(1);
  if (cEscapes[body] !== undefined) return cEscapes[body];
  if (/^[0-7]+$/.test(body)) return Number.parseInt(body, 8);
  if (body.startsWith('x{')) return Number.parseInt(body.slice(2, -1), 16);
  if (body.startsWith('x')) return Number.parseInt(body.slice(1), 16);
  return body.codePointAt(0)!;
}

/** One escaped character (Go's parseEscape); returns what follows it. */
function parseEscape(s: string): string {
  let t = s.slice(1);
  if (t === '') throw new RegexpSyntaxError('trailingBackslash', '');
  const c = firstChar(t)!;
  t = t.slice(c.length);
  const fail = (): never => {
    throw new RegexpSyntaxError('invalidEscape', s.slice(0, s.length - t.length));
  };
  if (c >= '1' && c <= '7' && !isOctal(t[0])) return fail(); // a backreference: not supported
  if (c >= '0' && c <= '7') {
    for (let i = 1; i < 3 && isOctal(t[0]); i++) t = t.slice(1);
    return t;
  }
  if (c === 'x') {
    if (t === '') return fail();
    const next = firstChar(t)!;
    t = t.slice(next.length);
    if (next === '{') {
      let digits = 0;
      let value = 0;
      for (;;) {
        if (t === '') return fail();
        const d = firstChar(t)!;
        t = t.slice(d.length);
        if (d === '}') break;
        if (!isHex(d)) return fail();
        value = value * 16 + Number.parseInt(d, 16);
        if (value > 0x10ffff) return fail();
        digits++;
      }
      return digits === 0 ? fail() : t;
    }
    const second = firstChar(t);
    if (second !== undefined) t = t.slice(second.length);
    if (!isHex(next) || !isHex(second)) return fail();
    return t;
  }
  if (cEscapes[c] !== undefined) return t;
  if (c.codePointAt(0)! < 0x80 && !isAsciiAlnum(c)) return t;
  return fail();
}

/** Go's regexp.Compile error for the pattern, or undefined when Go compiles it. */
export function goRegexpError(pattern: string): string | undefined {
  try {
    new Parser(pattern).parse();
    return undefined;
  } catch (error) {
    if (error instanceof RegexpSyntaxError) return error.message;
    throw error;
  }
}
