// The operations of a custom resource, as upstream's CRD OpenAPI builder routes them: the
// collection (list, create, deletecollection), the object (read, replace, delete, patch), a
// namespaced kind's list across namespaces, and the status and scale subresources. They differ from
// the built-in kinds' (operations.ts): JSON and YAML only, no strategic merge patch, each verb's
// options as its query parameters, and the parameters every operation of a path shares on the path.
import type { ResolvedResource, SubresourceDefinition, KubeObject, Verb } from '@plat/registry';
import { subresourceVerbs } from '../resources/discovery.js';
import { groupVersionId, groupVersionTag } from './names.js';
import { nameParameterOf, NAMESPACE_PARAMETER, params, QUERY_PARAMETERS, type Method, type Operation, type Parameter, type PathItem, type SchemaName } from './operations.js';

const MEDIA_TYPES = ['application/json', 'application/yaml'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

const LIST_OPTIONS = params(
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

/** Each action's query parameters: the fields of its options type (GetOptions, ListOptions...). */
const OPTIONS: Record<Operation['action'], Parameter[]> = {
  get: params('resourceVersion'),
  list: LIST_OPTIONS,
  // Upstream's builder gives deletecollection ListOptions' parameters and no body.
  deletecollection: LIST_OPTIONS,
  post: params('dryRun', 'fieldManager', 'fieldValidation'),
  put: params('dryRun', 'fieldManager', 'fieldValidation'),
  patch: params('dryRun', 'fieldManager', 'fieldValidation', 'force'),
  delete: params('dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'),
};

const OBJECT: SchemaName = { kind: 'object' };
const LIST: SchemaName = { kind: 'list' };
const STATUS: SchemaName = { kind: 'meta', name: 'Status' };
const DELETE_OPTIONS: SchemaName = { kind: 'meta', name: 'DeleteOptions' };
const PATCH: SchemaName = { kind: 'meta', name: 'Patch' };

/** One route of the builder: a verb on a path, answering with `sample`. */
interface Route {
  /** "", "/{name}" or "/{name}/<subresource>", after the collection. */
  suffix: string;
  method: Method;
  action: Operation['action'];
  /** The verb of the operation ID and description: list, create, read, replace, patch, delete, deletecollection. */
  operationVerb: string;
  sample: SchemaName;
  body?: SchemaName;
  /** The verb the definition must serve for the route to be published. */
  verb: Verb;
}

/** "a", "an", or nothing before a kind that reads as a plural (upstream's GetArticleForNoun). */
function article(noun: string): string {
  if (!noun.endsWith('ss') && noun.endsWith('s')) return ' ';
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

const sortParameters = (parameters: Parameter[]): Parameter[] =>
  parameters.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.in < b.in ? -1 : a.in > b.in ? 1 : 0));

/** The subresource a route suffix names ("status" for "/{name}/status"), or "". */
const subresourceOf = (suffix: string): string => suffix.split('/')[2] ?? '';

function description(route: Route, kind: string): string {
  const subresource = subresourceOf(route.suffix);
  const of = subresource ? ` ${subresource} of` : '';
  switch (route.operationVerb) {
    case 'list':
      return `list${of} objects of kind ${kind}`;
    case 'read':
    case 'replace':
      return `${route.operationVerb}${of} the specified ${kind}`;
    case 'patch':
      return `partially update${of} the specified ${kind}`;
    case 'create':
    case 'delete':
      return `${route.operationVerb}${of}${article(kind)}${kind}`;
    default:
      return `delete collection of${of ? `${of} a` : ''} ${kind}`;
  }
}

/** The routes of a subresource: status answers with the object, scale with the kind it is served as (a Scale). */
function subresourceRoutes(name: string, definition: SubresourceDefinition<KubeObject>): Route[] {
  const sample: SchemaName = definition.servedAs ? { kind: 'subresource', subresource: name } : OBJECT;
  const suffix = `/{name}/${name}`;
  const all: Route[] = [
    { suffix, method: 'get', action: 'get', operationVerb: 'read', sample, verb: 'get' },
    { suffix, method: 'put', action: 'put', operationVerb: 'replace', sample, body: sample, verb: 'update' },
    { suffix, method: 'patch', action: 'patch', operationVerb: 'patch', sample, body: PATCH, verb: 'patch' },
  ];
  const verbs = new Set(subresourceVerbs(definition));
  return all.filter((route) => verbs.has(route.verb));
}

/** The subresources a CustomResourceDefinition can give its versions, the only ones upstream's builder routes. */
const CUSTOM_SUBRESOURCES = ['status', 'scale'];

/** The path items of a custom resource's version, as upstream's CRD OpenAPI builder publishes them. */
export function customResourcePathItems(resolved: ResolvedResource, domain: string): PathItem[] {
  const { definition, kind, namespaced, resource } = resolved;
  const verbs = new Set<Verb>(definition.verbs);
  const base = `/apis/${resolved.group}/${resolved.version}`;
  const gv = groupVersionId(resolved.group, resolved.version, domain);
  const tag = groupVersionTag(resolved.group, resolved.version, domain);
  const collection = namespaced ? `${base}/namespaces/{namespace}/${resource}` : `${base}/${resource}`;

  const all: Route[] = [
    { suffix: '', method: 'get', action: 'list', operationVerb: 'list', sample: LIST, verb: 'list' },
    { suffix: '', method: 'post', action: 'post', operationVerb: 'create', sample: OBJECT, body: OBJECT, verb: 'create' },
    { suffix: '', method: 'delete', action: 'deletecollection', operationVerb: 'deletecollection', sample: STATUS, verb: 'deletecollection' },
    { suffix: '/{name}', method: 'get', action: 'get', operationVerb: 'read', sample: OBJECT, verb: 'get' },
    { suffix: '/{name}', method: 'put', action: 'put', operationVerb: 'replace', sample: OBJECT, body: OBJECT, verb: 'update' },
    { suffix: '/{name}', method: 'delete', action: 'delete', operationVerb: 'delete', sample: STATUS, body: DELETE_OPTIONS, verb: 'delete' },
    { suffix: '/{name}', method: 'patch', action: 'patch', operationVerb: 'patch', sample: OBJECT, body: PATCH, verb: 'patch' },
  ];
  const routes = all.filter((route) => verbs.has(route.verb));
  for (const name of CUSTOM_SUBRESOURCES) {
    const subresource = definition.subresources?.[name];
    if (subresource) routes.push(...subresourceRoutes(name, subresource));
  }

  const nameParameter = nameParameterOf(kind);
  /** Upstream's operation name (verb, Namespaced, kind, subresource) with the group version after the verb. */
  const operationId = (route: Route): string => {
    const subresource = subresourceOf(route.suffix);
    const [verb, rest] = route.operationVerb === 'deletecollection' ? ['delete', 'Collection'] : [route.operationVerb, ''];
    return `${verb}${gv}${rest}${namespaced ? 'Namespaced' : ''}${kind}${subresource.charAt(0).toUpperCase()}${subresource.slice(1)}`;
  };
  const operation = (route: Route, path: string, allNamespaces = false): { path: string; operation: Operation } => {
    const responses: Operation['responses'] = { '200': route.sample };
    if (route.action === 'post') Object.assign(responses, { '201': route.sample, '202': route.sample });
    if (route.action === 'put') responses['201'] = route.sample;
    if (route.action === 'delete') responses['202'] = route.sample;
    const inPath = [...(namespaced && !allNamespaces ? [NAMESPACE_PARAMETER] : []), ...(route.suffix ? [nameParameter] : [])];
    return {
      path,
      operation: {
        method: route.method,
        operationId: allNamespaces ? `list${gv}${kind}ForAllNamespaces` : operationId(route),
        description: description(route, kind),
        action: route.action,
        // Each operation's own; those all the operations of a path share go to the path item (pathItems).
        parameters: [...inPath, QUERY_PARAMETERS.pretty, ...OPTIONS[route.action]],
        // A delete's DeleteOptions may be left out; every other body is required.
        ...(route.body && { body: { schema: route.body, required: route.action !== 'delete' } }),
        responses,
        tag,
        consumes: route.method === 'patch' ? PATCH_TYPES : MEDIA_TYPES,
        produces: MEDIA_TYPES,
      },
    };
  };

  const operations: { path: string; operation: Operation }[] = [];
  const list = routes.find((route) => route.action === 'list');
  if (namespaced && list) operations.push(operation(list, `${base}/${resource}`, true));
  for (const route of routes) operations.push(operation(route, `${collection}${route.suffix}`));
  return pathItems(operations);
}

/**
 * The operations grouped by path, each path item holding the parameters all its operations share
 * (kube-openapi's findCommonParameters), sorted by name and location as it sorts them.
 */
function pathItems(operations: { path: string; operation: Operation }[]): PathItem[] {
  const byPath = new Map<string, Operation[]>();
  for (const { path, operation } of operations) byPath.set(path, [...(byPath.get(path) ?? []), operation]);
  const items: PathItem[] = [];
  for (const [path, members] of byPath) {
    const key = (parameter: Parameter): string => `${parameter.in} ${parameter.name}`;
    const shared = members[0]!.parameters.filter((parameter) => members.every((member) => member.parameters.some((other) => key(other) === key(parameter))));
    const sharedKeys = new Set(shared.map(key));
    items.push({
      path,
      parameters: sortParameters([...shared]),
      operations: members.map((member) => ({ ...member, parameters: sortParameters(member.parameters.filter((parameter) => !sharedKeys.has(key(parameter)))) })),
    });
  }
  return items;
}
