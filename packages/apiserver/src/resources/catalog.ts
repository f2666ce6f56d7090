// The resources this server serves: each definition bound to the API domain and to one generic
// store, found by group, version and resource.
import type { Storage } from '@plat/storage';
import {
  ResourceStore,
  resolveResource,
  type AdmissionCheck,
  type KubeObject,
  type ResolvedResource,
  type ResourceDefinition,
  type StoreFeatures,
  type VirtualServices,
} from '@plat/registry';

export interface ServedResource {
  readonly resolved: ResolvedResource;
  readonly store: ResourceStore;
}

export interface CatalogOptions {
  storage: Storage;
  domain: string;
  /** Admission checks, given the catalog so that they can read other resources. */
  admission?: (catalog: ResourceCatalog) => readonly AdmissionCheck[];
  now?: () => Date;
  /** The feature gates every store honours (WatchList, APIListChunking). */
  features?: StoreFeatures;
  /** What the never-stored kinds answer with (read per request: built after the catalog). */
  virtualServices?: () => VirtualServices | undefined;
}

export class ResourceCatalog {
  private readonly byPath = new Map<string, ServedResource>();
  /** group -> versions in preference order -> resources. */
  readonly groups = new Map<string, Map<string, ServedResource[]>>();

  private readonly admission: readonly AdmissionCheck[];

  constructor(definitions: readonly ResourceDefinition[], readonly options: CatalogOptions) {
    this.admission = options.admission?.(this) ?? [];
    for (const definition of definitions) {
      const served = this.serve(definition as ResourceDefinition<KubeObject>);
      const { resolved } = served;
      const path = `${resolved.group}/${resolved.version}/${resolved.resource}`;
      if (this.byPath.has(path)) throw new Error(`two definitions serve ${path}`);
      this.byPath.set(path, served);
      const versions = this.groups.get(resolved.group) ?? new Map<string, ServedResource[]>();
      this.groups.set(resolved.group, versions);
      versions.set(resolved.version, [...(versions.get(resolved.version) ?? []), served]);
    }
  }

  /** A definition bound to the domain and a store of its own, as the catalog's are (not added to it). */
  serve(definition: ResourceDefinition<KubeObject>): ServedResource {
    const resolved = resolveResource(definition, this.options.domain);
    const { storage, domain, now, features, virtualServices } = this.options;
    const store = new ResourceStore(resolved, {
      storage,
      context: { domain },
      admission: this.admission,
      ...(now && { now }),
      ...(features && { features }),
      ...(virtualServices && { virtualServices }),
    });
    return { resolved, store };
  }

  find(group: string, version: string, resource: string): ServedResource | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** The store of a resource this server is known to serve (for admission and bootstrapping). */
  store(group: string, version: string, resource: string): ResourceStore {
    const served = this.find(group, version, resource);
    if (!served) throw new Error(`${resource} in ${group || 'core'}/${version} is not served`);
    return served.store;
  }
}
