// The OpenAPI documents of the served resources: one Swagger 2.0 document of everything
// (/openapi/v2) and one OpenAPI 3.0 document per group version (/openapi/v3/apis/<g>/<v>), built
// from the kinds' validation schemas so that what is published is what is validated; a custom
// resource's from its CRD schema and with its own operations, as upstream's CRD builder makes them.
import { objectMetaSchema } from '@plat/api';
import type { JSONSchema, ResolvedResource } from '@plat/registry';
import { customResourcePathItems } from './custom-operations.js';
import { customResourceListSchema, customResourceSchema } from './custom-schema.js';
import {
  deleteOptionsSchema,
  listMetaSchema,
  patchSchema,
  preconditionsSchema,
  schemaAt,
  SHARED_KIND_PARTS,
  statusCauseSchema,
  statusDetailsSchema,
  statusSchema,
} from './meta.js';
import { customKindDefinitionName, groupVersionPath, kindDefinitionName, metaDefinitionName } from './names.js';
import { resourcePathItems, type GroupVersionKind, type Operation, type Parameter, type PathItem, type SchemaName } from './operations.js';
import { SchemaSet, type Dialect } from './schema.js';

export interface DocumentOptions {
  /** --api-domain: definition names start with its reverse (io.k8s, io.plat). */
  domain: string;
  /** info.version: the Kubernetes version served. */
  version: string;
}

export interface OpenAPIDocuments {
  v2: JSONSchema;
  /** By the group version's key in the /openapi/v3 index ("api/v1", "apis/<group>/<version>"). */
  v3: Map<string, JSONSchema>;
}

/** The media types responses come in (Protobuf is not served yet). */
const PRODUCES = ['application/json', 'application/yaml'];
const WATCH_PRODUCES = ['application/json;stream=watch'];
const PATCH_CONSUMES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];
const RESPONSE_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

const gvkOf = (resolved: ResolvedResource, kind = resolved.kind): GroupVersionKind => ({ group: resolved.group, kind, version: resolved.version });

/** The published names of a resource's schemas: its kind's, its list's, and its subresources' kinds'. */
interface KindNames {
  object: string;
  list: string;
  subresources: ReadonlyMap<string, string>;
}

const byKey = <T>(entries: Iterable<[string, T]>): Record<string, T> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The schemas and path items of some resources, in one dialect. */
class DocumentBuilder {
  readonly schemas: SchemaSet;
  readonly paths = new Map<string, JSONSchema>();

  constructor(
    readonly dialect: Dialect,
    private readonly options: DocumentOptions,
    /** Every served group version: DeleteOptions may be sent to any of them. */
    private readonly allGroupVersions: readonly { group: string; version: string }[],
  ) {
    this.schemas = new SchemaSet(dialect);
    const meta = (kind: string): string => metaDefinitionName(kind, options.domain);
    this.schemas.name(listMetaSchema, meta('ListMeta'));
    this.schemas.name(statusDetailsSchema, meta('StatusDetails'));
    this.schemas.name(statusCauseSchema, meta('StatusCause'));
    this.schemas.name(preconditionsSchema, meta('Preconditions'));
  }

  add(resolved: ResolvedResource): void {
    const { domain } = this.options;
    for (const part of SHARED_KIND_PARTS) {
      const schema = schemaAt(resolved.definition.schema, part.path);
      if (schema) this.schemas.name(schema, metaDefinitionName(part.kind, domain));
    }
    if (resolved.definition.unstructured) {
      this.addCustom(resolved);
      return;
    }
    const objectName = kindDefinitionName(resolved.group, resolved.version, resolved.kind, domain);
    const listName = kindDefinitionName(resolved.group, resolved.version, resolved.listKind, domain);
    this.schemas.define(objectName, resolved.definition.schema, { 'x-kubernetes-group-version-kind': [gvkOf(resolved)] });
    this.schemas.definePublished(listName, this.listSchema(resolved, objectName));
    const names = { object: objectName, list: listName, subresources: this.subresourceKinds(resolved) };
    for (const item of resourcePathItems(resolved, domain)) this.paths.set(item.path, this.pathItem(item, resolved, names));
  }

  /** The kinds the resource's subresources are served as (scale's Scale), published, by subresource. */
  private subresourceKinds(resolved: ResolvedResource): Map<string, string> {
    return new Map([...resolved.subresourceKinds].map(([subresource, kind]) => [subresource, this.defineSubresourceKind(kind)]));
  }

  /**
   * A subresource's kind, under upstream's name (io.k8s.api.autoscaling.v1.Scale), with its spec and
   * status published apart as upstream's Go types name them (ScaleSpec, ScaleStatus).
   */
  private defineSubresourceKind(kind: ResolvedResource): string {
    const { domain } = this.options;
    const name = kindDefinitionName(kind.group, kind.version, kind.kind, domain);
    if (this.schemas.has(name)) return name;
    const { schema } = kind.definition;
    for (const part of SHARED_KIND_PARTS) {
      const shared = schemaAt(schema, part.path);
      if (shared) this.schemas.name(shared, metaDefinitionName(part.kind, domain));
    }
    for (const [field, suffix] of [['spec', 'Spec'], ['status', 'Status']] as const) {
      const part = schemaAt(schema, [field]);
      if (part) this.schemas.name(part, kindDefinitionName(kind.group, kind.version, `${kind.kind}${suffix}`, domain));
    }
    this.schemas.define(name, schema, { 'x-kubernetes-group-version-kind': [gvkOf(kind)] });
    return name;
  }

  /**
   * A custom resource: its schema is the CRD's (unstructured.openAPIV3Schema), published in the
   * document's dialect as upstream's CRD builder does, and its operations are that builder's.
   */
  private addCustom(resolved: ResolvedResource): void {
    const { group, version } = resolved;
    const objectName = customKindDefinitionName(group, version, resolved.kind);
    const listName = customKindDefinitionName(group, version, resolved.listKind);
    const objectMeta = this.objectMetaRef(resolved);
    const listMeta = this.schemas.convert(listMetaSchema);
    const { openAPIV3Schema } = resolved.definition.unstructured!;
    this.schemas.definePublished(objectName, customResourceSchema(openAPIV3Schema, this.dialect, { objectMeta }, gvkOf(resolved)));
    const listGvk = gvkOf(resolved, resolved.listKind);
    const refs = { listMeta, object: this.schemas.ref(objectName) };
    this.schemas.definePublished(listName, customResourceListSchema(this.dialect, refs, listGvk, resolved.kind, resolved.resource));
    const names = { object: objectName, list: listName, subresources: this.subresourceKinds(resolved) };
    for (const item of customResourcePathItems(resolved, this.options.domain)) this.paths.set(item.path, this.pathItem(item, resolved, names));
  }

  /**
   * The reference to ObjectMeta: the kind's metadata schema where it is the published one, else the
   * common ObjectMeta (a custom resource's metadata is always ObjectMeta, whatever its schema checks).
   */
  private objectMetaRef(resolved: ResolvedResource): JSONSchema {
    const own = schemaAt(resolved.definition.schema, ['metadata']);
    const converted = own && this.schemas.convert(own);
    if (converted && typeof converted.$ref === 'string') return converted;
    for (const part of SHARED_KIND_PARTS) {
      const schema = schemaAt(objectMetaSchema, part.path.slice(1));
      if (schema) this.schemas.name(schema, metaDefinitionName(part.kind, this.options.domain));
    }
    return this.schemas.convert(objectMetaSchema);
  }

  private listSchema(resolved: ResolvedResource, objectName: string): JSONSchema {
    const listMeta = this.schemas.convert(listMetaSchema);
    return {
      description: `A list of ${resolved.kind} objects.`,
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
        items: { type: 'array', description: `The ${resolved.kind} objects.`, items: this.schemas.ref(objectName) },
        kind: { type: 'string', description: 'The REST resource this object represents, in CamelCase.' },
        metadata: listMeta,
      },
      required: ['items'],
      'x-kubernetes-group-version-kind': [gvkOf(resolved, resolved.listKind)],
    };
  }

  /** The published form of a meta.v1 type (Status, DeleteOptions, Patch), publishing it if need be. */
  metaDefinition(kind: 'Status' | 'DeleteOptions' | 'Patch'): JSONSchema {
    this.schemaRef({ kind: 'meta', name: kind }, { object: '', list: '', subresources: new Map() });
    return this.schemas.all()[metaDefinitionName(kind, this.options.domain)]!;
  }

  /** The reference to a body's or response's schema, publishing the meta.v1 type on first use. */
  private schemaRef(schema: SchemaName, names: KindNames): JSONSchema {
    if (schema.kind === 'subresource') return this.schemas.ref(names.subresources.get(schema.subresource)!);
    if (schema.kind !== 'meta') return this.schemas.ref(names[schema.kind]);
    const name = metaDefinitionName(schema.name, this.options.domain);
    if (!this.schemas.has(name)) {
      if (schema.name === 'Status') {
        this.schemas.define(name, statusSchema, { 'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }] });
      } else if (schema.name === 'DeleteOptions') {
        const gvks = this.allGroupVersions.map(({ group, version }) => ({ group, kind: 'DeleteOptions', version }));
        this.schemas.define(name, deleteOptionsSchema, { 'x-kubernetes-group-version-kind': gvks });
      } else {
        this.schemas.define(name, patchSchema);
      }
    }
    return this.schemas.ref(name);
  }

  private parameter(parameter: Parameter): JSONSchema {
    const { name, description, required } = parameter;
    if (this.dialect === 'v2') return { name, in: parameter.in, description, type: parameter.type, ...(required && { required }) };
    return { name, in: parameter.in, description, ...(required && { required }), schema: { type: parameter.type } };
  }

  private pathItem(item: PathItem, resolved: ResolvedResource, names: KindNames): JSONSchema {
    const out: JSONSchema = {};
    for (const operation of item.operations) out[operation.method] = this.operation(operation, resolved, names);
    out.parameters = item.parameters.map((parameter) => this.parameter(parameter));
    return out;
  }

  private operation(operation: Operation, resolved: ResolvedResource, names: KindNames): JSONSchema {
    const produces = operation.produces ?? [...PRODUCES, ...(operation.watch ? WATCH_PRODUCES : [])];
    const responses: JSONSchema = {};
    for (const [code, schema] of Object.entries(operation.responses)) {
      const ref = this.schemaRef(schema, names);
      const description = RESPONSE_DESCRIPTIONS[code];
      if (this.dialect === 'v2') {
        responses[code] = { description, schema: ref };
      } else {
        responses[code] = { description, content: Object.fromEntries(produces.map((type) => [type, { schema: ref }])) };
      }
    }
    responses['401'] = { description: 'Unauthorized' };
    const parameters = operation.parameters.map((parameter) => this.parameter(parameter));
    const consumes = operation.consumes ?? (operation.method === 'patch' ? PATCH_CONSUMES : ['*/*']);
    const body = operation.body && { ref: this.schemaRef(operation.body.schema, names), required: operation.body.required };
    const common = {
      description: operation.description,
      operationId: operation.operationId,
      tags: [operation.tag],
    };
    const extensions = { 'x-kubernetes-action': operation.action, 'x-kubernetes-group-version-kind': operation.gvk ?? gvkOf(resolved) };
    if (this.dialect === 'v2') {
      const all = body ? [{ name: 'body', in: 'body', ...(body.required && { required: true }), schema: body.ref }, ...parameters] : parameters;
      return {
        ...common,
        consumes,
        produces,
        schemes: ['https'],
        ...(all.length && { parameters: all }),
        responses,
        ...extensions,
      };
    }
    return {
      ...common,
      ...(parameters.length && { parameters }),
      ...(body && {
        requestBody: { content: Object.fromEntries(consumes.map((type) => [type, { schema: body.ref }])), ...(body.required && { required: true }) },
      }),
      responses,
      ...extensions,
    };
  }
}

const SECURITY = [{ BearerToken: [] }];
const BEARER_TOKEN = { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' };

type Entries = Record<string, JSONSchema>;

function swagger(paths: Entries, definitions: Entries, options: DocumentOptions): JSONSchema {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: options.version },
    paths,
    definitions,
    securityDefinitions: { BearerToken: BEARER_TOKEN },
    security: SECURITY,
  };
}

function openapi3(paths: Entries, schemas: Entries, options: DocumentOptions): JSONSchema {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: options.version },
    paths,
    components: { schemas, securitySchemes: { BearerToken: BEARER_TOKEN } },
    security: SECURITY,
  };
}

/**
 * The document of a group version of custom resources only: upstream serves the one its CRD
 * builder made, which has its own info and no security schemes.
 */
function customOpenapi3(paths: Entries, schemas: Entries): JSONSchema {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths,
    components: { schemas },
  };
}

/** The group versions of some resources, in their order: DeleteOptions names each as one it may be sent to. */
export function groupVersionsOf(resources: readonly ResolvedResource[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const { group, version } of resources) {
    const key = groupVersionPath(group, version);
    if (!seen.has(key)) seen.set(key, { group, version });
  }
  return [...seen.values()];
}

/**
 * What some resources put in a document of one dialect, built on their own, a resource at a time:
 * their paths and the schemas they publish (shared ones, ObjectMeta or Status, included).
 * DeleteOptions lists no group version here: the document's list is every served one, put in when
 * the parts are put together.
 */
export interface DocumentPart {
  paths: Map<string, JSONSchema>;
  definitions: Record<string, JSONSchema>;
}

export class DocumentPartBuilder {
  private readonly builder: DocumentBuilder;

  constructor(dialect: Dialect, options: DocumentOptions) {
    this.builder = new DocumentBuilder(dialect, options, []);
  }

  add(resolved: ResolvedResource): void {
    this.builder.add(resolved);
  }

  part(): DocumentPart {
    return { paths: this.builder.paths, definitions: this.builder.schemas.all() };
  }
}

/** DeleteOptions as a document of `dialect` publishes it, naming the group versions given. */
export function deleteOptionsDefinition(dialect: Dialect, options: DocumentOptions, groupVersions: readonly { group: string; version: string }[]): JSONSchema {
  return new DocumentBuilder(dialect, options, groupVersions).metaDefinition('DeleteOptions');
}

/** The name DeleteOptions is published under. */
export const deleteOptionsName = (options: DocumentOptions): string => metaDefinitionName('DeleteOptions', options.domain);

/** The published names a custom resource's version defines itself (its kind and list): they replace any earlier. */
export const customDefinitionNames = (resolved: ResolvedResource): string[] => [
  customKindDefinitionName(resolved.group, resolved.version, resolved.kind),
  customKindDefinitionName(resolved.group, resolved.version, resolved.listKind),
];

export type DocumentKind = 'v2' | 'v3' | 'v3-custom';

/**
 * A document's frame, `paths` and its schemas left empty, with the key order of the whole: the
 * Swagger document, a group version's OpenAPI 3.0 document, or one of custom resources only.
 */
export function documentFrame(kind: DocumentKind, options: DocumentOptions, paths: Entries = {}, schemas: Entries = {}): JSONSchema {
  return kind === 'v2' ? swagger(paths, schemas, options) : kind === 'v3' ? openapi3(paths, schemas, options) : customOpenapi3(paths, schemas);
}

/** The kind of a group version's document: custom resources only get their builder's. */
export const v3Kind = (resources: readonly ResolvedResource[]): DocumentKind =>
  resources.every((resolved) => resolved.definition.unstructured) ? 'v3-custom' : 'v3';

/** Both documents of the given resources (the catalog's, in its order). */
export function buildOpenAPIDocuments(resources: readonly ResolvedResource[], options: DocumentOptions): OpenAPIDocuments {
  const groupVersions = new Map<string, { group: string; version: string; resources: ResolvedResource[] }>();
  for (const resolved of resources) {
    const key = groupVersionPath(resolved.group, resolved.version);
    const entry = groupVersions.get(key) ?? { group: resolved.group, version: resolved.version, resources: [] };
    entry.resources.push(resolved);
    groupVersions.set(key, entry);
  }
  const all = [...groupVersions.values()].map(({ group, version }) => ({ group, version }));

  const v2 = new DocumentBuilder('v2', options, all);
  for (const resolved of resources) v2.add(resolved);
  const v3 = new Map<string, JSONSchema>();
  for (const [key, entry] of groupVersions) {
    const builder = new DocumentBuilder('v3', options, all);
    for (const resolved of entry.resources) builder.add(resolved);
    v3.set(key, documentFrame(v3Kind(entry.resources), options, byKey(builder.paths), builder.schemas.all()));
  }
  return { v2: swagger(byKey(v2.paths), v2.schemas.all(), options), v3 };
}
