// The reads of the resource store (get, list, and waiting for a resourceVersion), and what its writes
// share with them: the storage, the kind's context and feature gates, type meta, error mapping.
import type { Storage, ListOptions, StoredObject } from '@plat/storage';
import type { KubeObject, StrategyContext, VirtualServices } from './definition.js';
import type { Admission, ListQueryWithSelectors, ObjectList, StoreChecks } from './requests.js';
import type { ResolvedResource } from './resolved.js';
import { toStatusError, tooLargeResourceVersion } from './errors.js';
import { buildPredicate } from './predicate.js';
import { sharedList } from './list-item.js';
import { storedFormOf, type StoredForm } from './stored-form.js';
import { selectedPage, type SelectedPage } from './selected-page.js';
import { getSemantic, listSemantic, validateListQuery } from './resource-version.js';

/** The feature gates the store honours; absent ones take their Kubernetes 1.28 defaults. */
export interface StoreFeatures {
  /** WatchList (alpha, default off): a watch may ask for sendInitialEvents (a streaming list). */
  watchList?: boolean;
  /** APIListChunking (beta, default on): lists honour limit and continue; off, both are ignored. */
  apiListChunking?: boolean;
}

export interface StoreOptions {
  storage: Storage;
  context: StrategyContext;
  features?: StoreFeatures;
  /** The server's admission chain; absent: none (tests, the server's own stores). */
  admission?: Admission;
  /** The kind's own checks (see StoreChecks); absent: none. */
  checks?: StoreChecks;
  now?: () => Date;
  /** How long a read waits for a resourceVersion the store has not reached before a 504. */
  resourceVersionWaitMs?: number;
  /**
   * What the server lends a never-stored kind to answer with (read when a request comes: the
   * services are built after the stores). Without them such a kind is not served (404).
   */
  virtualServices?: () => VirtualServices | undefined;
}

const DEFAULT_RESOURCE_VERSION_WAIT_MS = 3000;

export class ResourceReader<T extends KubeObject = KubeObject> {
  constructor(
    readonly resource: ResolvedResource<T>,
    protected readonly options: StoreOptions,
  ) {
    this.form = storedFormOf(resource);
  }

  get storage(): Storage {
    return this.options.storage;
  }

  get context(): StrategyContext {
    return this.options.context;
  }

  get features(): Required<StoreFeatures> {
    return { watchList: false, apiListChunking: true, ...this.options.features };
  }

  protected fail(error: unknown, name = '', continuing = false): never {
    throw toStatusError(error, { groupResource: this.resource.groupResource, name, continuing });
  }

  /** An unstructured kind's stored form (typed kinds: undefined, their objects are served as stored). */
  readonly form: StoredForm<T> | undefined;

  /** An object a read has its own copy of, as this version serves it. */
  protected async served(stored: T): Promise<T> {
    return this.form ? (await this.form.servedOwn([stored]))[0]! : this.withType(stored);
  }

  /** An object read from storage as the store's writes work on it: converted, pruned and defaulted. */
  protected async current(stored: T): Promise<T>;
  protected async current(stored: T | null): Promise<T | null>;
  protected async current(stored: T | null): Promise<T | null> {
    return stored && this.form ? (await this.form.served([stored]))[0]! : stored;
  }

  /** An object this store has just written, as served. */
  protected async written(stored: T): Promise<T> {
    return this.form ? this.form.written(stored) : this.withType(stored);
  }

  protected withType(object: T): T {
    object.apiVersion = this.resource.apiVersion;
    object.kind = this.resource.kind;
    return object;
  }

  /** Waits until the store has reached `revision` (compared exactly); 504 if it does not in time. */
  async waitForRevision(revision: bigint): Promise<void> {
    const deadline = Date.now() + (this.options.resourceVersionWaitMs ?? DEFAULT_RESOURCE_VERSION_WAIT_MS);
    for (;;) {
      const current = await this.storage.currentRevision().catch((error: unknown) => this.fail(error));
      if (BigInt(current) >= revision) return;
      if (Date.now() >= deadline) throw tooLargeResourceVersion(`${revision}, current: ${current}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async get(namespace: string, name: string, resourceVersion?: string): Promise<T> {
    const semantic = getSemantic(resourceVersion);
    if (semantic.kind === 'notOlderThan') await this.waitForRevision(semantic.revision);
    // Past the wait, the revision is one the store has reached: a number holds it exactly.
    const notOlderThan = semantic.kind === 'any' ? 0 : semantic.kind === 'notOlderThan' ? Number(semantic.revision) : undefined;
    try {
      return await this.served(await this.storage.get<T>(this.resource.key(namespace, name), notOlderThan === undefined ? {} : { notOlderThan }));
    } catch (error) {
      this.fail(error, name);
    }
  }

  /**
   * The object in any recent state (resourceVersion=0), for checks that only read it, such as
   * admission: a watch cache answers with its shared copy, which must not be changed.
   */
  async peek(namespace: string, name: string): Promise<Readonly<T>> {
    try {
      return await this.current(await this.storage.get<T>(this.resource.key(namespace, name), { notOlderThan: 0, readOnly: true }));
    } catch (error) {
      this.fail(error, name);
    }
  }

  async list(namespace: string, listQuery: ListQueryWithSelectors): Promise<ObjectList<T>> {
    const { watchList, apiListChunking } = this.features;
    validateListQuery(listQuery, this.context.domain, watchList);
    // Without APIListChunking, limit and continue are ignored, as upstream's storage does unpaged.
    const { limit: _limit, continue: _continue, ...unpaged } = listQuery;
    const query: ListQueryWithSelectors = apiListChunking ? listQuery : unpaged;
    const semantic = listSemantic(query);
    const predicate = buildPredicate(this.resource, query.labelSelector, query.fieldSelector);
    // Upstream does not validate the limit: 0 or below lists everything.
    const limit = Math.max(0, query.limit ?? 0);
    if (semantic.kind === 'notOlderThan' || semantic.kind === 'exact') await this.waitForRevision(semantic.revision);
    const prefix = this.resource.prefix(namespace);
    const read: Omit<ListOptions, 'limit' | 'filter'> = {
      // Past the wait, the revision is one the store has reached: a number holds it exactly.
      ...(semantic.kind === 'exact' && { revision: Number(semantic.revision) }),
      ...(semantic.kind === 'any' && { notOlderThan: 0 }),
      ...(semantic.kind === 'notOlderThan' && { notOlderThan: Number(semantic.revision) }),
      ...(semantic.kind === 'continue' && { continue: query.continue! }),
    };
    const form = this.form;
    let result: SelectedPage<T>;
    try {
      // Objects served as stored are judged as stored, by the storage (and its watch cache); those
      // this version converts are judged here, once converted, a chunk at a time.
      result = form
        ? await selectedPage<T, T>({
            storage: this.storage,
            prefix,
            first: read,
            limit,
            serve: (stored) => form.served(stored),
            ...(predicate.filter && { filter: predicate.filter }),
            keyOf: (stored) => this.resource.key(stored.metadata.namespace ?? '', stored.metadata.name ?? ''),
          })
        : await this.storage.list<T>(prefix, { ...read, limit, ...(predicate.filter && { filter: predicate.filter as (object: StoredObject) => boolean }) });
    } catch (error) {
      this.fail(error, '', semantic.kind === 'continue');
    }
    const head = {
      apiVersion: this.resource.apiVersion,
      kind: this.resource.listKind,
      metadata: {
        resourceVersion: String(result.revision),
        ...(result.continue && { continue: result.continue }),
        ...(result.remainingItemCount !== undefined && { remainingItemCount: result.remainingItemCount }),
      },
    };
    return sharedList(head, result.items, form?.itemsCarryType);
  }
}
