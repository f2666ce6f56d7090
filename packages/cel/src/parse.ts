// Source text to the expression tree (ast.ts). The grammar is @marcbachmann/cel-js's parser (a
// complete, well-tested CEL parser); its tree is turned into cel-go's shape here: operators as
// calls, negative number literals folded, macros expanded as cel-go expands them.
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { ACCUMULATOR, OP, type Expr } from './ast.js';
import { CompileError, NO_LOCATION, type Issue } from './issues.js';
import { EXPRESSION_SIZE_CODE_POINT_LIMIT } from './limits.js';
import { bytesLiteral, leadingPointFloats } from './source-text.js';
import { UInt, type Value } from './values.js';

const MAX_INT = (1n << 63n) - 1n;
const MAX_UINT = (1n << 64n) - 1n;

// The parser only: optional syntax (.?field) is off, as in Kubernetes 1.28's compatibility version.
const grammar = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false, enableOptionalTypes: false });

const binaryOps: Record<string, string> = {
  '+': OP.add,
  '-': OP.subtract,
  '*': OP.multiply,
  '/': OP.divide,
  '%': OP.modulo,
  '==': OP.equals,
  '!=': OP.notEquals,
  '<': OP.less,
  '<=': OP.lessEquals,
  '>': OP.greater,
  '>=': OP.greaterEquals,
  in: OP.in,
  '&&': OP.and,
  '||': OP.or,
};

class Converter {
  private nextId = 1;
  readonly issues: Issue[] = [];

  /**
   * `text` is what the parser read: the source, with a 0 put before each point of `inserted`
   * (offsets in the source) so that `.5` reads as `0.5`; offsets reported are the source's.
   */
  constructor(
    private readonly text: string,
    private readonly inserted: readonly number[] = [],
  ) {}

  private id(): number {
    return this.nextId++;
  }

  /** The source offset of an offset in the text read. */
  at(offset: number): number {
    let shift = 0;
    for (let j = 0; j < this.inserted.length && this.inserted[j]! + j < offset; j++) shift++;
    return offset - shift;
  }

  /** The (source) offset of the first non-space character at or after `from` in the text read. */
  private tokenAt(from: number): number {
    let i = from;
    while (i < this.text.length && /\s/.test(this.text[i]!)) i++;
    return this.at(i);
  }

  private fail(offset: number, message: string): Expr {
    this.issues.push({ offset, message });
    return { id: this.id(), offset, kind: 'const', value: null };
  }

  private literal(value: unknown, offset: number, node?: ASTNode): Expr {
    let v: Value;
    if (typeof value === 'bigint') {
      if (value > MAX_INT) return this.fail(offset, `invalid int literal`);
      v = value;
    } else if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array) && 'value' in value) {
      const u = (value as { value: bigint }).value;
      if (u > MAX_UINT) return this.fail(offset, `invalid uint literal`);
      v = new UInt(u);
    } else if (value instanceof Uint8Array && node) {
      v = bytesLiteral(this.text.slice(node.start, node.end));
    } else {
      v = value as Value;
    }
    return { id: this.id(), offset, kind: 'const', value: v };
  }

  convert(node: ASTNode): Expr {
    const offset = this.at(node.start);
    switch (node.op) {
      case 'value':
        return this.literal(node.args, offset, node);
      case 'id':
        return { id: this.id(), offset, kind: 'ident', name: node.args };
      case '.': {
        const [operand, field] = node.args;
        return { id: this.id(), offset: this.tokenAt(operand.end), kind: 'select', operand: this.convert(operand), field, testOnly: false };
      }
      case '[]': {
        const [operand, index] = node.args;
        const at = this.tokenAt(operand.end);
        return this.call(OP.index, at, undefined, [this.convert(operand), this.convert(index)]);
      }
      case 'call':
        return this.globalCall(node.args[0], node.args[1], offset + node.args[0].length);
      case 'rcall':
        return this.memberCall(node.args[0], node.args[1], node.args[2]);
      case 'list':
        return { id: this.id(), offset, kind: 'list', elements: node.args.map((e) => this.convert(e)) };
      case 'map':
        return { id: this.id(), offset, kind: 'map', entries: node.args.map(([k, v]) => ({ key: this.convert(k), value: this.convert(v) })) };
      case '?:': {
        const [cond, yes, no] = node.args;
        return this.call(OP.conditional, this.tokenAt(cond.end), undefined, [this.convert(cond), this.convert(yes), this.convert(no)]);
      }
      case '!_':
        return this.call(OP.not, offset, undefined, [this.convert(node.args)]);
      case '-_': {
        const operand = node.args;
        // cel-go reads a minus before a number as part of the literal (so -9223372036854775808 exists).
        if (operand.op === 'value' && typeof operand.args === 'bigint') return this.literal(-operand.args, offset);
        if (operand.op === 'value' && typeof operand.args === 'number') return this.literal(-operand.args, offset);
        return this.call(OP.negate, offset, undefined, [this.convert(operand)]);
      }
      case '.?':
      case '[?]':
        return this.fail(offset, 'unsupported syntax: optional field selection');
      default: {
        const fn = binaryOps[node.op];
        if (!fn) return this.fail(offset, `unsupported syntax '${node.op}'`);
        const [left, right] = node.args as [ASTNode, ASTNode];
        return this.call(fn, this.tokenAt(left.end), undefined, [this.convert(left), this.convert(right)]);
      }
    }
  }

  private call(fn: string, offset: number, target: Expr | undefined, args: Expr[]): Expr {
    return { id: this.id(), offset, kind: 'call', fn, target, args };
  }

  private globalCall(name: string, args: readonly ASTNode[], offset: number): Expr {
    if (name === 'has' && args.length === 1) {
      const arg = args[0]!;
      if (arg.op !== '.') return this.fail(this.at(arg.start), 'invalid argument to has() macro');
      const [operand, field] = arg.args;
      return { id: this.id(), offset, kind: 'select', operand: this.convert(operand), field, testOnly: true };
    }
    return this.call(
      name,
      offset,
      undefined,
      args.map((a) => this.convert(a)),
    );
  }

  private memberCall(name: string, targetNode: ASTNode, argNodes: readonly ASTNode[]): Expr {
    const offset = this.tokenAt(targetNode.end);
    const quantifier = (name === 'all' || name === 'exists' || name === 'exists_one') && argNodes.length === 2;
    const mapping = (name === 'map' && (argNodes.length === 2 || argNodes.length === 3)) || (name === 'filter' && argNodes.length === 2);
    if (!quantifier && !mapping) {
      return this.call(
        name,
        offset,
        this.convert(targetNode),
        argNodes.map((a) => this.convert(a)),
      );
    }
    const variable = argNodes[0]!;
    if (variable.op !== 'id') return this.fail(this.at(variable.start), 'argument must be a simple name');
    const iterVar = variable.args;
    const range = this.convert(targetNode);
    const args = argNodes.slice(1).map((a) => this.convert(a));
    return quantifier ? this.quantifier(name, offset, iterVar, range, args[0]!) : this.mapping(name, offset, iterVar, range, args);
  }

  private accu(offset: number): Expr {
    return { id: this.id(), offset, kind: 'ident', name: ACCUMULATOR };
  }

  private constant(value: Value, offset: number): Expr {
    return { id: this.id(), offset, kind: 'const', value };
  }

  private fold(offset: number, iterVar: string, range: Expr, init: Expr, cond: Expr, step: Expr, result: Expr): Expr {
    return { id: this.id(), offset, kind: 'comprehension', iterVar, range, accuVar: ACCUMULATOR, init, cond, step, result };
  }

  // cel-go's makeQuantifier.
  private quantifier(kind: string, offset: number, iterVar: string, range: Expr, predicate: Expr): Expr {
    if (kind === 'all') {
      const cond = this.call(OP.notStrictlyFalse, offset, undefined, [this.accu(offset)]);
      const step = this.call(OP.and, offset, undefined, [this.accu(offset), predicate]);
      return this.fold(offset, iterVar, range, this.constant(true, offset), cond, step, this.accu(offset));
    }
    if (kind === 'exists') {
      const not = this.call(OP.not, offset, undefined, [this.accu(offset)]);
      const cond = this.call(OP.notStrictlyFalse, offset, undefined, [not]);
      const step = this.call(OP.or, offset, undefined, [this.accu(offset), predicate]);
      return this.fold(offset, iterVar, range, this.constant(false, offset), cond, step, this.accu(offset));
    }
    const increment = this.call(OP.add, offset, undefined, [this.accu(offset), this.constant(1n, offset)]);
    const step = this.call(OP.conditional, offset, undefined, [predicate, increment, this.accu(offset)]);
    const result = this.call(OP.equals, offset, undefined, [this.accu(offset), this.constant(1n, offset)]);
    return this.fold(offset, iterVar, range, this.constant(0n, offset), this.constant(true, offset), step, result);
  }

  // cel-go's MakeMap and MakeFilter.
  private mapping(kind: string, offset: number, iterVar: string, range: Expr, args: Expr[]): Expr {
    const emptyList: Expr = { id: this.id(), offset, kind: 'list', elements: [] };
    let step: Expr;
    if (kind === 'filter') {
      const element: Expr = { id: this.id(), offset, kind: 'list', elements: [{ id: this.id(), offset, kind: 'ident', name: iterVar }] };
      const append = this.call(OP.add, offset, undefined, [this.accu(offset), element]);
      step = this.call(OP.conditional, offset, undefined, [args[0]!, append, this.accu(offset)]);
    } else {
      const transform = args[args.length - 1]!;
      const element: Expr = { id: this.id(), offset, kind: 'list', elements: [transform] };
      step = this.call(OP.add, offset, undefined, [this.accu(offset), element]);
      if (args.length === 2) step = this.call(OP.conditional, offset, undefined, [args[0]!, step, this.accu(offset)]);
    }
    return this.fold(offset, iterVar, range, emptyList, this.constant(true, offset), step, this.accu(offset));
  }
}

/** The expression tree of `source`, or a CompileError with the syntax errors. */
export function parse(source: string): Expr {
  // cel-go refuses an expression past its size limit before reading any of it.
  const size = codePoints(source);
  if (size > EXPRESSION_SIZE_CODE_POINT_LIMIT) {
    throw new CompileError(source, [{ offset: NO_LOCATION, message: `expression code point size exceeds limit: size: ${size}, limit ${EXPRESSION_SIZE_CODE_POINT_LIMIT}` }]);
  }
  const inserted = leadingPointFloats(source);
  let text = source;
  for (let j = inserted.length - 1; j >= 0; j--) text = `${text.slice(0, inserted[j])}0${text.slice(inserted[j])}`;
  const converter = new Converter(text, inserted);
  let root: ASTNode;
  try {
    root = grammar.parse(text).ast;
  } catch (error) {
    const e = error as { summary?: string; message: string; range?: { start: number } };
    throw new CompileError(source, [{ offset: converter.at(e.range?.start ?? 0), message: `Syntax error: ${e.summary ?? e.message}` }]);
  }
  const expr = converter.convert(root);
  if (converter.issues.length) throw new CompileError(source, converter.issues);
  return expr;
}

/** The number of code points of `text` (a surrogate pair is one). */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}
