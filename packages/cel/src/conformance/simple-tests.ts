// cel-spec's "simple" conformance tests (proto/test/v1/simple.proto) read from their text format:
// each test's expression, the declarations and bindings it runs with, and what it must produce.
import { BoolType, BytesType, DoubleType, DurationType, DynType, IntType, NullType, StringType, TimestampType, UintType, listOf, mapOf, typeOf, type CelType } from '../types.js';
import { ArrayList, Duration, LiteralMap, Timestamp, TypeValue, UInt, type Value } from '../values.js';
import { parseTextProto, type TextMessage, type TextValue } from './textproto.js';

/** What a test must produce: a value, an error (any: upstream's runner does not compare messages), or true. */
export type Expectation = { readonly kind: 'value'; readonly value: Value } | { readonly kind: 'error' } | { readonly kind: 'unknown' };

export interface SimpleTest {
  /** `file/section/name`, with `#2`, `#3`... on a name repeated within its section. */
  readonly id: string;
  readonly expr: string;
  readonly disableCheck: boolean;
  readonly disableMacros: boolean;
  readonly container: string;
  readonly declarations: ReadonlyMap<string, CelType>;
  readonly bindings: Readonly<Record<string, Value>>;
  readonly expected: Expectation;
}

/** A test whose declarations or data this implementation cannot even represent (a protobuf message). */
export interface UnrepresentableTest {
  readonly id: string;
  readonly expr: string;
  readonly unrepresentable: string;
}

export class Unrepresentable extends Error {}

const NANOS = 1_000_000_000n;

function tokenOf(v: TextValue | undefined, what: string): string {
  if (v?.kind === 'number' || v?.kind === 'identifier') return v.text;
  throw new Error(`${what}: expected a number or identifier`);
}

const textOf = (v: TextValue | undefined): string => (v?.kind === 'string' ? new TextDecoder().decode(v.bytes) : '');

function doubleOf(text: string): number {
  const t = text.toLowerCase();
  if (t === 'inf' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (t === 'nan' || t === '-nan') return NaN;
  // A float literal may carry an f suffix (1.5f).
  return Number(/^[-+.0-9]/.test(t) ? t.replace(/f$/, '') : t);
}

const primitives: Record<string, CelType> = {
  BOOL: BoolType,
  INT64: IntType,
  UINT64: UintType,
  DOUBLE: DoubleType,
  STRING: StringType,
  BYTES: BytesType,
};

/** A checked.proto Type as ours. */
export function typeFromProto(t: TextMessage): CelType {
  const primitive = t.token('primitive');
  if (primitive !== undefined) {
    const type = primitives[primitive];
    if (!type) throw new Unrepresentable(`primitive type ${primitive}`);
    return type;
  }
  const wellKnown = t.token('well_known');
  if (wellKnown === 'TIMESTAMP') return TimestampType;
  if (wellKnown === 'DURATION') return DurationType;
  if (wellKnown !== undefined) throw new Unrepresentable(`well-known type ${wellKnown}`);
  if (t.has('dyn')) return DynType;
  if (t.has('null')) return NullType;
  const list = t.message('list_type');
  if (list) return listOf(typeFromProto(list.message('elem_type')!));
  const map = t.message('map_type');
  if (map) return mapOf(typeFromProto(map.message('key_type')!), typeFromProto(map.message('value_type')!));
  const type = t.message('type');
  if (type) return typeOf(typeFromProto(type));
  const message = t.string('message_type');
  // The two well-known messages that are CEL types of their own.
  if (message === 'google.protobuf.Timestamp') return TimestampType;
  if (message === 'google.protobuf.Duration') return DurationType;
  if (message !== undefined) throw new Unrepresentable(`protobuf message ${message}`);
  if (t.has('wrapper')) throw new Unrepresentable(`protobuf wrapper of ${t.token('wrapper')}`);
  throw new Unrepresentable(`type ${[...t.fields.keys()].join(', ')}`);
}

/** A value.proto Value as ours. */
export function valueFromProto(v: TextMessage): Value {
  const [field, values] = [...v.fields][0] ?? [];
  const one = values?.[values.length - 1];
  switch (field) {
    case 'null_value':
      return null;
    case 'bool_value':
      return tokenOf(one, field) === 'true';
    case 'int64_value':
      return BigInt(tokenOf(one, field));
    case 'uint64_value':
      return new UInt(BigInt(tokenOf(one, field)));
    case 'double_value':
      return doubleOf(tokenOf(one, field));
    case 'string_value': {
      if (one?.kind !== 'string') throw new Error('string_value: expected a string');
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(one.bytes);
      } catch {
        throw new Unrepresentable('a string that is not UTF-8');
      }
    }
    case 'bytes_value':
      if (one?.kind !== 'string') throw new Error('bytes_value: expected a string');
      return one.bytes;
    case 'type_value':
      return new TypeValue(textOf(one));
    case 'list_value':
      return new ArrayList(v.message('list_value')!.messages('values').map(valueFromProto));
    case 'map_value':
      return new LiteralMap(
        v
          .message('map_value')!
          .messages('entries')
          .map((e) => [valueFromProto(e.message('key')!), valueFromProto(e.message('value')!)] as const),
      );
    case 'object_value':
      return objectFromProto(v.message('object_value')!);
    case 'enum_value':
      throw new Unrepresentable('a protobuf enum value');
    default:
      throw new Unrepresentable(`value ${field ?? '(empty)'}`);
  }
}

/** An Any: of the well-known messages, only Timestamp and Duration are values here. */
function objectFromProto(any: TextMessage): Value {
  const [url] = [...any.fields.keys()];
  const body = url ? any.message(url) : undefined;
  const seconds = BigInt(body?.token('seconds') ?? '0');
  const nanos = BigInt(body?.token('nanos') ?? '0');
  if (url === '[type.googleapis.com/google.protobuf.Timestamp]') return new Timestamp(seconds * NANOS + nanos);
  if (url === '[type.googleapis.com/google.protobuf.Duration]') return new Duration(seconds * NANOS + nanos);
  throw new Unrepresentable(`protobuf message ${url ?? '(none)'}`);
}

function expectationOf(t: TextMessage): Expectation {
  const value = t.message('value');
  if (value) return { kind: 'value', value: valueFromProto(value) };
  if (t.has('eval_error') || t.has('any_eval_errors')) return { kind: 'error' };
  if (t.has('unknown') || t.has('any_unknowns')) return { kind: 'unknown' };
  return { kind: 'value', value: true };
}

function testOf(id: string, t: TextMessage): SimpleTest | UnrepresentableTest {
  const expr = t.string('expr') ?? '';
  try {
    const declarations = new Map<string, CelType>();
    for (const decl of t.messages('type_env')) {
      const ident = decl.message('ident');
      if (!ident) throw new Unrepresentable('a function declaration');
      declarations.set(decl.string('name')!, typeFromProto(ident.message('type')!));
    }
    const bindings: Record<string, Value> = {};
    for (const entry of t.messages('bindings')) {
      const value = entry.message('value')?.message('value');
      if (!value) throw new Unrepresentable('a binding that is not a value');
      bindings[entry.string('key')!] = valueFromProto(value);
    }
    return {
      id,
      expr,
      disableCheck: t.flag('disable_check'),
      disableMacros: t.flag('disable_macros'),
      container: t.string('container') ?? '',
      declarations,
      bindings,
      expected: expectationOf(t),
    };
  } catch (error) {
    if (error instanceof Unrepresentable) return { id, expr, unrepresentable: error.message };
    throw error;
  }
}

/** The tests of one SimpleTestFile, with ids under `fileName`. */
export function readSimpleTests(fileName: string, text: string): (SimpleTest | UnrepresentableTest)[] {
  const file = parseTextProto(text);
  const tests: (SimpleTest | UnrepresentableTest)[] = [];
  for (const section of file.messages('section')) {
    const sectionName = section.string('name') ?? '';
    const seen = new Map<string, number>();
    for (const t of section.messages('test')) {
      const name = t.string('name') ?? '';
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      tests.push(testOf(`${fileName}/${sectionName}/${name}${n > 1 ? `#${n}` : ''}`, t));
    }
  }
  return tests;
}
