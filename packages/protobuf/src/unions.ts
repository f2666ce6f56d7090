// The union messages of apiextensions: messages of two fields, a schema and an alternative, whose
// JSON form is either shape rather than an object of their fields. Their converters are generated
// with the others (compile.ts) because they call the compiled JSONSchemaProps converter (d<s>/e<s>);
// the tags come from the .proto, the choice of shape from upstream's MarshalJSON/UnmarshalJSON.
import type protobuf from 'protobufjs';
import { APIEXTENSIONS } from './schema.js';

/**
 * - schemaOrBool (JSONSchemaPropsOrBool: allows, schema): `true`, `false`, or a schema. Go reads a
 *   schema as allows: true, and writes allows always (before the schema).
 * - schemaOrArray (JSONSchemaPropsOrArray: schema, jSONSchemas): a schema, or a list of them.
 * - schemaOrStrings (JSONSchemaPropsOrStringArray: schema, property): a schema, or a list of strings.
 * The list wins when it has members, then the schema; an empty message is null (the first two
 * read `items: []` or a `dependencies` member null so), except schemaOrBool's, which is false.
 */
export type Union = 'schemaOrBool' | 'schemaOrArray' | 'schemaOrStrings';

export const UNIONS: Record<string, Union> = {
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: 'schemaOrBool',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: 'schemaOrArray',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: 'schemaOrStrings',
};

/** The tag of a field of the union, by its name in the .proto. */
function tagOf(type: protobuf.Type, field: string, wireType: number): number {
  const found = type.fields[field];
  if (!found) throw new Error(`${type.fullName}: no field ${field}`);
  return (found.id << 3) | wireType;
}

/** Statements writing schema `m` (an object) with `tag`, naming `at` in the errors from within it. */
const writeSchema = (s: number, tag: number, m: string, at: string): string =>
  `w.uint32(${tag}).fork();
  try { e${s}(${m}, w); } catch (err) { throw within(err, ${at}); }
  w.ldelim();`;

/**
 * The decode (d<i>) and encode (e<i>) functions of union i, whose schema is compiled message s.
 * e<i>(x, w, field) takes the field's name for its errors: it checks the shape itself.
 */
export function unionSource(union: Union, type: protobuf.Type, i: number, s: number): string {
  const name = type.fullName.slice(1);
  if (union === 'schemaOrBool') {
    const allows = tagOf(type, 'allows', 0);
    const schema = tagOf(type, 'schema', 2);
    return `// ${name}
function d${i}(r, end) {
  let allows = false, schema;
  while (r.pos < end) {
    const t = r.tag();
    if (t === ${allows}) allows = r.bool();
    else if (t === ${schema}) schema = d${s}(r, bound(r, r.uint32()));
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  return schema === undefined ? allows : schema;
}
function e${i}(x, w, field) {
  if (x === null || typeof x === 'boolean') {
    w.uint32(${allows}).bool(x === true);
    return;
  }
  if (!isObject(x)) throw invalid(field, 'boolean or object', x);
  w.uint32(${allows}).bool(true);
  ${writeSchema(s, schema, 'x', 'field')}
}`;
  }
  const schema = tagOf(type, 'schema', 2);
  const strings = union === 'schemaOrStrings';
  const list = tagOf(type, strings ? 'property' : 'jSONSchemas', 2);
  const readMember = strings ? 'str(r)' : `d${s}(r, bound(r, r.uint32()))`;
  const writeMember = strings
    ? `if (typeof m !== 'string') throw invalid(at, 'string', m);
  w.uint32(${list}).string(m);`
    : `if (!isObject(m)) throw invalid(at, 'object', m);
  ${writeSchema(s, list, 'm', 'at')}`;
  return `// ${name}
function d${i}(r, end) {
  let schema = null, list;
  while (r.pos < end) {
    const t = r.tag();
    if (t === ${schema}) schema = d${s}(r, bound(r, r.uint32()));
    else if (t === ${list}) (list === undefined ? (list = []) : list).push(${readMember});
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  return list === undefined ? schema : list;
}
function e${i}(x, w, field) {
  if (x === null) return;
  if (isArray(x)) {
    for (let j = 0; j < x.length; j++) {
      const m = x[j], at = field + '[' + j + ']';
      ${writeMember.replaceAll('\n', '\n    ')}
    }
    return;
  }
  if (!isObject(x)) throw invalid(field, ${JSON.stringify(strings ? 'object or array of strings' : 'object or array of objects')}, x);
  ${writeSchema(s, schema, 'x', 'field')}
}`;
}
