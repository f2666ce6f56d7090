// The Protobuf form of /openapi/v2: the Swagger document as gnostic's openapi.v2.Document
// (github.com/google/gnostic openapiv2/OpenAPIv2.proto), which kube-openapi serves and client-go's
// OpenAPISchema() reads (kubectl explain and kubectl's client-side validation load it first).
// Field numbers below are that file's. Vendor extensions, defaults and enums are openapi.v2.Any
// values carried as YAML text, as gnostic's compiler stores them; JSON is YAML, so JSON text is used.

/** Protobuf wire encoding of one message: fields are appended in the order written, into one growing buffer. */
class Writer {
  private buffer = Buffer.allocUnsafe(64);
  private length = 0;

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A non-negative integer up to 2^53 as a varint. */
  private varint(value: number): void {
    this.reserve(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length++] = rest;
  }

  /** An int64 as a varint: a negative one is 10 bytes of two's complement. */
  private varint64(value: number): void {
    if (value >= 0 && Number.isSafeInteger(value)) return this.varint(value);
    let rest = BigInt.asUintN(64, BigInt(value));
    this.reserve(10);
    do {
      let byte = Number(rest & 0x7fn);
      rest >>= 7n;
      if (rest) byte |= 0x80;
      this.buffer[this.length++] = byte;
    } while (rest);
  }

  /** proto3: an empty string is the default and is not written. */
  string(field: number, value: unknown): void {
    if (typeof value !== 'string' || value === '') return;
    this.text(field, value);
  }

  strings(field: number, values: unknown): void {
    for (const value of (values as unknown[] | undefined) ?? []) this.text(field, String(value));
  }

  /** A string field, its UTF-8 written in place. */
  private text(field: number, value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.tag(field, 2);
    this.varint(length);
    this.reserve(length);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  /** `always` for a bool inside a oneof, which has presence even when false. */
  bool(field: number, value: unknown, always = false): void {
    if (typeof value !== 'boolean' || (!value && !always)) return;
    this.tag(field, 0);
    this.varint(value ? 1 : 0);
  }

  int64(field: number, value: unknown): void {
    if (typeof value !== 'number' || value === 0) return;
    this.tag(field, 0);
    this.varint64(Math.trunc(value));
  }

  double(field: number, value: unknown): void {
    if (typeof value !== 'number' || value === 0) return;
    this.tag(field, 1);
    this.reserve(8);
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  /** A nested message, written even when empty (presence). */
  message(field: number, build: (writer: Writer) => void): void {
    const nested = new Writer();
    build(nested);
    this.bytes(field, nested.buffer.subarray(0, nested.length));
  }

  /** A message already encoded (its fields' bytes), as field `field`. */
  encoded(field: number, value: Buffer): void {
    this.bytes(field, value);
  }

  private bytes(field: number, value: Buffer): void {
    this.tag(field, 2);
    this.varint(value.length);
    this.reserve(value.length);
    value.copy(this.buffer, this.length);
    this.length += value.length;
  }

  finish(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const entries = (value: unknown): [string, unknown][] => (isObject(value) ? Object.entries(value) : []);

/** The keys a message knows; anything else would be lost, so it is an error to meet one. */
function known(object: Json, where: string, keys: readonly string[]): void {
  for (const key of Object.keys(object)) {
    if (!key.startsWith('x-') && !keys.includes(key)) throw new Error(`openapi v2 protobuf: ${where} has no field for ${key}`);
  }
}

/** openapi.v2.Any: the value as YAML text. */
function any(writer: Writer, field: number, value: unknown): void {
  writer.message(field, (w) => w.string(2, `${JSON.stringify(value)}\n`));
}

/** repeated NamedAny vendor_extension: the x- keys of an object. */
function vendorExtensions(writer: Writer, field: number, object: Json): void {
  for (const [name, value] of Object.entries(object)) {
    if (!name.startsWith('x-')) continue;
    writer.message(field, (w) => {
      w.string(1, name);
      any(w, 2, value);
    });
  }
}

const SCHEMA_KEYS = [
  '$ref', 'format', 'title', 'description', 'default', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'enum',
  'additionalProperties', 'type', 'items', 'allOf', 'properties', 'discriminator', 'readOnly', 'example',
] as const;

function schema(w: Writer, s: Json): void {
  known(s, 'a schema', SCHEMA_KEYS);
  w.string(1, s.$ref);
  w.string(2, s.format);
  w.string(3, s.title);
  w.string(4, s.description);
  if (s.default !== undefined) any(w, 5, s.default);
  w.double(6, s.multipleOf);
  w.double(7, s.maximum);
  w.bool(8, s.exclusiveMaximum);
  w.double(9, s.minimum);
  w.bool(10, s.exclusiveMinimum);
  w.int64(11, s.maxLength);
  w.int64(12, s.minLength);
  w.string(13, s.pattern);
  w.int64(14, s.maxItems);
  w.int64(15, s.minItems);
  w.bool(16, s.uniqueItems);
  w.int64(17, s.maxProperties);
  w.int64(18, s.minProperties);
  w.strings(19, s.required);
  for (const value of (s.enum as unknown[] | undefined) ?? []) any(w, 20, value);
  const additional = s.additionalProperties;
  if (isObject(additional)) w.message(21, (a) => a.message(1, (inner) => schema(inner, additional)));
  else if (typeof additional === 'boolean') w.message(21, (a) => a.bool(2, additional, true));
  if (s.type !== undefined) w.message(22, (t) => t.strings(1, Array.isArray(s.type) ? s.type : [s.type]));
  const items = s.items;
  if (items !== undefined) {
    w.message(23, (list) => {
      for (const item of Array.isArray(items) ? items : [items]) list.message(1, (inner) => schema(inner, item as Json));
    });
  }
  for (const branch of (s.allOf as Json[] | undefined) ?? []) w.message(24, (inner) => schema(inner, branch));
  if (s.properties !== undefined) {
    w.message(25, (p) => {
      for (const [name, value] of entries(s.properties)) {
        p.message(1, (named) => {
          named.string(1, name);
          named.message(2, (inner) => schema(inner, value as Json));
        });
      }
    });
  }
  w.string(26, s.discriminator);
  w.bool(27, s.readOnly);
  if (s.example !== undefined) any(w, 30, s.example);
  vendorExtensions(w, 31, s);
}

const PARAMETER_KEYS = ['name', 'in', 'description', 'required', 'schema', 'type', 'format', 'uniqueItems', 'allowEmptyValue'] as const;

/** A non-body parameter (query or path here); the two messages differ by allow_empty_value. */
function nonBodyParameter(w: Writer, p: Json): void {
  const query = p.in === 'query';
  const offset = query ? 1 : 0;
  w.bool(1, p.required);
  w.string(2, p.in);
  w.string(3, p.description);
  w.string(4, p.name);
  if (query) w.bool(5, p.allowEmptyValue);
  w.string(5 + offset, p.type);
  w.string(6 + offset, p.format);
  w.bool(19 + offset, p.uniqueItems);
  vendorExtensions(w, 22 + offset, p);
}

function parameter(w: Writer, p: Json): void {
  known(p, `the parameter ${String(p.name)}`, PARAMETER_KEYS);
  if (p.$ref !== undefined) throw new Error('openapi v2 protobuf: parameter references are not used here');
  w.message(1, (parameterMessage) => {
    if (p.in === 'body') {
      parameterMessage.message(1, (body) => {
        body.string(1, p.description);
        body.string(2, p.name);
        body.string(3, p.in);
        body.bool(4, p.required);
        if (isObject(p.schema)) body.message(5, (inner) => schema(inner, p.schema as Json));
        vendorExtensions(body, 6, p);
      });
    } else if (p.in === 'query' || p.in === 'path') {
      parameterMessage.message(2, (nonBody) => nonBody.message(p.in === 'query' ? 3 : 4, (inner) => nonBodyParameter(inner, p)));
    } else {
      throw new Error(`openapi v2 protobuf: parameters in ${String(p.in)} are not used here`);
    }
  });
}

const OPERATION_KEYS = [
  'tags', 'summary', 'description', 'operationId', 'produces', 'consumes', 'parameters', 'responses', 'schemes', 'deprecated',
] as const;

function operation(w: Writer, o: Json): void {
  known(o, `the operation ${String(o.operationId)}`, OPERATION_KEYS);
  w.strings(1, o.tags);
  w.string(2, o.summary);
  w.string(3, o.description);
  w.string(5, o.operationId);
  w.strings(6, o.produces);
  w.strings(7, o.consumes);
  for (const p of (o.parameters as Json[] | undefined) ?? []) w.message(8, (item) => parameter(item, p));
  w.message(9, (responses) => {
    for (const [code, response] of entries(o.responses)) {
      responses.message(1, (named) => {
        named.string(1, code);
        named.message(2, (value) =>
          value.message(1, (r) => {
            const body = response as Json;
            known(body, `a response of ${String(o.operationId)}`, ['description', 'schema']);
            r.string(1, body.description);
            if (isObject(body.schema)) r.message(2, (item) => item.message(1, (inner) => schema(inner, body.schema as Json)));
            vendorExtensions(r, 5, body);
          }),
        );
      });
    }
  });
  w.strings(10, o.schemes);
  w.bool(11, o.deprecated);
  vendorExtensions(w, 13, o);
}

const PATH_ITEM_FIELDS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(w: Writer, item: Json): void {
  known(item, 'a path item', [...Object.keys(PATH_ITEM_FIELDS), 'parameters']);
  for (const [method, field] of Object.entries(PATH_ITEM_FIELDS)) {
    if (isObject(item[method])) w.message(field, (inner) => operation(inner, item[method] as Json));
  }
  for (const p of (item.parameters as Json[] | undefined) ?? []) w.message(9, (inner) => parameter(inner, p));
  vendorExtensions(w, 10, item);
}

/** One entry of Paths' path (a NamedPathItem), encoded: what the document's field repeats per path. */
export function namedPathItem(path: string, item: Json): Buffer {
  const w = new Writer();
  w.string(1, path);
  w.message(2, (inner) => pathItem(inner, item));
  return w.finish();
}

/** One entry of Definitions' additional_properties (a NamedSchema), encoded. */
export function namedSchema(name: string, value: Json): Buffer {
  const w = new Writer();
  w.string(1, name);
  w.message(2, (inner) => schema(inner, value));
  return w.finish();
}

/** The Swagger 2.0 document (as documents.ts builds it) as an openapi.v2.Document. */
export function swaggerToProtobuf(document: Json): Buffer {
  const paths = entries(document.paths)
    .filter(([path]) => !path.startsWith('x-'))
    .map(([path, item]) => namedPathItem(path, item as Json));
  const definitions = entries(document.definitions).map(([name, value]) => namedSchema(name, value as Json));
  return swaggerDocumentToProtobuf(document, paths, definitions);
}

/**
 * The document as an openapi.v2.Document, its paths and definitions given as encoded entries (in
 * the document's order) rather than read from it: entries can then be encoded once and kept.
 */
export function swaggerDocumentToProtobuf(document: Json, paths: readonly Buffer[], definitions: readonly Buffer[]): Buffer {
  known(document, 'the document', ['swagger', 'info', 'paths', 'definitions', 'securityDefinitions', 'security', 'consumes', 'produces', 'schemes']);
  const w = new Writer();
  w.string(1, document.swagger);
  if (isObject(document.info)) {
    const info = document.info;
    w.message(2, (i) => {
      known(info, 'info', ['title', 'version', 'description']);
      i.string(1, info.title);
      i.string(2, info.version);
      i.string(3, info.description);
      vendorExtensions(i, 7, info);
    });
  }
  w.strings(5, document.schemes);
  w.strings(6, document.consumes);
  w.strings(7, document.produces);
  w.message(8, (out) => {
    vendorExtensions(out, 1, (document.paths ?? {}) as Json);
    for (const entry of paths) out.encoded(2, entry);
  });
  w.message(9, (out) => {
    for (const entry of definitions) out.encoded(1, entry);
  });
  for (const requirement of (document.security as Json[] | undefined) ?? []) {
    w.message(12, (r) => {
      for (const [name, scopes] of Object.entries(requirement)) {
        r.message(1, (named) => {
          named.string(1, name);
          named.message(2, (array) => array.strings(1, scopes));
        });
      }
    });
  }
  if (isObject(document.securityDefinitions)) {
    w.message(13, (definitions) => {
      for (const [name, value] of entries(document.securityDefinitions)) {
        const security = value as Json;
        if (security.type !== 'apiKey') {
          throw new Error(`openapi v2 protobuf: security definitions of type ${String(security.type)} are not used here`);
        }
        definitions.message(1, (named) => {
          named.string(1, name);
          named.message(2, (item) =>
            item.message(2, (apiKey) => {
              apiKey.string(1, security.type);
              apiKey.string(2, security.name);
              apiKey.string(3, security.in);
              apiKey.string(4, security.description);
              vendorExtensions(apiKey, 5, security);
            }),
          );
        });
      }
    });
  }
  vendorExtensions(w, 16, document);
  return w.finish();
}
