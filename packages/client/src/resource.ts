// One resource's REST verbs (list, get, create, update, delete, deletecollection, watch), typed by
// the object they carry, in one namespace or across all of them.
import { isStatusError, type Status } from '@plat/apimachinery';
import type { RestClient } from './rest.js';
import { WatchStream } from './watch.js';
import {
  groupVersionString,
  type KubeObject,
  type ObjectList,
  type Preconditions,
  type PropagationPolicy,
  type ResourceRef,
} from './types.js';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Events after this version; absent: the current state as ADDED events, then changes. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this long. */
  timeoutSeconds?: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
}

export interface UpdateOptions extends WriteOptions {
  /** status, finalize, ...: PUT to the subresource. */
  subresource?: string;
}

export interface DeleteOptions {
  preconditions?: Preconditions;
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/** The patch types the API takes, by the Content-Type each is sent as. */
const patchContentTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchType = keyof typeof patchContentTypes;

export interface PatchOptions extends UpdateOptions {
  /** Server-side apply only: take over fields other managers own. */
  force?: boolean;
}

/** Pages a listAll asks for when not told otherwise (client-go's pager default). */
const DEFAULT_PAGE_SIZE = 500;

function deleteOptionsBody(options: DeleteOptions): Record<string, unknown> {
  return {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(options.preconditions && { preconditions: options.preconditions }),
    ...(options.propagationPolicy && { propagationPolicy: options.propagationPolicy }),
    ...(options.gracePeriodSeconds !== undefined && { gracePeriodSeconds: options.gracePeriodSeconds }),
    ...(options.dryRun && { dryRun: ['All'] }),
  };
}

export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    readonly rest: RestClient,
    readonly ref: ResourceRef,
    /** '' for all namespaces (list, watch) or for a cluster-scoped resource. */
    readonly namespaceName = '',
  ) {}

  /** The same resource in one namespace. */
  namespace(namespace: string): ResourceClient<T> {
    if (!this.ref.namespaced && namespace) throw new Error(`${this.ref.resource} is not namespaced`);
    return new ResourceClient<T>(this.rest, this.ref, namespace);
  }

  get apiVersion(): string {
    return groupVersionString(this.ref.group, this.ref.version);
  }

  /** The URL path of the collection, of one object, or of one object's subresource. */
  path(name?: string, subresource?: string, namespace = this.namespaceName): string {
    const { group, version, resource, namespaced } = this.ref;
    let path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    if (namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
    path += `/${resource}`;
    if (name !== undefined) path += `/${encodeURIComponent(name)}`;
    if (subresource) path += `/${subresource}`;
    return path;
  }

  private objectNamespace(object: KubeObject): string {
    if (!this.ref.namespaced) return '';
    const namespace = object.metadata.namespace || this.namespaceName;
    if (!namespace) throw new Error(`${this.ref.resource} ${object.metadata.name ?? ''}: no namespace`);
    return namespace;
  }

  private requireNamespace(): void {
    if (this.ref.namespaced && !this.namespaceName) throw new Error(`${this.ref.resource}: name a namespace first`);
  }

  /** One page (or, without limit, all) of the collection. */
  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    return this.rest.request<ObjectList<T>>({ path: this.path(), query: { ...options } });
  }

  /**
   * The whole collection, read in pages at one resourceVersion. When the continue token expires
   * midway (410), the collection is read again in one request, as client-go's pager does.
   */
  async listAll(options: Omit<ListOptions, 'limit' | 'continue'> & { pageSize?: number } = {}): Promise<ObjectList<T>> {
    const { pageSize = DEFAULT_PAGE_SIZE, ...query } = options;
    const first = await this.list({ ...query, limit: pageSize });
    const items = [...first.items];
    let next = first.metadata.continue;
    while (next) {
      let page: ObjectList<T>;
      try {
        page = await this.list({ ...query, limit: pageSize, continue: next, resourceVersion: undefined, resourceVersionMatch: undefined });
      } catch (error) {
        if (isStatusError(error) && error.code === 410) return this.list(query);
        throw error;
      }
      items.push(...page.items);
      next = page.metadata.continue;
    }
    return { ...first, metadata: { resourceVersion: first.metadata.resourceVersion ?? '' }, items };
  }

  get(name: string): Promise<T> {
    this.requireNamespace();
    return this.rest.request<T>({ path: this.path(name) });
  }

  /** POST; the namespace is the object's, else this client's. */
  create(object: T, options: WriteOptions = {}): Promise<T> {
    const namespace = this.objectNamespace(object);
    return this.rest.request<T>({
      method: 'POST',
      path: this.path(undefined, undefined, namespace),
      query: { ...(options.dryRun && { dryRun: 'All' }), fieldManager: options.fieldManager },
      body: { apiVersion: this.apiVersion, ...(this.ref.kind && { kind: this.ref.kind }), ...object },
    });
  }

  /** PUT of the whole object (or of a subresource); metadata.resourceVersion makes it conditional. */
  update(object: T, options: UpdateOptions = {}): Promise<T> {
    const name = object.metadata.name;
    if (!name) throw new Error(`${this.ref.resource}: an update needs metadata.name`);
    const namespace = this.objectNamespace(object);
    return this.rest.request<T>({
      method: 'PUT',
      path: this.path(name, options.subresource, namespace),
      query: { ...(options.dryRun && { dryRun: 'All' }), fieldManager: options.fieldManager },
      body: { apiVersion: this.apiVersion, ...(this.ref.kind && { kind: this.ref.kind }), ...object },
    });
  }

  /** PATCH of an object (or of a subresource): the patched object. */
  patch(name: string, type: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    this.requireNamespace();
    return this.rest.request<T>({
      method: 'PATCH',
      path: this.path(name, options.subresource),
      query: { ...(options.dryRun && { dryRun: 'All' }), fieldManager: options.fieldManager, force: options.force || undefined },
      body: patch,
      contentType: patchContentTypes[type],
    });
  }

  /** DELETE: the deleted object, a Success Status, or the object marked while finalizers hold it. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    this.requireNamespace();
    return this.rest.request<T | Status>({ method: 'DELETE', path: this.path(name), body: deleteOptionsBody(options) });
  }

  /** DELETE of the selected objects of the collection. */
  deleteCollection(options: DeleteOptions & Pick<ListOptions, 'labelSelector' | 'fieldSelector'> = {}): Promise<ObjectList<T> | Status> {
    const { labelSelector, fieldSelector, ...deleteOptions } = options;
    return this.rest.request<ObjectList<T> | Status>({
      method: 'DELETE',
      path: this.path(),
      query: { labelSelector, fieldSelector },
      body: deleteOptionsBody(deleteOptions),
    });
  }

  /** Starts a watch; resolves once the server has accepted it. */
  async watch(options: WatchOptions = {}): Promise<WatchStream<T>> {
    const response = await this.rest.stream({
      path: this.path(),
      query: {
        watch: 1,
        resourceVersion: options.resourceVersion,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        allowWatchBookmarks: options.allowWatchBookmarks || undefined,
        timeoutSeconds: options.timeoutSeconds,
      },
    });
    return new WatchStream<T>(response);
  }
}
