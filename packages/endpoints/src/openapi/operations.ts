// The operations of a served resource, as the path items of an OpenAPI document describe them
// (resources document 2 section 4): one path item per URL, one operation per verb, with upstream's
// operation IDs, parameters and responses. Written once here, rendered for v2 and v3 by documents.ts.
import { DEFAULT_SUBRESOURCE_VERBS, type ResolvedResource, type Verb } from '@plat/registry';
import { groupVersionId, groupVersionTag } from './names.js';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'boolean' | 'integer';
  description: string;
  required?: boolean;
}

/**
 * What a body or a response is: one of the kind's own schemas, the kind a subresource is served as
 * (scale's autoscaling/v1 Scale), or a meta.v1 type.
 */
export type SchemaName =
  | { kind: 'object' }
  | { kind: 'list' }
  | { kind: 'subresource'; subresource: string }
  | { kind: 'meta'; name: 'Status' | 'DeleteOptions' | 'Patch' };

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface Operation {
  method: Method;
  operationId: string;
  description: string;
  /** x-kubernetes-action. */
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  parameters: Parameter[];
  body?: { schema: SchemaName; required: boolean };
  /** By HTTP code; 401 is added to every operation. */
  responses: Partial<Record<'200' | '201' | '202', SchemaName>>;
  /** A list that may be a watch: the watch media types are produced too. */
  watch?: boolean;
  tag: string;
  /** The media types of the body and of the responses, where they are not the built-in kinds' (custom resources). */
  consumes?: readonly string[];
  produces?: readonly string[];
  /** x-kubernetes-group-version-kind where it is not the resource's own: a built-in subresource's kind. */
  gvk?: GroupVersionKind;
}

export interface PathItem {
  path: string;
  /** Shared by the operations: the path's parameters and pretty. */
  parameters: Parameter[];
  operations: Operation[];
}

const query = (name: string, type: Parameter['type'], description: string): Parameter => ({ name, in: 'query', type, description });

/** The query parameters of the operations (conventions section 4.3), by name. */
export const QUERY_PARAMETERS = {
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'With watch: also send BOOKMARK events, which carry only a resourceVersion.'),
  continue: query('continue', 'string', 'The token from the previous chunk of a list, to read the next chunk at the same resourceVersion.'),
  dryRun: query('dryRun', 'string', 'All: process the request without persisting anything. Any other value is refused.'),
  fieldManager: query('fieldManager', 'string', 'The name of the actor making the change, recorded in managedFields.'),
  fieldSelector: query('fieldSelector', 'string', 'Only objects whose fields match, such as metadata.name=x.'),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'What to do with unknown or duplicate fields in the body: Ignore (drop them), Warn (drop them with a warning, ' +
      'the default) or Strict (refuse the request with 400).',
  ),
  force: query('force', 'boolean', 'Apply requests only: take over fields owned by other managers.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes at once.'),
  labelSelector: query('labelSelector', 'string', 'Only objects whose labels match, such as app=web,tier!=db.'),
  limit: query('limit', 'integer', 'At most this many objects; the list metadata then carries a continue token when more are left.'),
  orphanDependents: query('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. true orphans the dependents, false deletes them in the background.'),
  pretty: query('pretty', 'string', "If 'true', the output is indented."),
  propagationPolicy: query('propagationPolicy', 'string', 'Whether and how dependents are garbage collected: Orphan, Background or Foreground.'),
  resourceVersion: query('resourceVersion', 'string', 'Which version to read from; with resourceVersionMatch, how to match it.'),
  resourceVersionMatch: query('resourceVersionMatch', 'string', 'How resourceVersion is matched for a list: Exact or NotOlderThan.'),
  sendInitialEvents: query('sendInitialEvents', 'boolean', 'With watch: begin with ADDED events of the current objects, then a bookmark.'),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'How long a list or watch may last.'),
  watch: query('watch', 'boolean', 'Stream changes (ADDED, MODIFIED, DELETED) instead of returning a list.'),
} satisfies Record<string, Parameter>;

type QueryName = keyof typeof QUERY_PARAMETERS;
export const params = (...names: QueryName[]): Parameter[] => names.map((name) => QUERY_PARAMETERS[name]);

/** The path parameters, in upstream's words. */
export const NAMESPACE_PARAMETER: Parameter = {
  name: 'namespace',
  in: 'path',
  type: 'string',
  required: true,
  description: 'object name and auth scope, such as for teams and projects',
};
export const nameParameterOf = (kind: string): Parameter => ({ name: 'name', in: 'path', type: 'string', required: true, description: `name of the ${kind}` });

/** The query parameters of each operation beyond pretty (section 4's table). */
const LIST_PARAMETERS = params(
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
);
const WRITE_PARAMETERS = params('dryRun', 'fieldManager', 'fieldValidation');
const PATCH_PARAMETERS = params('dryRun', 'fieldManager', 'fieldValidation', 'force');
const DELETE_PARAMETERS = params('dryRun', 'gracePeriodSeconds', 'propagationPolicy');
const DELETE_COLLECTION_PARAMETERS = params(
  'continue',
  'dryRun',
  'fieldSelector',
  'gracePeriodSeconds',
  'labelSelector',
  'limit',
  'propagationPolicy',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
);


const OBJECT: SchemaName = { kind: 'object' };
const LIST: SchemaName = { kind: 'list' };
const STATUS: SchemaName = { kind: 'meta', name: 'Status' };
const DELETE_OPTIONS: SchemaName = { kind: 'meta', name: 'DeleteOptions' };
const PATCH: SchemaName = { kind: 'meta', name: 'Patch' };

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The path items of one resource, in the order upstream lists them (collection, item, subresources). */
export function resourcePathItems(resolved: ResolvedResource, domain: string): PathItem[] {
  const { definition, kind, namespaced, resource } = resolved;
  const verbs = new Set<Verb>(definition.verbs);
  const base = resolved.group ? `/apis/${resolved.group}/${resolved.version}` : `/api/${resolved.version}`;
  const gv = groupVersionId(resolved.group, resolved.version, domain);
  const tag = groupVersionTag(resolved.group, resolved.version, domain);
  const scoped = namespaced ? `Namespaced${kind}` : kind;
  const id = (verb: string, middle = ''): string => `${verb}${gv}${middle}${scoped}`;
  const pretty = QUERY_PARAMETERS.pretty;
  const namespaceParameter = NAMESPACE_PARAMETER;
  const nameParameter = nameParameterOf(kind);
  const collectionPath = namespaced ? `${base}/namespaces/{namespace}/${resource}` : `${base}/${resource}`;
  const collectionParameters = namespaced ? [namespaceParameter, pretty] : [pretty];
  const itemParameters = namespaced ? [nameParameter, namespaceParameter, pretty] : [nameParameter, pretty];
  const deleted: SchemaName = definition.deleteReturnsObject ? OBJECT : STATUS;

  const collection: Operation[] = [];
  if (verbs.has('list')) {
    collection.push({
      method: 'get',
      operationId: id('list'),
      description: `list or watch objects of kind ${kind}`,
      action: 'list',
      parameters: LIST_PARAMETERS,
      responses: { '200': LIST },
      watch: verbs.has('watch'),
      tag,
    });
  }
  if (verbs.has('create')) {
    collection.push({
      method: 'post',
      operationId: id('create'),
      description: `create a ${kind}`,
      action: 'post',
      parameters: WRITE_PARAMETERS,
      body: { schema: OBJECT, required: true },
      responses: { '200': OBJECT, '201': OBJECT, '202': OBJECT },
      tag,
    });
  }
  if (verbs.has('deletecollection')) {
    collection.push({
      method: 'delete',
      operationId: id('delete', 'Collection'),
      description: `delete collection of ${kind}`,
      action: 'deletecollection',
      parameters: DELETE_COLLECTION_PARAMETERS,
      body: { schema: DELETE_OPTIONS, required: false },
      responses: { '200': STATUS },
      tag,
    });
  }

  const item: Operation[] = [];
  if (verbs.has('get')) {
    item.push({
      method: 'get',
      operationId: id('read'),
      description: `read the specified ${kind}`,
      action: 'get',
      parameters: [],
      responses: { '200': OBJECT },
      tag,
    });
  }
  if (verbs.has('update')) {
    item.push({
      method: 'put',
      operationId: id('replace'),
      description: `replace the specified ${kind}`,
      action: 'put',
      parameters: WRITE_PARAMETERS,
      body: { schema: OBJECT, required: true },
      responses: { '200': OBJECT, '201': OBJECT },
      tag,
    });
  }
  if (verbs.has('patch')) {
    item.push({
      method: 'patch',
      operationId: id('patch'),
      description: `partially update the specified ${kind}`,
      action: 'patch',
      parameters: PATCH_PARAMETERS,
      body: { schema: PATCH, required: true },
      responses: { '200': OBJECT, '201': OBJECT },
      tag,
    });
  }
  if (verbs.has('delete')) {
    item.push({
      method: 'delete',
      operationId: id('delete'),
      description: `delete a ${kind}`,
      action: 'delete',
      parameters: DELETE_PARAMETERS,
      body: { schema: DELETE_OPTIONS, required: false },
      responses: { '200': deleted, '202': deleted },
      tag,
    });
  }

  const items: PathItem[] = [];
  if (collection.length) items.push({ path: collectionPath, parameters: collectionParameters, operations: collection });
  if (namespaced && verbs.has('list')) {
    items.push({
      path: `${base}/${resource}`,
      parameters: [pretty],
      operations: [{ ...collection[0]!, operationId: `list${gv}${kind}ForAllNamespaces` }],
    });
  }
  if (item.length) items.push({ path: `${collectionPath}/{name}`, parameters: itemParameters, operations: item });

  for (const [subresource, sub] of Object.entries(definition.subresources ?? {})) {
    const suffix = capitalize(subresource);
    const operations: Operation[] = [];
    // One served as another kind (scale) is read, written and answered as that kind, which upstream's
    // installer gives its operations as their group-version-kind.
    const servedAs = resolved.subresourceKinds.get(subresource);
    const shown: SchemaName = servedAs ? { kind: 'subresource', subresource } : OBJECT;
    const gvk = servedAs && { gvk: { group: servedAs.group, version: servedAs.version, kind: servedAs.kind } };
    for (const verb of sub.verbs ?? DEFAULT_SUBRESOURCE_VERBS) {
      if (!verbs.has(verb)) continue;
      if (verb === 'get') {
        operations.push({
          method: 'get',
          operationId: id('read') + suffix,
          description: `read ${subresource} of the specified ${kind}`,
          action: 'get',
          parameters: [],
          responses: { '200': shown },
          tag,
          ...gvk,
        });
      } else if (verb === 'update') {
        operations.push({
          method: 'put',
          operationId: id('replace') + suffix,
          description: `replace ${subresource} of the specified ${kind}`,
          action: 'put',
          parameters: WRITE_PARAMETERS,
          body: { schema: shown, required: true },
          responses: { '200': shown, '201': shown },
          tag,
          ...gvk,
        });
      } else if (verb === 'patch') {
        operations.push({
          method: 'patch',
          operationId: id('patch') + suffix,
          description: `partially update ${subresource} of the specified ${kind}`,
          action: 'patch',
          parameters: PATCH_PARAMETERS,
          body: { schema: PATCH, required: true },
          responses: { '200': shown, '201': shown },
          tag,
          ...gvk,
        });
      }
    }
    if (operations.length) items.push({ path: `${collectionPath}/{name}/${subresource}`, parameters: itemParameters, operations });
  }
  return items;
}
