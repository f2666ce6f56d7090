// What cel-go's parser (0.16, Kubernetes 1.28) refuses for its size or depth, found before the
// parser library reads the source, so that no input can take any stage past the stack:
//   - more than 100,000 code points: `expression code point size exceeds limit: size: N, limit 100000`;
//   - a grammar rule entered more than 250 times at once while parsing (its ANTLR parse listener):
//     `expression recursion limit exceeded: 250` (nested parentheses, lists, calls, ternaries...);
//   - a tree more than 250 operators deep (its visitor): `max recursion depth exceeded` (a chain of
//     251 `+`, `.a`, `[0]`, `<`...). `&&` and `||` chains are not counted: cel-go balances them.
// The source is read with a recognizer of cel-go's grammar (CEL.g4) that only counts: it mirrors
// ANTLR's left-recursive rules (a chain of operators enters its rule once; each right operand
// enters it once more). Where the source does not follow the grammar it gives up and leaves the
// syntax error to the parser.
//
// It also finds the runs of prefix `!` and `-`: cel-go keeps one operator for an odd run and none
// for an even one (`!!x` is x), so a run of any length costs nothing; the runs are blanked to that
// parity in the text the parser library reads (it would recurse once per operator).

/** cel-go's default maximum source size, in code points. */
export const MAX_EXPRESSION_CODE_POINTS = 100_000;
/** cel-go's default maximum recursion depth, of its parse listener and of its visitor. */
export const MAX_PARSE_RECURSION_DEPTH = 250;
/**
 * The deepest tree (macros expanded) the later stages are given. cel-go's two limits leave trees
 * up to about 500 levels deep (200 nested all(), 124 nested map().all()), but combined they allow
 * more: 240 nested parentheses each holding a chain of 40 `&&` make 1,200 levels, which cel-go
 * (its stacks grow) accepts. The checker, the estimator, the planner and the interpreter recurse
 * on the tree; measured from a caller 3,000 frames deep, in a fresh process (an engine that has
 * not optimized them uses larger frames), they take about 1,200 levels. Deeper trees are refused
 * with cel-go's depth error, at half that.
 */
export const MAX_TREE_DEPTH = 600;

export interface ParseLimits {
  /** cel-go's error when the source is refused for its size or depth (reported at no location). */
  readonly error?: string;
  /** Offsets of prefix operators that cancel out, to be read as spaces. */
  readonly blanks: readonly number[];
}

type TokenKind = 'ident' | 'number' | 'string' | 'literal' | 'op' | 'eof';
interface Token {
  readonly kind: TokenKind;
  /** The operator or punctuation itself (`==`, `(`, `in`...), or the identifier. */
  readonly text: string;
  readonly start: number;
}

class GiveUp extends Error {}
class TooDeep extends Error {}

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '[', ']', '{', '}', '(', ')', '.', ',', '-', '!', '?', ':', '+', '*', '/', '%'];
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /[0-9a-fA-F]/.test(c);
const isIdentStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
const isIdentPart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** The tokens of CEL's lexical grammar; undefined where the source has no token. */
function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f') {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    const start = i;
    const prefix = /^(?:[bB][rR]?|[rR][bB]?)?(?="|')/.exec(source.slice(i, i + 3))?.[0];
    if (prefix !== undefined) {
      const end = stringEnd(source, i + prefix.length, /[rR]/.test(prefix));
      if (end === undefined) return undefined;
      tokens.push({ kind: 'string', text: '', start });
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      while (isIdentPart(source[i])) i++;
      const word = source.slice(start, i);
      const kind: TokenKind = word === 'true' || word === 'false' || word === 'null' ? 'literal' : word === 'in' ? 'op' : 'ident';
      tokens.push({ kind, text: word, start });
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(source[i + 1]))) {
      i = numberEnd(source, i);
      tokens.push({ kind: 'number', text: '', start });
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (!op) return undefined;
    tokens.push({ kind: 'op', text: op, start });
    i += op.length;
  }
  tokens.push({ kind: 'eof', text: '', start: source.length });
  return tokens;
}

/** The end of the string literal whose quote is at `quoteAt`; undefined when it is not closed. */
function stringEnd(source: string, quoteAt: number, raw: boolean): number | undefined {
  const quote = source[quoteAt]!;
  const close = source.startsWith(quote.repeat(3), quoteAt) ? quote.repeat(3) : quote;
  let i = quoteAt + close.length;
  while (i < source.length) {
    if (!raw && source[i] === '\\') {
      i += 2;
      continue;
    }
    if (source.startsWith(close, i)) return i + close.length;
    if (close.length === 1 && (source[i] === '\n' || source[i] === '\r')) return undefined;
    i++;
  }
  return undefined;
}

/** The end of the number literal at `i` (NUM_INT, NUM_UINT, NUM_FLOAT: the longest that matches). */
function numberEnd(source: string, i: number): number {
  if (source[i] === '0' && (source[i + 1] === 'x' || source[i + 1] === 'X') && isHex(source[i + 2])) {
    i += 2;
    while (isHex(source[i])) i++;
    return source[i] === 'u' || source[i] === 'U' ? i + 1 : i;
  }
  let float = false;
  while (isDigit(source[i])) i++;
  if (source[i] === '.' && isDigit(source[i + 1])) {
    float = true;
    i++;
    while (isDigit(source[i])) i++;
  }
  const exponent = /^[eE][+-]?[0-9]/.exec(source.slice(i, i + 3));
  if (exponent) {
    float = true;
    i += exponent[0].length;
    while (isDigit(source[i])) i++;
  }
  if (!float && (source[i] === 'u' || source[i] === 'U')) i++;
  return i;
}

const RELATION_OPS = new Set(['<', '<=', '>=', '>', '==', '!=', 'in']);

const RULES = ['start', 'expr', 'conditionalOr', 'conditionalAnd', 'relation', 'calc', 'unary', 'member', 'primary', 'literal', 'exprList', 'listInit', 'optExpr', 'mapInitializerList', 'fieldInitializerList', 'optField'] as const;
type Rule = (typeof RULES)[number];

/**
 * Reads the tokens as cel-go's ANTLR parser would, counting rule entries as its parse listener
 * does (throwing TooDeep past the limit); each rule's method returns the height of its tree in
 * the nodes cel-go's visitor counts (ternaries, relations, arithmetic, selections, member calls,
 * indexes), for the visitor's limit. One stack frame per rule entered, so that the recognizer
 * itself stays far from the stack's end.
 */
class Recognizer {
  private position = 0;
  private readonly depth = new Map<Rule, number>(RULES.map((r) => [r, 0]));
  readonly blanks: number[] = [];

  constructor(private readonly tokens: readonly Token[]) {}

  private get token(): Token {
    return this.tokens[this.position]!;
  }

  private is(text: string, ahead = 0): boolean {
    const t = this.tokens[this.position + ahead];
    return t !== undefined && t.kind === 'op' && t.text === text;
  }

  private next(): Token {
    return this.tokens[this.position++]!;
  }

  private expect(text: string): void {
    if (!this.is(text)) throw new GiveUp();
    this.position++;
  }

  /** A rule entered: counted as ANTLR's listener counts, per rule, while it is open. */
  private enter(rule: Rule): void {
    const depth = this.depth.get(rule)! + 1;
    if (depth > MAX_PARSE_RECURSION_DEPTH) throw new TooDeep();
    this.depth.set(rule, depth);
  }

  private exit(rule: Rule, height: number): number {
    this.depth.set(rule, this.depth.get(rule)! - 1);
    return height;
  }

  start(): number {
    this.enter('start');
    const height = this.expr();
    if (this.token.kind !== 'eof') throw new GiveUp();
    return this.exit('start', height);
  }

  // expr: conditionalOr ('?' conditionalOr ':' expr)?
  private expr(): number {
    this.enter('expr');
    let height = this.conditionalOr();
    if (this.is('?')) {
      this.next();
      const yes = this.conditionalOr();
      this.expect(':');
      height = 1 + Math.max(height, yes, this.expr());
    }
    return this.exit('expr', height);
  }

  private conditionalOr(): number {
    this.enter('conditionalOr');
    let height = this.conditionalAnd();
    while (this.is('||')) {
      this.next();
      height = Math.max(height, this.conditionalAnd());
    }
    return this.exit('conditionalOr', height);
  }

  private conditionalAnd(): number {
    this.enter('conditionalAnd');
    let height = this.relation(0);
    while (this.is('&&')) {
      this.next();
      height = Math.max(height, this.relation(0));
    }
    return this.exit('conditionalAnd', height);
  }

  // relation: calc | relation op relation (left-recursive: one entry for the chain, one more for a right operand).
  private relation(precedence: number): number {
    this.enter('relation');
    let height = this.calc(0);
    while (precedence <= 1 && this.token.kind === 'op' && RELATION_OPS.has(this.token.text)) {
      this.next();
      height = 1 + Math.max(height, this.relation(2));
    }
    return this.exit('relation', height);
  }

  // calc: unary | calc ('*'|'/'|'%') calc | calc ('+'|'-') calc, the first binding tighter.
  private calc(precedence: number): number {
    this.enter('calc');
    let height = this.unary();
    for (;;) {
      if (precedence <= 2 && (this.is('*') || this.is('/') || this.is('%'))) {
        this.next();
        height = 1 + Math.max(height, this.calc(3));
      } else if (precedence <= 1 && (this.is('+') || this.is('-'))) {
        this.next();
        height = 1 + Math.max(height, this.calc(2));
      } else {
        return this.exit('calc', height);
      }
    }
  }

  // unary: member | '!'+ member | '-'+ member
  private unary(): number {
    this.enter('unary');
    if (this.is('!') || this.is('-')) {
      const op = this.token.text;
      const run: number[] = [];
      while (this.is(op)) run.push(this.next().start);
      // An odd run keeps its first operator (cel-go's node is at it), an even one none.
      for (let i = run.length % 2; i < run.length; i++) this.blanks.push(run[i]!);
    }
    return this.exit('unary', this.member());
  }

  // member: primary ('.' '?'? IDENT | '.' IDENT '(' exprList? ')' | '[' '?'? expr ']')*
  private member(): number {
    this.enter('member');
    let height = this.primary();
    for (;;) {
      if (this.is('.')) {
        this.next();
        if (this.is('?')) this.next();
        if (this.token.kind !== 'ident') throw new GiveUp();
        this.next();
        let args = 0;
        if (this.is('(')) {
          this.next();
          if (!this.is(')')) args = this.exprList();
          this.expect(')');
        }
        height = 1 + Math.max(height, args);
      } else if (this.is('[')) {
        this.next();
        if (this.is('?')) this.next();
        height = 1 + Math.max(height, this.expr());
        this.expect(']');
      } else {
        return this.exit('member', height);
      }
    }
  }

  private primary(): number {
    this.enter('primary');
    const t = this.token;
    let height = 0;
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'literal') {
      this.enter('literal');
      this.next();
      this.exit('literal', 0);
    } else if (this.is('(')) {
      this.next();
      height = this.expr();
      this.expect(')');
    } else if (this.is('[')) {
      this.next();
      if (!this.is(']') && !this.is(',')) height = this.listInit();
      if (this.is(',')) this.next();
      this.expect(']');
    } else if (this.is('{')) {
      this.next();
      if (!this.is('}') && !this.is(',')) height = this.entries('mapInitializerList');
      if (this.is(',')) this.next();
      this.expect('}');
    } else {
      height = this.identOrMessage();
    }
    return this.exit('primary', height);
  }

  // '.'? IDENT ('(' exprList? ')')?  |  '.'? IDENT ('.' IDENT)* '{' fieldInitializerList? ','? '}'
  private identOrMessage(): number {
    if (this.is('.')) this.next();
    if (this.token.kind !== 'ident') throw new GiveUp();
    let ahead = 1;
    while (this.is('.', ahead) && this.tokens[this.position + ahead + 1]?.kind === 'ident') ahead += 2;
    if (this.is('{', ahead)) {
      this.position += ahead + 1;
      let height = 0;
      if (!this.is('}') && !this.is(',')) height = this.entries('fieldInitializerList');
      if (this.is(',')) this.next();
      this.expect('}');
      return height;
    }
    this.next();
    if (!this.is('(')) return 0;
    this.next();
    const height = this.is(')') ? 0 : this.exprList();
    this.expect(')');
    return height;
  }

  private exprList(): number {
    this.enter('exprList');
    let height = this.expr();
    while (this.is(',')) {
      this.next();
      height = Math.max(height, this.expr());
    }
    return this.exit('exprList', height);
  }

  private listInit(): number {
    this.enter('listInit');
    let height = this.optExpr();
    while (this.is(',') && !this.is(']', 1)) {
      this.next();
      height = Math.max(height, this.optExpr());
    }
    return this.exit('listInit', height);
  }

  private optExpr(): number {
    this.enter('optExpr');
    if (this.is('?')) this.next();
    return this.exit('optExpr', this.expr());
  }

  private optField(): number {
    this.enter('optField');
    if (this.is('?')) this.next();
    if (this.token.kind !== 'ident') throw new GiveUp();
    this.next();
    return this.exit('optField', 0);
  }

  /** key ':' expr (',' key ':' expr)*, before an optional trailing comma: a map's keys are optExprs, a message's optFields. */
  private entries(rule: 'mapInitializerList' | 'fieldInitializerList'): number {
    this.enter(rule);
    let height = 0;
    for (;;) {
      height = Math.max(height, rule === 'mapInitializerList' ? this.optExpr() : this.optField());
      this.expect(':');
      height = Math.max(height, this.expr());
      if (!this.is(',') || this.is('}', 1)) return this.exit(rule, height);
      this.next();
    }
  }
}

/** The number of code points of `s` (a surrogate pair is one). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** What cel-go refuses `source` for, by size or depth, and the prefix operators that cancel out. */
export function parseLimits(source: string): ParseLimits {
  const size = codePoints(source);
  if (size > MAX_EXPRESSION_CODE_POINTS) {
    return { error: `expression code point size exceeds limit: size: ${size}, limit ${MAX_EXPRESSION_CODE_POINTS}`, blanks: [] };
  }
  const tokens = tokenize(source);
  if (!tokens) return { blanks: [] };
  const recognizer = new Recognizer(tokens);
  try {
    const height = recognizer.start();
    if (height > MAX_PARSE_RECURSION_DEPTH) return { error: 'max recursion depth exceeded', blanks: recognizer.blanks };
    return { blanks: recognizer.blanks };
  } catch (error) {
    if (error instanceof TooDeep) return { error: `expression recursion limit exceeded: ${MAX_PARSE_RECURSION_DEPTH}`, blanks: recognizer.blanks };
    if (error instanceof GiveUp) return { blanks: recognizer.blanks };
    throw error;
  }
}
