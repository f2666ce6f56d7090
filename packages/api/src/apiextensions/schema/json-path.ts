// client-go's JSONPath templates (util/jsonpath), as a CRD's additionalPrinterColumns use them: a
// template such as `{.status.conditions[?(@.type=="Ready")].status}` parsed once, then evaluated on
// a decoded object, missing keys allowed. Supported as upstream parses and evaluates them: fields
// (`.a`, `a\.b` escaping a dot), `..` recursive descent, `*` wildcards, `[n]`, `[-1]`, slices
// `[a:b:c]`, `[*]`, `['key']` (a dotted key is a path, as upstream reads it: `['a.b']` is `.a.b`),
// unions `[a,b]`, filters `[?(@.x)]` and `[?(@.x <op> literal)]` with ==, !=, <, <=, >, >=, and
// text outside the braces. Not supported: `range`/`end` (an error, like any unknown identifier).
import { goQuote } from '@plat/apimachinery';
import { goPlain, isInt64 } from './go-format.js';

type Node =
  | { type: 'list'; nodes: Node[] }
  | { type: 'text'; text: string }
  | { type: 'field'; name: string }
  | { type: 'wildcard' }
  | { type: 'recursive' }
  | { type: 'array'; params: [Param, Param, Param] }
  | { type: 'union'; branches: Node[] }
  | { type: 'filter'; left: Node; right: Node; operator: string }
  | { type: 'int'; value: number }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'identifier'; name: string };

interface Param {
  known: boolean;
  value: number;
  derived: boolean;
}

const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t';
const isEndOfLine = (ch: string): boolean => ch === '\r' || ch === '\n';
const isTerminator = (ch: string | undefined): boolean =>
  ch === undefined || isSpace(ch) || isEndOfLine(ch) || '.,[]$@{}'.includes(ch);
const isDigit = (ch: string): boolean => /^\p{Nd}$/u.test(ch);
const isAlphaNumeric = (ch: string): boolean => ch === '_' || /^[\p{L}\p{Nd}]$/u.test(ch);

/** Go's strconv unquoting of a quoted literal (`"a\"b"`, `'x'`). */
function unquote(text: string): string {
  const quote = text[0];
  if (text.length < 2 || quote !== text[text.length - 1] || (quote !== '"' && quote !== "'")) throw new Error('invalid syntax');
  const body = text.slice(1, -1);
  const escapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = body[++i];
    if (next === undefined) throw new Error('invalid syntax');
    if (escapes[next] !== undefined) {
      out += escapes[next];
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const width = next === 'x' ? 2 : next === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new Error('invalid syntax');
      out += String.fromCodePoint(parseInt(hex, 16));
      i += width;
    } else {
      throw new Error('invalid syntax');
    }
  }
  return out;
}

class Parser {
  private pos = 0;
  private start = 0;
  readonly root: Node & { type: 'list' } = { type: 'list', nodes: [] };

  constructor(private readonly input: string) {}

  parse(): Node & { type: 'list' } {
    this.parseText(this.root);
    return this.root;
  }

  private next(): string | undefined {
    if (this.pos >= this.input.length) return undefined;
    const ch = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.pos += ch.length;
    return ch;
  }

  private backup(ch: string | undefined): void {
    if (ch !== undefined) this.pos -= ch.length;
  }

  private peek(): string | undefined {
    const ch = this.next();
    this.backup(ch);
    return ch;
  }

  private consume(): string {
    const text = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return text;
  }

  private parseText(list: Node & { type: 'list' }): void {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        if (this.pos > this.start) list.nodes.push({ type: 'text', text: this.consume() });
        this.pos += 1;
        this.consume();
        const action: Node & { type: 'list' } = { type: 'list', nodes: [] };
        list.nodes.push(action);
        this.parseInsideAction(action);
        return;
      }
      if (this.next() === undefined) break;
    }
    if (this.pos > this.start) list.nodes.push({ type: 'text', text: this.consume() });
  }

  private parseInsideAction(list: Node & { type: 'list' }): void {
    for (;;) {
      const rest = this.input.slice(this.pos);
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consume();
        this.parseText(this.root);
        return;
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(list);
        continue;
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(list);
        continue;
      }
      const ch = this.next();
      if (ch === undefined || isEndOfLine(ch)) throw new Error('unclosed action');
      if (ch === ' ' || ch === '@' || ch === '$') {
        this.consume();
      } else if (ch === '[') {
        this.parseArray(list);
      } else if (ch === '"' || ch === "'") {
        this.parseQuote(list, ch);
      } else if (ch === '.') {
        this.parseField(list);
      } else if (ch === '+' || ch === '-' || isDigit(ch)) {
        this.backup(ch);
        this.parseNumber(list);
      } else if (isAlphaNumeric(ch)) {
        this.backup(ch);
        this.parseIdentifier(list);
      } else {
        throw new Error(`unrecognized character in action: U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} ${goQuote(ch).replace(/^"|"$/g, "'")}`);
      }
    }
  }

  private parseIdentifier(list: Node & { type: 'list' }): void {
    for (;;) {
      const ch = this.next();
      if (isTerminator(ch)) {
        this.backup(ch);
        break;
      }
    }
    const value = this.consume();
    list.nodes.push(value === 'true' || value === 'false' ? { type: 'bool', value: value === 'true' } : { type: 'identifier', name: value });
  }

  private parseRecursive(list: Node & { type: 'list' }): void {
    if (list.nodes.at(-1)?.type === 'recursive') throw new Error('invalid multiple recursive descent');
    this.pos += 2;
    this.consume();
    list.nodes.push({ type: 'recursive' });
    const ch = this.peek();
    if (ch !== undefined && isAlphaNumeric(ch)) this.parseField(list);
  }

  private parseNumber(list: Node & { type: 'list' }): void {
    const first = this.peek();
    if (first === '+' || first === '-') this.next();
    for (;;) {
      const ch = this.next();
      if (ch !== '.' && (ch === undefined || !isDigit(ch))) {
        this.backup(ch);
        break;
      }
    }
    const text = this.consume();
    if (/^[+-]?\d+$/.test(text)) list.nodes.push({ type: 'int', value: Number(text) });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) list.nodes.push({ type: 'float', value: Number(text) });
    else throw new Error(`cannot parse number ${text}`);
  }

  private parseArray(list: Node & { type: 'list' }): void {
    for (;;) {
      const ch = this.next();
      if (ch === undefined || ch === '\n') throw new Error('unterminated array');
      if (ch === ']') break;
    }
    let text = this.consume().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      list.nodes.push({ type: 'union', branches: parts.map((part) => parseAction(`[${part.trim()}]`)) });
      return;
    }
    const key = /^'([^']*)'$/.exec(text);
    if (key) {
      list.nodes.push(...(parseAction(`.${key[1]}`) as Node & { type: 'list' }).nodes);
      return;
    }
    const slice = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/.exec(text);
    if (!slice) throw new Error(`invalid array index ${text}`);
    const params: Param[] = [];
    for (let i = 0; i < 3; i++) {
      let part = slice[i + 1] ?? '';
      if (part !== '') {
        if (i > 0) part = part.slice(1);
        params.push(i > 0 && part === '' ? { known: false, value: 0, derived: false } : { known: true, value: Number(part), derived: false });
      } else if (i === 1) {
        params.push({ known: true, value: params[0]!.value + 1, derived: true });
      } else {
        params.push({ known: false, value: 0, derived: false });
      }
    }
    list.nodes.push({ type: 'array', params: params as [Param, Param, Param] });
  }

  private parseFilter(list: Node & { type: 'list' }): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const ch = this.next();
      if (ch === undefined || ch === '\n') throw new Error('unterminated filter');
      if (ch === '"' || ch === "'") {
        if (!begin) {
          begin = true;
          pair = ch;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && ch === pair) end = true;
      } else if (ch === ')' && begin === end) {
        break;
      }
    }
    if (this.next() !== ']') throw new Error('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const comparison = /^([^!<>=]+)([!<>=]+)(.+?)$/su.exec(text);
    if (!comparison) {
      list.nodes.push({ type: 'filter', left: parseAction(text), right: { type: 'list', nodes: [] }, operator: 'exists' });
    } else {
      list.nodes.push({ type: 'filter', left: parseAction(comparison[1]!), right: parseAction(comparison[3]!), operator: comparison[2]! });
    }
  }

  private parseQuote(list: Node & { type: 'list' }, quote: string): void {
    for (;;) {
      const ch = this.next();
      if (ch === undefined || ch === '\n') throw new Error('unterminated quoted string');
      if (ch === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const text = this.consume();
    try {
      list.nodes.push({ type: 'text', text: unquote(text) });
    } catch (error) {
      throw new Error(`unquote string ${text} error ${(error as Error).message}`);
    }
  }

  private parseField(list: Node & { type: 'list' }): void {
    this.consume();
    for (;;) {
      const ch = this.next();
      if (ch === '\\') {
        this.next();
      } else if (isTerminator(ch)) {
        this.backup(ch);
        break;
      }
    }
    const value = this.consume();
    list.nodes.push(value === '*' ? { type: 'wildcard' } : { type: 'field', name: value.replaceAll('\\', '') });
  }
}

/** The inside of one `{...}`, for unions and filters. */
function parseAction(text: string): Node {
  const root = new Parser(`{${text}}`).parse();
  return root.nodes[0]!;
}

/** A parsed template. */
export interface JSONPathTemplate {
  readonly root: Node & { type: 'list' };
}

/** Parses a template (`{.spec.replicas}`); throws with upstream's parse error. */
export function parseJSONPath(template: string): JSONPathTemplate {
  return { root: new Parser(template).parse() };
}

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Go's reflect kind names for the type errors upstream reports. */
function goType(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'number') return isInt64(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  return 'map[string]interface {}';
}

type Comparable = { kind: 'bool' | 'int' | 'float' | 'string'; value: boolean | number | string };

function comparable(value: unknown): Comparable {
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'number') return { kind: isInt64(value) ? 'int' : 'float', value };
  throw new Error('invalid type for comparison');
}

/** A literal of a filter: the parser's int and float nodes keep their kind. */
class Literal {
  constructor(readonly literal: Comparable) {}
}

const toComparable = (value: unknown): Comparable => (value instanceof Literal ? value.literal : comparable(value));

function compare(operator: string, leftValue: unknown, rightValue: unknown): boolean {
  const left = toComparable(leftValue);
  const right = toComparable(rightValue);
  const less = (): boolean => {
    if (left.kind !== right.kind) throw new Error('incompatible types for comparison');
    if (left.kind === 'bool') throw new Error('invalid type for comparison');
    return left.value < right.value;
  };
  const equal = (): boolean => {
    if (left.kind !== right.kind) throw new Error('incompatible types for comparison');
    return left.value === right.value;
  };
  switch (operator) {
    case '==':
      return equal();
    case '!=':
      return !equal();
    case '<':
      return less();
    case '<=':
      return less() || equal();
    case '>':
      return !(less() || equal());
    case '>=':
      return !less();
    default:
      throw new Error(`unrecognized filter operator ${operator}`);
  }
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...Buffer.from(value, 'utf8')];
  const object = asObject(value);
  return object ? Object.values(object) : [];
}

function walk(values: unknown[], node: Node): unknown[] {
  switch (node.type) {
    case 'list':
      return node.nodes.reduce<unknown[]>((current, next) => walk(current, next), values);
    case 'text':
      return [node.text];
    case 'int':
    case 'float':
      return values.map(() => new Literal({ kind: node.type, value: node.value }));
    case 'bool':
      return values.map(() => new Literal({ kind: 'bool', value: node.value }));
    case 'identifier':
      throw new Error(node.name === 'range' || node.name === 'end' ? `${node.name} is not supported in a column` : `unrecognized identifier ${node.name}`);
    case 'field': {
      const results: unknown[] = [];
      for (const value of values) {
        const object = asObject(value);
        if (object && Object.hasOwn(object, node.name)) results.push(object[node.name]);
      }
      return results;
    }
    case 'wildcard':
      return values.flatMap((value) => (value === null ? [] : children(value)));
    case 'recursive': {
      const results: unknown[] = [];
      for (const value of values) {
        if (value === null) continue;
        const below = children(value);
        if (below.length) results.push(value, ...walk(below, node));
      }
      return results;
    }
    case 'array':
      return values.flatMap((value) => (value === null ? [] : sliceOf(value, node.params)));
    case 'union':
      return node.branches.flatMap((branch) => walk(values, branch));
    case 'filter':
      return values.flatMap((value) => filter(value, node));
  }
}

function sliceOf(value: unknown, given: readonly Param[]): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${goType(value)} is not array or slice`);
  const params = given.map((param) => ({ ...param }));
  const [from, to, step] = params as [Param, Param, Param];
  const length = value.length;
  if (!from.known) from.value = 0;
  if (from.value < 0) from.value += length;
  if (!to.known) to.value = length;
  if (to.value < 0 || (to.value === 0 && to.derived)) to.value += length;
  if (to.value === from.value) return [];
  if (from.value >= length || from.value < 0) throw new Error(`array index out of bounds: index ${from.value}, length ${length}`);
  if (to.value > length || to.value < 0) throw new Error(`array index out of bounds: index ${to.value - 1}, length ${length}`);
  if (from.value > to.value) throw new Error(`starting index ${from.value} is greater than ending index ${to.value}`);
  let stride = 1;
  if (step.known) {
    if (step.value <= 0) throw new Error('step must be > 0');
    stride = step.value;
  }
  const results: unknown[] = [];
  for (let i = from.value; i < to.value; i += stride) results.push(value[i]);
  return results;
}

function filter(value: unknown, node: Node & { type: 'filter' }): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${goPlain(value)} is not array or slice and cannot be filtered`);
  const results: unknown[] = [];
  for (const item of value) {
    if (node.operator === 'exists') {
      let found: unknown[] = [];
      try {
        found = walk([item], node.left);
      } catch {
        // An error counts as nothing found.
      }
      if (found.length) results.push(item);
      continue;
    }
    const lefts = walk([item], node.left);
    if (!lefts.length) continue;
    if (lefts.length > 1) throw new Error('can only compare one element at a time');
    const rights = walk([item], node.right);
    if (!rights.length) continue;
    if (rights.length > 1) throw new Error('can only compare one element at a time');
    if (compare(node.operator, lefts[0], rights[0])) results.push(item);
  }
  return results;
}

/**
 * The results of each top-level part of the template (one per `{...}` or text), missing keys allowed.
 * Throws where upstream's FindResults fails (a type error, an index out of bounds).
 */
export function findResults(template: JSONPathTemplate, data: unknown): unknown[][] {
  return template.root.nodes.map((node) => walk([data], node).map((value) => (value instanceof Literal ? value.literal.value : value)));
}
