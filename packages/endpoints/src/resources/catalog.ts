// The resources this server serves: each definition bound to the API domain and to one generic
// store, found by group, version and resource. The built-in kinds are there from the start; custom
// resources come and go while the server runs (their definitions' controller adds and removes
// them), and whatever is derived from the catalog (discovery, OpenAPI) follows its changes.
import type { Storage } from '@plat/storage';
import {
  ResourceStore,
  resolveResource,
  type Admission, type StoreChecks,
  type KubeObject,
  type ResolvedResource,
  type ResourceDefinition,
  type StoreFeatures,
  type VirtualServices,
} from '@plat/registry';
import { compareKubeVersions } from '@plat/apimachinery';

export interface ServedResource {
  readonly resolved: ResolvedResource;
  readonly store: ResourceStore;
}

export interface CatalogOptions {
  storage: Storage;
  /** The storage of each resource where it is not `storage` (one served without the watch cache). */
  storageFor?: (resolved: ResolvedResource) => Storage;
  domain: string;
  /** The server's admission chain, given to every store. */
  admission?: Admission;
  /** The kinds' own checks (RBAC escalation, custom resources, policy parameters), given to every store. */
  checks?: StoreChecks;
  now?: () => Date;
  /** The feature gates every store honours (WatchList, APIListChunking). */
  features?: StoreFeatures;
  /** What the never-stored kinds answer with (read per request: built after the catalog). */
  virtualServices?: () => VirtualServices | undefined;
}

/** A group's versions, in preference order, each with its resources. */
export type GroupVersions = ReadonlyMap<string, readonly ServedResource[]>;

const pathOf = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

export class ResourceCatalog {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly byGroup = new Map<string, Map<string, ServedResource[]>>();
  /** Groups of the kinds added after start-up, which discovery lists after the built-in ones. */
  private readonly addedGroups = new Set<string>();
  /** The resources added after start-up: only these may be replaced or removed. */
  private readonly addedPaths = new Set<string>();
  /** The groups of the built-in kinds: a custom resource of one is listed in discovery, not served. */
  private readonly builtInGroups = new Set<string>();
  /** Custom resources of built-in groups, by path: discovery lists them; nothing serves them. */
  private readonly unserved = new Map<string, ResolvedResource>();
  private readonly listeners = new Set<() => void>();
  private changes = 0;

  constructor(definitions: readonly ResourceDefinition[], readonly options: CatalogOptions) {
    for (const definition of definitions) this.insert(this.serve(definition as ResourceDefinition<KubeObject>), false);
  }

  /** A definition bound to the domain and a store of its own, as the catalog's are (not added to it). */
  serve(definition: ResourceDefinition<KubeObject>): ServedResource {
    const resolved = resolveResource(definition, this.options.domain);
    const { storage, storageFor, domain, now, features, virtualServices, admission, checks } = this.options;
    const store = new ResourceStore(resolved, {
      storage: storageFor?.(resolved) ?? storage,
      context: { domain },
      ...(admission && { admission }),
      ...(checks && { checks }),
      ...(now && { now }),
      ...(features && { features }),
      ...(virtualServices && { virtualServices }),
    });
    return { resolved, store };
  }

  /**
   * Serves a definition from now on (a custom resource's version). Throws when its group, version
   * and resource are served already.
   */
  add(definition: ResourceDefinition<KubeObject>): ServedResource {
    const served = this.serve(definition);
    this.insert(served, true);
    this.changed();
    return served;
  }

  /**
   * Serves a definition in place of what serves its group, version and resource now (a custom
   * resource whose definition changed), as one change.
   */
  replace(definition: ResourceDefinition<KubeObject>): ServedResource {
    const served = this.serve(definition);
    const { group, version, resource } = served.resolved;
    if (this.byPath.has(pathOf(group, version, resource)) && !this.addedPaths.has(pathOf(group, version, resource))) {
      throw new Error(`${pathOf(group, version, resource)} is served from start-up and cannot be replaced`);
    }
    this.detach(group, version, resource);
    this.insert(served, true);
    this.changed();
    return served;
  }

  /** Stops serving a resource added after start-up; the served resource it was, if any. */
  remove(group: string, version: string, resource: string): ServedResource | undefined {
    const served = this.detach(group, version, resource);
    if (!served) return undefined;
    // The last version of a resource gone: what storage keeps for it (a watch cache) goes too.
    const prefix = served.resolved.prefix('');
    if (!this.all().some((other) => other.resolved.prefix('') === prefix)) this.options.storage.release?.(prefix);
    this.changed();
    return served;
  }

  private detach(group: string, version: string, resource: string): ServedResource | undefined {
    const path = pathOf(group, version, resource);
    const served = this.byPath.get(path);
    if (!served || !this.addedPaths.has(path)) return undefined;
    this.byPath.delete(path);
    this.addedPaths.delete(path);
    const versions = this.byGroup.get(group)!;
    const left = versions.get(version)!.filter((s) => s !== served);
    if (left.length) versions.set(version, left);
    else versions.delete(version);
    if (!versions.size) {
      this.byGroup.delete(group);
      this.addedGroups.delete(group);
    }
    return served;
  }

  private insert(served: ServedResource, added: boolean): void {
    const { group, version, resource } = served.resolved;
    const path = pathOf(group, version, resource);
    if (this.byPath.has(path)) throw new Error(`two definitions serve ${path}`);
    this.byPath.set(path, served);
    if (added) this.addedPaths.add(path);
    else this.builtInGroups.add(group);
    let versions = this.byGroup.get(group);
    if (!versions) {
      versions = new Map();
      this.byGroup.set(group, versions);
      if (added) this.addedGroups.add(group);
    }
    if (versions.has(version)) versions.get(version)!.push(served);
    else if (!added) versions.set(version, [served]);
    else {
      // A new version takes its place by Kubernetes' version priority (v2 before v1 before v1beta1).
      const ordered = [...versions.entries(), [version, [served]] as [string, ServedResource[]]];
      ordered.sort(([a], [b]) => compareKubeVersions(a, b));
      versions.clear();
      for (const [v, list] of ordered) versions.set(v, list);
    }
  }

  /**
   * Whether the built-in kinds have this group. Upstream's API server claims every path under a
   * built-in group for its own handlers (its group discovery web service is the prefix
   * /apis/<group>), so a custom resource of such a group is listed in discovery and never served.
   */
  isBuiltInGroup(group: string): boolean {
    return this.builtInGroups.has(group);
  }

  /**
   * Lists a custom resource of a built-in group in discovery, in place of what listed its group,
   * version and resource; it is not served (requests for it are 404, as upstream's).
   */
  listUnserved(definition: ResourceDefinition<KubeObject>): void {
    const resolved = resolveResource(definition, this.options.domain);
    this.unserved.set(pathOf(resolved.group, resolved.version, resolved.resource), resolved);
    this.changed();
  }

  /** Stops listing an unserved custom resource. */
  unlistUnserved(group: string, version: string, resource: string): void {
    if (this.unserved.delete(pathOf(group, version, resource))) this.changed();
  }

  /** The unserved custom resources of a group, by version, in the order they were listed. */
  unservedVersions(group: string): Map<string, ResolvedResource[]> {
    const versions = new Map<string, ResolvedResource[]>();
    for (const resolved of this.unserved.values()) {
      if (resolved.group !== group) continue;
      const list = versions.get(resolved.version);
      if (list) list.push(resolved);
      else versions.set(resolved.version, [resolved]);
    }
    return versions;
  }

  private changed(): void {
    this.changes++;
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A number that changes whenever what is served changes (for caches of derived documents). */
  get generation(): number {
    return this.changes;
  }

  /**
   * Every group with its versions: the built-in groups in their order, then the groups added since,
   * by name (upstream lists custom groups, all of one priority, after the built-in ones).
   */
  groups(): [string, GroupVersions][] {
    const builtIn = [...this.byGroup].filter(([group]) => !this.addedGroups.has(group));
    const added = [...this.byGroup].filter(([group]) => this.addedGroups.has(group)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return [...builtIn, ...added];
  }

  /** A group's versions, if it is served. */
  group(name: string): GroupVersions | undefined {
    return this.byGroup.get(name);
  }

  /** Every served resource, of every group and version. */
  all(): ServedResource[] {
    return [...this.byPath.values()];
  }

  find(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byPath.get(pathOf(group, version, resource));
  }

  /** The store of a resource this server is known to serve (for admission and bootstrapping). */
  store(group: string, version: string, resource: string): ResourceStore {
    const served = this.find(group, version, resource);
    if (!served) throw new Error(`${resource} in ${group || 'core'}/${version} is not served`);
    return served.store;
  }
}
