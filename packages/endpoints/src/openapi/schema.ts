// A kind's validation schema (JSON Schema 2020-12 with x-kubernetes-* markers) in the dialect of
// an OpenAPI document: Swagger 2.0 `definitions` or OpenAPI 3.0 `components.schemas`. Sub-schemas
// given a name are published once and referenced; everything else stays inline.
import type { JSONSchema } from '@plat/registry';

export type Dialect = 'v2' | 'v3';

/** Keywords copied as they are: both dialects mean the same by them. */
const COPIED = new Set([
  'description',
  'title',
  'format',
  'enum',
  'default',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
]);

const isObject = (value: unknown): value is JSONSchema => value !== null && typeof value === 'object' && !Array.isArray(value);

const clone = <T>(value: T): T => structuredClone(value);

/**
 * The published schemas of one document, by name. `name()` marks a validation sub-schema (by
 * identity) as shared; converting a schema that contains it then publishes it once and refers to it.
 */
export class SchemaSet {
  private readonly published = new Map<string, JSONSchema>();
  private readonly names = new Map<JSONSchema, string>();
  private readonly sources = new Map<string, JSONSchema>();
  private readonly extras = new Map<string, JSONSchema>();

  constructor(readonly dialect: Dialect) {}

  /** The reference to a published schema. */
  ref(name: string): JSONSchema {
    return { $ref: `${this.dialect === 'v2' ? '#/definitions/' : '#/components/schemas/'}${name}` };
  }

  /**
   * Publishes `schema` under `name` wherever it appears. A name already given to a different schema
   * is not taken again: that schema stays inline, so what is published is still what is validated.
   */
  name(schema: JSONSchema, name: string): boolean {
    const taken = this.sources.get(name);
    if (taken && taken !== schema && JSON.stringify(taken) !== JSON.stringify(schema)) return false;
    if (!taken) this.sources.set(name, schema);
    this.names.set(schema, name);
    return true;
  }

  /** Publishes `schema` under `name` now, with `extra` keywords on top (x-kubernetes-group-version-kind). */
  define(name: string, schema: JSONSchema, extra: JSONSchema = {}): JSONSchema {
    this.sources.set(name, schema);
    this.extras.set(name, extra);
    this.published.delete(name);
    return this.ensure(name);
  }

  /** Publishes a schema already in this dialect (a List, written here rather than validated). */
  definePublished(name: string, schema: JSONSchema): void {
    this.published.set(name, schema);
  }

  has(name: string): boolean {
    return this.published.has(name);
  }

  /** The published schemas, by name in order. */
  all(): Record<string, JSONSchema> {
    return Object.fromEntries([...this.published].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** The published form of an inline schema (a request body, a property). */
  convert(schema: JSONSchema): JSONSchema {
    const name = this.names.get(schema);
    if (name) {
      this.ensure(name);
      return this.ref(name);
    }
    return this.convertNode(schema);
  }

  private ensure(name: string): JSONSchema {
    const existing = this.published.get(name);
    if (existing) return existing;
    const source = this.sources.get(name);
    if (!source) throw new Error(`no schema is named ${name}`);
    // Placed before converting so that a schema containing itself refers to itself.
    const out: JSONSchema = {};
    this.published.set(name, out);
    Object.assign(out, this.convertNode(source), clone(this.extras.get(name) ?? {}));
    return out;
  }

  private convertNode(schema: JSONSchema): JSONSchema {
    const out: JSONSchema = {};
    const v3 = this.dialect === 'v3';
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword.startsWith('x-kubernetes-') || COPIED.has(keyword)) {
        out[keyword] = clone(value);
      } else if (keyword === 'type') {
        // Swagger 2.0 has no unions; upstream publishes a quantity (string or number) as a string there.
        if (!v3 && schema.format === 'quantity') out.type = 'string';
        else this.convertType(value, out);
      } else if (keyword === 'properties') {
        const properties = Object.entries(value as Record<string, JSONSchema>);
        out.properties = Object.fromEntries(properties.map(([field, child]) => [field, this.convert(child)]));
      } else if (keyword === 'items') {
        if (!isObject(value)) throw new Error('tuple items cannot be published');
        out.items = this.convert(value);
      } else if (keyword === 'additionalProperties') {
        // false is left out: how an unknown field is treated is the request's fieldValidation, not
        // the schema's (Ignore and Warn accept the object), and upstream publishes no such keyword.
        if (isObject(value)) out.additionalProperties = this.convert(value);
        else if (value === true) out.additionalProperties = true;
      } else if (keyword === 'anyOf' || keyword === 'oneOf') {
        // Swagger 2.0 has neither: the branches are dropped, as upstream does for CRDs (an
        // int-or-string keeps its x-kubernetes-int-or-string marker).
        if (v3) out[keyword] = (value as JSONSchema[]).map((branch) => this.convert(branch));
      } else if (keyword === 'allOf') {
        out.allOf = (value as JSONSchema[]).map((branch) => this.convert(branch));
      } else if (keyword === 'not') {
        if (v3) out.not = this.convert(value as JSONSchema);
      } else if (keyword === 'const') {
        out.enum = [clone(value)];
      } else if (keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum') {
        // A number in JSON Schema 2020-12, a flag beside minimum/maximum in both OpenAPI dialects.
        out[keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
        out[keyword] = true;
      } else if (keyword === 'nullable') {
        out[v3 ? 'nullable' : 'x-nullable'] = value;
      } else {
        throw new Error(`the schema keyword ${keyword} has no OpenAPI form here yet`);
      }
    }
    return out;
  }

  /** `type`: a name, or a list of them, where "null" becomes nullable and other unions anyOf (v3). */
  private convertType(value: unknown, out: JSONSchema): void {
    if (typeof value === 'string') {
      out.type = value;
      return;
    }
    const types = (value as string[]).filter((type) => type !== 'null');
    if (types.length !== (value as string[]).length) out[this.dialect === 'v3' ? 'nullable' : 'x-nullable'] = true;
    if (types.length === 1) out.type = types[0];
    else if (this.dialect === 'v3') out.anyOf = types.map((type) => ({ type }));
  }
}
