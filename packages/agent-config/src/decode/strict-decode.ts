// Strict decoding of YAML or JSON text against a schema: every unknown field, duplicate key and wrong type is reported with its path.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Pair } from 'yaml';
import { FieldPath, invalid, parseDuration } from '@plat/apimachinery';
import type { IntType, ObjectSchema, Schema } from './schema.js';
import { DuplicateField, SyntaxProblem, UnknownField, type DecodeProblem } from './problems.js';

/** Bounds that Go's json applies when it reads a number into these types. */
const intRange: Record<IntType, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  // int64 beyond 2^53 cannot be held exactly here; such values are rejected rather than rounded.
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

// An alias that points at its own ancestor would otherwise recurse forever.
const MAX_ALIASES = 100;

/** The mapping at the top of the text, parsed but not yet checked against a schema. */
export interface ParsedText {
  document: Document;
  /** The top-level scalar values by key, for checking apiVersion and kind before anything else. */
  topLevel: Map<string, unknown>;
}

/** Parses YAML (JSON is YAML too); a syntax error, or a document that is not a mapping, is one problem. */
export function parseText(text: string): ParsedText | SyntaxProblem {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: false, lineCounter });
  const error = document.errors[0];
  if (error) {
    if (error.code === 'MULTIPLE_DOCS') return new SyntaxProblem('error parsing YAML or JSON: the file must hold one document, not several');
    const { line, col } = lineCounter.linePos(error.pos[0]);
    return new SyntaxProblem(`error parsing YAML or JSON: line ${line}, column ${col}: ${error.message}`);
  }
  const topLevel = new Map<string, unknown>();
  if (document.contents === null || (isScalar(document.contents) && document.contents.value === null)) return { document, topLevel };
  if (!isMap(document.contents)) return new SyntaxProblem('the document must be a mapping (an object)');
  for (const pair of document.contents.items) {
    if (isScalar(pair.key) && isScalar(pair.value) && !topLevel.has(String(pair.key.value))) topLevel.set(String(pair.key.value), pair.value.value);
  }
  return { document, topLevel };
}

/** Decodes the parsed document against the schema; the value (of the schema's type) holds whatever decoded cleanly. */
export function decodeDocument(parsed: ParsedText, schema: ObjectSchema): { value: Record<string, unknown>; problems: DecodeProblem[] } {
  const decoder = new Decoder(parsed.document);
  const contents = parsed.document.contents;
  const value = contents === null || (isScalar(contents) && contents.value === null) ? {} : decoder.object(contents, schema, undefined);
  return { value: value ?? {}, problems: decoder.problems };
}

const child = (parent: FieldPath | undefined, name: string): FieldPath => (parent ? parent.child(name) : FieldPath.root(name));

class Decoder {
  readonly problems: DecodeProblem[] = [];
  private aliases = 0;

  constructor(private readonly document: Document) {}

  /** The node behind an alias, or the node itself; null once the document has used too many aliases. */
  private deref(node: unknown): unknown {
    while (isAlias(node)) {
      if (++this.aliases > MAX_ALIASES) {
        if (this.aliases === MAX_ALIASES + 1) this.problems.push(new SyntaxProblem(`the document uses more than ${MAX_ALIASES} YAML aliases`));
        return null;
      }
      node = node.resolve(this.document);
    }
    return node;
  }

  private isNull(node: unknown): boolean {
    return node === null || node === undefined || (isScalar(node) && node.value === null);
  }

  /** A field's value: undefined when the file leaves it null, as Go leaves the field unset. */
  value(node: unknown, schema: Schema, path: FieldPath): unknown {
    node = this.deref(node);
    if (this.isNull(node)) return undefined;
    switch (schema.kind) {
      case 'object':
        return this.object(node, schema, path);
      case 'list': {
        if (!isSeq(node)) return this.wrongType(node, path, 'expected a list');
        return node.items.map((item, i) => this.element(item, schema.items, path.index(i)));
      }
      case 'map': {
        if (!isMap(node)) return this.wrongType(node, path, 'expected a mapping');
        const out: Record<string, unknown> = {};
        for (const { key, value } of this.lastOfEach(node.items, path, (key) => path.key(key))) out[key] = this.element(value, schema.values, path.key(key));
        return out;
      }
      default:
        return this.scalar(node, schema, path);
    }
  }

  /** A list item or map value: null there is the type's zero value, as Go decodes it. */
  private element(node: unknown, schema: Schema, path: FieldPath): unknown {
    return this.value(node, schema, path) ?? zeroOf(schema);
  }

  object(node: unknown, schema: ObjectSchema, path: FieldPath | undefined): Record<string, unknown> | undefined {
    if (!isMap(node)) return path ? this.wrongType(node, path, 'expected an object') : undefined;
    const out: Record<string, unknown> = {};
    for (const { key: name, value: valueNode } of this.lastOfEach(node.items, path, (name) => child(path, name))) {
      const fieldPath = child(path, name);
      const fieldSchema = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
      if (!fieldSchema) {
        this.problems.push(new UnknownField(fieldPath.toString()));
        continue;
      }
      const value = this.value(valueNode, fieldSchema, fieldPath);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }

  /**
   * A mapping's pairs to decode: each key's last one, as Go's YAML reader keeps it before any field
   * is decoded, so an earlier value is neither used nor checked. Every repetition is a DuplicateField
   * (strict decoding's error, lenient decoding's warning), reported in document order as the pairs
   * are taken.
   */
  private *lastOfEach(items: readonly Pair[], path: FieldPath | undefined, pathOf: (key: string) => FieldPath): Generator<{ key: string; value: unknown }> {
    const keyed = items.map((pair) => ({ key: this.keyOf(pair.key, path), value: pair.value }));
    const last = new Map<string, number>();
    keyed.forEach(({ key }, i) => key !== undefined && last.set(key, i));
    const seen = new Set<string>();
    for (const [i, { key, value }] of keyed.entries()) {
      if (key === undefined) continue;
      if (seen.has(key)) this.problems.push(new DuplicateField(pathOf(key).toString()));
      seen.add(key);
      if (last.get(key) === i) yield { key, value };
    }
  }

  private keyOf(keyNode: unknown, path: FieldPath | undefined): string | undefined {
    const key = this.deref(keyNode);
    if (isScalar(key) && (typeof key.value === 'string' || typeof key.value === 'number' || typeof key.value === 'boolean')) return String(key.value);
    this.problems.push(new SyntaxProblem(`${path ? `${path.toString()}: ` : ''}a mapping key must be a string`));
    return undefined;
  }

  private scalar(node: unknown, schema: Schema, path: FieldPath): unknown {
    if (!isScalar(node)) return this.wrongType(node, path, `expected ${describe(schema)}`);
    const value = node.value;
    switch (schema.kind) {
      case 'string':
        return typeof value === 'string' ? value : this.wrongType(node, path, 'expected a string');
      case 'quantity':
        if (typeof value === 'number' && Number.isFinite(value)) return String(value);
        return typeof value === 'string' ? value : this.wrongType(node, path, 'expected a quantity such as "10Mi"');
      case 'bool':
        return typeof value === 'boolean' ? value : this.wrongType(node, path, 'expected a boolean (true or false)');
      case 'float':
        return typeof value === 'number' ? value : this.wrongType(node, path, 'expected a number');
      case 'int': {
        if (typeof value !== 'number' || !Number.isInteger(value)) return this.wrongType(node, path, `expected an integer (${schema.type})`);
        const [min, max] = intRange[schema.type];
        if (value < min || value > max) return this.wrongType(node, path, `out of range for ${schema.type} (${min} to ${max})`);
        return value;
      }
      case 'duration':
        if (typeof value !== 'string') return this.wrongType(node, path, 'expected a duration string such as "1m30s"');
        return this.duration(value, path);
      case 'timeOrMetaDuration': {
        if (typeof value === 'number' && Number.isInteger(value)) return { durationMs: value / 1e6, serializeAsString: false };
        if (typeof value !== 'string') return this.wrongType(node, path, 'expected a duration string or integer nanoseconds');
        const ms = this.duration(value, path);
        return ms === undefined ? undefined : { durationMs: ms, serializeAsString: true };
      }
      default:
        return this.wrongType(node, path, `expected ${describe(schema)}`);
    }
  }

  private duration(text: string, path: FieldPath): number | undefined {
    try {
      return parseDuration(text);
    } catch (error) {
      this.problems.push(invalid(path, text, (error as Error).message));
      return undefined;
    }
  }

  private wrongType(node: unknown, path: FieldPath, detail: string): undefined {
    const shown = isScalar(node) ? node.value : isMap(node) ? 'a mapping' : isSeq(node) ? 'a list' : String(node);
    this.problems.push(invalid(path, shown, detail));
    return undefined;
  }
}

function describe(schema: Schema): string {
  switch (schema.kind) {
    case 'object':
      return 'an object';
    case 'list':
      return 'a list';
    case 'map':
      return 'a mapping';
    case 'int':
      return `an integer (${schema.type})`;
    case 'bool':
      return 'a boolean';
    case 'float':
      return 'a number';
    default:
      return 'a string';
  }
}

function zeroOf(schema: Schema): unknown {
  switch (schema.kind) {
    case 'string':
    case 'quantity':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'float':
    case 'duration':
      return 0;
    case 'timeOrMetaDuration':
      return { durationMs: 0, serializeAsString: true };
    case 'list':
      return [];
    default:
      return {};
  }
}
