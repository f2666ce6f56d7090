// Discovery: which groups, versions and resources the server serves (/api, /api/v1, /apis,
// /apis/{group}/{version}), so that controllers cover kinds they were not written for.
import type { RestClient } from './rest.js';
import { groupVersionString, type ResourceRef } from './types.js';

/** One served resource (a subresource's name has a "/"), with the group and version it was found in. */
export interface APIResource extends ResourceRef {
  name: string;
  kind: string;
  singularName?: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface APIGroup {
  /** "" for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

interface RawGroupList {
  groups?: { name: string; versions?: { groupVersion: string; version: string }[]; preferredVersion?: { version: string } }[];
}

interface RawResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[]; singularName?: string; shortNames?: string[]; categories?: string[] }[];
}

export interface DiscoveryResult {
  resources: APIResource[];
  /** Group versions whose resource lists could not be read, with why. */
  failed: { groupVersion: string; error: Error }[];
}

export class DiscoveryClient {
  constructor(private readonly rest: RestClient) {}

  /** Every group, the core group first (its versions from /api). */
  async serverGroups(): Promise<APIGroup[]> {
    const [core, named] = await Promise.all([
      this.rest.request<{ versions?: string[] }>({ path: '/api' }),
      this.rest.request<RawGroupList>({ path: '/apis' }),
    ]);
    const groups: APIGroup[] = [];
    const coreVersions = core.versions ?? [];
    if (coreVersions.length) groups.push({ name: '', versions: coreVersions, preferredVersion: coreVersions[0]! });
    for (const group of named.groups ?? []) {
      const versions = (group.versions ?? []).map((v) => v.version);
      if (!versions.length) continue;
      groups.push({ name: group.name, versions, preferredVersion: group.preferredVersion?.version ?? versions[0]! });
    }
    return groups;
  }

  /** The resources (and subresources) of one group version. */
  async serverResources(group: string, version: string): Promise<APIResource[]> {
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const list = await this.rest.request<RawResourceList>({ path });
    return (list.resources ?? []).map((r) => ({
      group,
      version,
      resource: r.name,
      name: r.name,
      kind: r.kind,
      namespaced: r.namespaced,
      verbs: r.verbs ?? [],
      ...(r.singularName && { singularName: r.singularName }),
      ...(r.shortNames && { shortNames: r.shortNames }),
      ...(r.categories && { categories: r.categories }),
    }));
  }

  /**
   * The resources of every group at its preferred version, without subresources. A group version
   * that fails is reported in `failed`; the others are still returned (upstream's partial result).
   */
  async serverPreferredResources(): Promise<DiscoveryResult> {
    const groups = await this.serverGroups();
    const result: DiscoveryResult = { resources: [], failed: [] };
    const lists = await Promise.allSettled(groups.map((g) => this.serverResources(g.name, g.preferredVersion)));
    lists.forEach((list, i) => {
      const group = groups[i]!;
      if (list.status === 'fulfilled') result.resources.push(...list.value.filter((r) => !r.name.includes('/')));
      else result.failed.push({ groupVersion: groupVersionString(group.name, group.preferredVersion), error: list.reason as Error });
    });
    return result;
  }
}

/** Whether a discovered resource answers to every one of `verbs`. */
export const supportsVerbs = (resource: APIResource, ...verbs: string[]): boolean => verbs.every((verb) => resource.verbs.includes(verb));
