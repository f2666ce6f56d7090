// YAML request bodies: parsed with the yaml library, duplicate keys found by walking its document
// (with their paths, as for JSON) rather than failing the parse. The same bounds as for JSON hold:
// nesting, and the size a document reaches once its aliases are expanded.
import {
  MAX_NESTING_DEPTH,
  depthExceededMessage,
  exceededJsonLimit,
  isInexactNumberLiteral,
  tagNumberLiteral,
} from '@plat/apimachinery';
import { Composer, Parser, YAMLParseError, isMap, isScalar, isSeq, type CST, type Document, type Node, type Scalar } from 'yaml';

export interface ParsedYaml {
  value: unknown;
  duplicates: string[];
  /** Why the text is not a document we take (a 400). */
  error?: string;
  /** The document expands (through aliases) past the object size limit (a 413). */
  tooLarge?: boolean;
}

/** How many alias expansions a document may make, counting nested ones: the yaml library's default, stated. */
const MAX_ALIAS_COUNT = 100;

const DECIMAL = /^[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

export function parseYaml(text: string): ParsedYaml {
  // The parser's tokens first: it keeps its own stack. Composing them recurses, and deep enough it
  // exhausts the stack, which inside V8's regular-expression compiler ends the process (a fatal
  // "out of memory") instead of throwing: a document nested past the bound is refused before.
  const tokens = Array.from(new Parser().parse(text));
  if (nestingOf(tokens) > MAX_NESTING_DEPTH) return failed(depthExceededMessage);
  const document = firstDocument(tokens, text);
  if (document.errors.length) {
    const message = document.errors[0]!.message;
    // The parser reports its own stack overflow as an error of the document.
    return failed(message.includes('Maximum call stack size exceeded') ? depthExceededMessage : message);
  }
  const duplicates: string[] = [];
  let problem: string | undefined;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (problem !== undefined) return;
    if (isMap(node) || isSeq(node)) {
      if (depth > MAX_NESTING_DEPTH) {
        problem = depthExceededMessage;
        return;
      }
    }
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) duplicates.push(child);
        seen.add(key);
        walk(pair.value, child, depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item as Node, `${path}[${index}]`, depth + 1));
    } else if (isScalar(node) && typeof node.value === 'number') {
      problem = exactNumber(node);
    }
  };
  walk(document.contents, '', 1);
  if (problem !== undefined) return failed(problem);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The yaml library refuses alias bombs with a ReferenceError; anything else it throws is ours.
    if (error instanceof ReferenceError) return failed('document contains excessive aliasing');
    if (error instanceof RangeError) return failed(depthExceededMessage);
    throw error;
  }
  // Aliases may nest one subtree inside another: the expanded value is checked again.
  const exceeded = exceededJsonLimit(value);
  if (exceeded === 'depth') return failed(depthExceededMessage);
  if (exceeded === 'size') return { value: undefined, duplicates: [], tooLarge: true };
  return { value, duplicates };
}

/** The yaml library's parseDocument, on tokens already parsed: the first document, and an error if there are more. */
function firstDocument(tokens: readonly CST.Token[], text: string): Document.Parsed {
  let first: Document.Parsed | undefined;
  for (const document of new Composer({ uniqueKeys: false }).compose(tokens, true, text.length)) {
    if (!first) {
      first = document;
      continue;
    }
    first.errors.push(new YAMLParseError(document.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
    break;
  }
  // compose(…, true) ends with a document, an empty one for empty text.
  return first!;
}

const COLLECTIONS: ReadonlySet<string> = new Set(['block-map', 'block-seq', 'flow-collection']);

/** How deep the collections of the parser's tokens nest, counted without recursion. */
function nestingOf(tokens: readonly CST.Token[]): number {
  let deepest = 0;
  const pending: [unknown, number][] = tokens.map((token) => [token, 0]);
  while (pending.length > 0) {
    const [node, outer] = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const type = (node as { type?: unknown }).type;
    const depth = typeof type === 'string' && COLLECTIONS.has(type) ? outer + 1 : outer;
    if (depth > deepest) deepest = depth;
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) pending.push([item, depth]);
      else if (typeof value === 'object' && value !== null) pending.push([value, depth]);
    }
  }
  return deepest;
}

function failed(error: string): ParsedYaml {
  return { value: undefined, duplicates: [], error };
}

/**
 * A number scalar that a double holds inexactly becomes its tagged literal (as JSON's do); one that
 * JSON cannot carry at all (.inf, .nan) is refused, as upstream's YAML-to-JSON conversion refuses it.
 */
function exactNumber(node: Scalar): string | undefined {
  const number = node.value as number;
  if (!Number.isFinite(number)) return `unsupported value: ${node.source ?? String(number)}`;
  const source = node.source;
  if (typeof source !== 'string' || !DECIMAL.test(source)) return undefined;
  const literal = source.startsWith('+') ? source.slice(1) : source;
  if (isInexactNumberLiteral(literal)) node.value = tagNumberLiteral(literal);
  return undefined;
}
