// The OpenAPI documents kept in parts, so that a change of the catalog costs what changed rather
// than the whole: the built-in kinds' part of /openapi/v2 is built once, each custom resource's
// once per version of its definition, each group version's v3 document once per set of its
// resources; a document is then put together from their entries, kept as JSON text (and, for
// /openapi/v2, Protobuf bytes, encoded when first asked for). Building yields to the event loop
// every few milliseconds, so that the first request after 500 definitions stalls no other.
//
// What is put together is what buildOpenAPIDocuments builds from the same resources, byte for byte
// (document-parts.test.ts): entries sorted by key; a custom resource's kind and list replace any
// entry of their names, other schemas (ObjectMeta, Status...) are the first given; DeleteOptions
// names every served group version, so it alone is made anew when they change.
import type { JSONSchema, ResolvedResource } from '@plat/registry';
import {
  DocumentPartBuilder,
  customDefinitionNames,
  deleteOptionsDefinition,
  deleteOptionsName,
  documentFrame,
  groupVersionsOf,
  v3Kind,
  type DocumentKind,
  type DocumentOptions,
} from './documents.js';
import { groupVersionPath } from './names.js';
import { namedPathItem, namedSchema, swaggerDocumentToProtobuf } from './protobuf-v2.js';

/** One path item or schema of a document: `"key":<JSON>` as the document holds it (UTF-8), and its Protobuf entry once encoded. */
interface Entry {
  readonly keyed: Buffer;
  protobuf?: Buffer;
}

/** What some resources put in a document: its entries by path and by schema name. */
interface Part {
  readonly paths: ReadonlyMap<string, Entry>;
  readonly definitions: ReadonlyMap<string, Entry>;
}

const entryOf = (key: string, value: JSONSchema): Entry => ({ keyed: Buffer.from(`${JSON.stringify(key)}:${JSON.stringify(value)}`) });

const toEntries = (values: Iterable<[string, JSONSchema]>): Map<string, Entry> =>
  new Map([...values].map(([key, value]): [string, Entry] => [key, entryOf(key, value)]));

/** Whether two lists hold the same resources, in the same order. */
const sameResources = (a: readonly ResolvedResource[], b: readonly ResolvedResource[]): boolean =>
  a.length === b.length && a.every((resolved, i) => resolved === b[i]);

/** The entries by key, in the documents' order (JavaScript's string order, as byKey in documents.ts). */
function sortedEntries(entries: ReadonlyMap<string, Entry>): [string, Entry][] {
  return [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

// Stand-ins for the paths and the schemas in a document's frame, replaced by their entries.
const PATHS = '\u0000paths';
const SCHEMAS = '\u0000schemas';
const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');

/** The document's JSON: its frame around its entries, sorted by key, copied once into one buffer. */
function documentBytes(kind: DocumentKind, options: DocumentOptions, paths: ReadonlyMap<string, Entry>, definitions: ReadonlyMap<string, Entry>): Buffer {
  const standIn = (text: string) => text as unknown as Record<string, JSONSchema>;
  const frame = JSON.stringify(documentFrame(kind, options, standIn(PATHS), standIn(SCHEMAS)));
  const [head, rest] = frame.split(JSON.stringify(PATHS)) as [string, string];
  const [middle, tail] = rest.split(JSON.stringify(SCHEMAS)) as [string, string];
  const pieces: Buffer[] = [Buffer.from(head)];
  const object = (entries: ReadonlyMap<string, Entry>): void => {
    pieces.push(OPEN);
    sortedEntries(entries).forEach(([, entry], i) => {
      if (i) pieces.push(COMMA);
      pieces.push(entry.keyed);
    });
    pieces.push(CLOSE);
  };
  object(paths);
  pieces.push(Buffer.from(middle));
  object(definitions);
  pieces.push(Buffer.from(tail));
  return Buffer.concat(pieces);
}

/** An entry's Protobuf form, encoded once. */
function protobufOf(key: string, entry: Entry, encode: (key: string, value: JSONSchema) => Buffer): Buffer {
  entry.protobuf ??= encode(key, (JSON.parse(`{${entry.keyed.toString()}}`) as Record<string, JSONSchema>)[key]!);
  return entry.protobuf;
}

/** Gives the event loop a turn when this much time has gone on building without one. */
const SLICE_MS = 10;

class Slicer {
  private since = performance.now();
  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** The Swagger document of some resources: its JSON, and its Protobuf form when asked for. */
export interface SwaggerDocument {
  readonly json: Buffer;
  protobuf(): Promise<Buffer>;
}

interface GroupVersionCache {
  resources: readonly ResolvedResource[];
  part: Part;
  /** The document, and the DeleteOptions it was put together with. */
  document?: { deleteOptions: Entry; json: Buffer };
}

export class DocumentParts {
  /** The built-in kinds' part of /openapi/v2, and the resources it was built from. */
  private builtIn: { resources: readonly ResolvedResource[]; part: Part } | undefined;
  private readonly custom = new WeakMap<ResolvedResource, Part>();
  /** Each group version's v3 part, by its key in the /openapi/v3 index. */
  private readonly groupVersions = new Map<string, GroupVersionCache>();
  /** DeleteOptions by dialect, for the group versions named in `key`. */
  private readonly deleteOptions = new Map<'v2' | 'v3', { key: string; entry: Entry }>();

  constructor(private readonly options: DocumentOptions) {}

  /** /openapi/v2 for `resources` (the catalog's, in its order). */
  async swagger(resources: readonly ResolvedResource[]): Promise<SwaggerDocument> {
    const slicer = new Slicer();
    const builtIn = resources.filter((resolved) => !resolved.definition.unstructured);
    if (!this.builtIn || !sameResources(this.builtIn.resources, builtIn)) {
      this.builtIn = { resources: builtIn, part: await this.part(builtIn, 'v2', slicer) };
    }
    const paths = new Map(this.builtIn.part.paths);
    const definitions = new Map(this.builtIn.part.definitions);
    for (const resolved of resources) {
      if (!resolved.definition.unstructured) continue;
      let part = this.custom.get(resolved);
      if (!part) {
        part = await this.part([resolved], 'v2', slicer);
        this.custom.set(resolved, part);
      }
      for (const [path, entry] of part.paths) paths.set(path, entry);
      const own = new Set(customDefinitionNames(resolved));
      for (const [name, entry] of part.definitions) if (own.has(name) || !definitions.has(name)) definitions.set(name, entry);
    }
    const name = deleteOptionsName(this.options);
    if (definitions.has(name)) definitions.set(name, this.deleteOptionsEntry('v2', resources));
    await slicer.maybeYield();
    const json = documentBytes('v2', this.options, paths, definitions);
    const encoded = async (entries: ReadonlyMap<string, Entry>, encode: (key: string, value: JSONSchema) => Buffer, slicer: Slicer): Promise<Buffer[]> => {
      const out: Buffer[] = [];
      for (const [key, entry] of sortedEntries(entries)) {
        out.push(protobufOf(key, entry, encode));
        await slicer.maybeYield();
      }
      return out;
    };
    return {
      json,
      protobuf: async () => {
        const slicer = new Slicer();
        const pathEntries = await encoded(paths, namedPathItem, slicer);
        const definitionEntries = await encoded(definitions, namedSchema, slicer);
        return swaggerDocumentToProtobuf(documentFrame('v2', this.options), pathEntries, definitionEntries);
      },
    };
  }

  /**
   * The v3 document of each group version of `resources`, by its key in the /openapi/v3 index. A
   * group version whose resources and DeleteOptions are as before gets the same bytes (the same Buffer).
   */
  async groupVersionDocuments(resources: readonly ResolvedResource[]): Promise<Map<string, Buffer>> {
    const slicer = new Slicer();
    const byGroupVersion = new Map<string, ResolvedResource[]>();
    for (const resolved of resources) {
      const key = groupVersionPath(resolved.group, resolved.version);
      const list = byGroupVersion.get(key);
      if (list) list.push(resolved);
      else byGroupVersion.set(key, [resolved]);
    }
    for (const key of this.groupVersions.keys()) if (!byGroupVersion.has(key)) this.groupVersions.delete(key);
    const deleteOptions = this.deleteOptionsEntry('v3', resources);
    const name = deleteOptionsName(this.options);
    const documents = new Map<string, Buffer>();
    for (const [key, members] of byGroupVersion) {
      let cached = this.groupVersions.get(key);
      if (!cached || !sameResources(cached.resources, members)) {
        cached = { resources: members, part: await this.part(members, 'v3', slicer) };
        this.groupVersions.set(key, cached);
      }
      if (cached.document?.deleteOptions !== deleteOptions) {
        const definitions = new Map(cached.part.definitions);
        if (definitions.has(name)) definitions.set(name, deleteOptions);
        cached.document = { deleteOptions, json: documentBytes(v3Kind(members), this.options, cached.part.paths, definitions) };
        await slicer.maybeYield();
      }
      documents.set(key, cached.document.json);
    }
    return documents;
  }

  /** The part of `resources`, built a resource at a time with turns for the event loop between. */
  private async part(resources: readonly ResolvedResource[], dialect: 'v2' | 'v3', slicer: Slicer): Promise<Part> {
    const builder = new DocumentPartBuilder(dialect, this.options);
    for (const resolved of resources) {
      builder.add(resolved);
      await slicer.maybeYield();
    }
    const built = builder.part();
    return { paths: toEntries(built.paths), definitions: toEntries(Object.entries(built.definitions)) };
  }

  /** DeleteOptions naming every group version of `resources`; the same entry while they are the same. */
  private deleteOptionsEntry(dialect: 'v2' | 'v3', resources: readonly ResolvedResource[]): Entry {
    const groupVersions = groupVersionsOf(resources);
    const key = groupVersions.map(({ group, version }) => `${group}/${version}`).join(',');
    const cached = this.deleteOptions.get(dialect);
    if (cached?.key === key) return cached.entry;
    const entry = entryOf(deleteOptionsName(this.options), deleteOptionsDefinition(dialect, this.options, groupVersions));
    this.deleteOptions.set(dialect, { key, entry });
    return entry;
  }
}
