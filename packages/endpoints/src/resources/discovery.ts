// Discovery (/api, /apis, /apis/{group}, the group-version resource lists) and the
// aggregated discovery document kubectl 1.28 asks for first, with the plain documents as fallback.
//
// Custom resources of a built-in group are listed as upstream 1.28 lists them, though nothing
// serves them (catalog.listUnserved): upstream's plain /apis and /apis/<group> come from the
// aggregator's APIServices, where the CRD registration controller gives every version a CRD
// serves priority 1000/100 (replacing a built-in version's own APIService of the same name), so
// those versions come first and a group all of whose versions were replaced sorts among the custom
// groups; the aggregated document keeps a built-in version's own resources and priority (the
// built-in source wins) and adds a new version, with the CRD's resources, before the built-in ones.
// /apis/<group>/<version> lists only built-in resources: the built-in handlers answer it.
import { compareKubeVersions } from '@plat/apimachinery';
import { DEFAULT_SUBRESOURCE_VERBS, type KubeObject, type ResolvedResource, type SubresourceDefinition, type Verb } from '@plat/registry';
import type { Handler, RequestContext } from '@plat/filters';
import type { GroupVersions, ResourceCatalog, ServedResource } from './catalog.js';
import { parseAccept } from './negotiation.js';
import { writeObject } from './respond.js';


/** The verbs a subresource serves: its own list, else upstream's status and scale verbs (GET, PUT, PATCH). */
export const subresourceVerbs = (definition: SubresourceDefinition<KubeObject>): Verb[] => [...(definition.verbs ?? DEFAULT_SUBRESOURCE_VERBS)];

const groupVersion = (group: string, version: string): string => (group ? `${group}/${version}` : version);

/** A subresource served by a kind of another group (serviceaccounts/token is a TokenRequest). */
export interface ForeignSubresource {
  parent: { group: string; version: string; resource: string };
  subresource: string;
  resolved: ResolvedResource;
  verbs: Verb[];
}

function foreignEntries(served: readonly ServedResource[], foreign: readonly ForeignSubresource[]): ForeignSubresource[] {
  return foreign.filter(({ parent }) => served.some(({ resolved }) => resolved.group === parent.group && resolved.version === parent.version && resolved.resource === parent.resource));
}

function apiResources(served: readonly ServedResource[], foreign: readonly ForeignSubresource[] = []): unknown[] {
  const out: unknown[] = [];
  for (const { resolved } of served) {
    const { definition } = resolved;
    out.push({
      name: resolved.resource,
      singularName: definition.singularName,
      namespaced: resolved.namespaced,
      kind: resolved.kind,
      verbs: [...definition.verbs],
      ...(definition.shortNames?.length && { shortNames: [...definition.shortNames] }),
      ...(definition.categories?.length && { categories: [...definition.categories] }),
    });
    for (const [subresource, subresourceDefinition] of Object.entries(definition.subresources ?? {})) {
      // One served as another kind names its group and version (scale: autoscaling/v1 Scale), which
      // is how kubectl's scale client learns what to expect.
      const kind = resolved.subresourceKinds.get(subresource);
      out.push({
        name: `${resolved.resource}/${subresource}`,
        singularName: '',
        namespaced: resolved.namespaced,
        ...(kind && { group: kind.group, version: kind.version }),
        kind: (kind ?? resolved).kind,
        verbs: subresourceVerbs(subresourceDefinition),
      });
    }
    // Listed as upstream lists them, answered 501 (dispatch.ts).
    for (const [subresource, { kind, verbs }] of Object.entries(definition.notImplementedSubresources ?? {})) {
      out.push({ name: `${resolved.resource}/${subresource}`, singularName: '', namespaced: resolved.namespaced, kind, verbs: [...verbs] });
    }
  }
  for (const { parent, subresource, resolved, verbs } of foreignEntries(served, foreign)) {
    const owner = served.find(({ resolved: r }) => r.resource === parent.resource)!.resolved;
    out.push({
      name: `${parent.resource}/${subresource}`,
      singularName: '',
      namespaced: owner.namespaced,
      group: resolved.group,
      version: resolved.version,
      kind: resolved.kind,
      verbs,
    });
  }
  return out;
}

function discoveredResources(resources: readonly ResolvedResource[], foreign: readonly ForeignSubresource[] = []): unknown[] {
  return resources.map((resolved) => {
    const { definition } = resolved;
    const responseKind = { group: resolved.group, version: resolved.version, kind: resolved.kind };
    const subresources = Object.entries(definition.subresources ?? {});
    const others = foreign.filter(({ parent }) => parent.group === resolved.group && parent.version === resolved.version && parent.resource === resolved.resource);
    return {
      resource: resolved.resource,
      responseKind,
      scope: resolved.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: definition.singularName,
      verbs: [...definition.verbs],
      ...(definition.shortNames?.length && { shortNames: [...definition.shortNames] }),
      ...(definition.categories?.length && { categories: [...definition.categories] }),
      ...((subresources.length || others.length) && {
        subresources: [
          ...subresources.map(([subresource, sub]) => {
            const kind = resolved.subresourceKinds.get(subresource);
            return {
              subresource,
              responseKind: kind ? { group: kind.group, version: kind.version, kind: kind.kind } : responseKind,
              verbs: subresourceVerbs(sub),
            };
          }),
          ...others.map(({ subresource, resolved: r, verbs }) => ({
            subresource,
            responseKind: { group: r.group, version: r.version, kind: r.kind },
            verbs,
          })),
          ...Object.entries(definition.notImplementedSubresources ?? {}).map(([subresource, { kind, verbs }]) => ({
            subresource,
            responseKind: { group: resolved.group, version: resolved.version, kind },
            verbs: [...verbs],
          })),
        ],
      }),
    };
  });
}

export class Discovery {
  private readonly aggregatedGroup: string;

  constructor(
    private readonly catalog: ResourceCatalog,
    domain: string,
    private readonly foreign: readonly ForeignSubresource[] = [],
  ) {
    this.aggregatedGroup = `apidiscovery.${domain}`;
  }

  private namedGroups(): [string, GroupVersions][] {
    return this.catalog.groups().filter(([group]) => group !== '');
  }

  /**
   * The versions of a group as upstream's APIServices order them (plain discovery): those a custom
   * resource names (priority 100) first, by Kubernetes' version order, then the built-in ones.
   */
  private plainVersions(group: string, versions: GroupVersions): string[] {
    if (!this.catalog.isBuiltInGroup(group)) return [...versions.keys()];
    const named = [...this.catalog.unservedVersions(group).keys()].sort(compareKubeVersions);
    return [...named, ...[...versions.keys()].filter((version) => !named.includes(version))];
  }

  /**
   * The versions of a group in the aggregated document, with their resources: a built-in version
   * keeps its own, a new version of a built-in group comes first with its custom resources.
   */
  private aggregatedVersions(group: string, versions: GroupVersions): [string, ResolvedResource[]][] {
    const builtIn = [...versions].map(([version, served]): [string, ResolvedResource[]] => [version, served.map(({ resolved }) => resolved)]);
    if (!this.catalog.isBuiltInGroup(group)) return builtIn;
    const added = [...this.catalog.unservedVersions(group)].filter(([version]) => !versions.has(version));
    added.sort(([a], [b]) => compareKubeVersions(a, b));
    return [...added, ...builtIn];
  }

  /**
   * The groups of plain /apis in upstream's order: by their APIServices' priority, the built-in
   * groups first; those at a custom resource's (every custom group, and a built-in one all of whose
   * versions a custom resource names) by the first of their APIServices' names (`<version>.<group>`).
   */
  private plainGroups(): { group: string; versions: string[] }[] {
    const first: { group: string; versions: string[] }[] = [];
    const low: { group: string; versions: string[]; key: string }[] = [];
    for (const [group, versions] of this.namedGroups()) {
      const listed = this.plainVersions(group, versions);
      const named = this.catalog.unservedVersions(group);
      const builtIn = this.catalog.isBuiltInGroup(group);
      if (builtIn && ![...versions.keys()].every((version) => named.has(version))) {
        first.push({ group, versions: listed });
        continue;
      }
      const key = listed.map((version) => `${version}.${group}`).sort()[0]!;
      low.push({ group, versions: listed, key });
    }
    low.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return [...first, ...low];
  }

  private groupDocument(group: string, versions: readonly string[]): unknown {
    const list = versions.map((version) => ({ groupVersion: groupVersion(group, version), version }));
    return { name: group, versions: list, preferredVersion: list[0] };
  }

  /** The aggregated media type version the client asked for (v2 or v2beta1), if any. */
  private aggregatedVersion(ctx: RequestContext): string | undefined {
    for (const range of parseAccept(ctx.get('accept'))) {
      const { g, v, as } = range.params;
      if (range.type === 'application/json' && as === 'APIGroupDiscoveryList' && g === this.aggregatedGroup && (v === 'v2' || v === 'v2beta1')) {
        return v;
      }
      if (range.type === 'application/json' && as === undefined) return undefined;
    }
    return undefined;
  }

  private async writeAggregated(ctx: RequestContext, version: string, groups: [string, GroupVersions][]): Promise<void> {
    await writeObject(ctx, 200, {
      kind: 'APIGroupDiscoveryList',
      apiVersion: `${this.aggregatedGroup}/${version}`,
      metadata: {},
      items: groups.map(([group, versions]) => ({
        metadata: { name: group, creationTimestamp: null },
        versions: this.aggregatedVersions(group, versions).map(([v, resources]) => ({ version: v, resources: discoveredResources(resources, this.foreign), freshness: 'Current' })),
      })),
    });
    ctx.set('Content-Type', `application/json;g=${this.aggregatedGroup};v=${version};as=APIGroupDiscoveryList`);
    ctx.set('Vary', 'Accept');
  }

  private readonly root: Record<string, Handler> = {
    '/api': async (ctx) => {
      const core = this.catalog.group('');
      const aggregated = this.aggregatedVersion(ctx);
      if (aggregated) return this.writeAggregated(ctx, aggregated, core ? [['', core]] : []);
      await writeObject(ctx, 200, {
        kind: 'APIVersions',
        versions: core ? [...core.keys()] : [],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: ctx.host }],
      });
    },
    '/apis': async (ctx) => {
      const aggregated = this.aggregatedVersion(ctx);
      if (aggregated) return this.writeAggregated(ctx, aggregated, this.namedGroups());
      await writeObject(ctx, 200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: this.plainGroups().map(({ group, versions }) => this.groupDocument(group, versions)),
      });
    },
  };

  /**
   * The handler of a discovery path (/api, /apis, /apis/{group}, /api/v1, /apis/{group}/{version}),
   * looked up in the catalog as it is when the request comes: resources added or removed since
   * start-up are found or not found.
   */
  handlerFor(path: string): Handler | undefined {
    const root = this.root[path];
    if (root) return root;
    const parts = path.split('/');
    // ['', 'api', version] or ['', 'apis', group] or ['', 'apis', group, version]
    if (parts[0] !== '' || parts.some((part, i) => i > 0 && part === '')) return undefined;
    const [, prefix, first, second] = parts;
    if (prefix === 'api' && parts.length === 3) return this.versionHandler('', first!);
    if (prefix !== 'apis' || !first) return undefined;
    if (parts.length === 3) {
      const versions = this.catalog.group(first);
      if (!versions || first === '') return undefined;
      return (ctx) => writeObject(ctx, 200, { kind: 'APIGroup', apiVersion: 'v1', ...(this.groupDocument(first, this.plainVersions(first, versions)) as object) });
    }
    if (parts.length === 4) return this.versionHandler(first, second!);
    return undefined;
  }

  private versionHandler(group: string, version: string): Handler | undefined {
    const served = this.catalog.group(group)?.get(version);
    if (!served) return undefined;
    return (ctx) =>
      writeObject(ctx, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: groupVersion(group, version),
        resources: apiResources(served, this.foreign),
      });
  }
}
