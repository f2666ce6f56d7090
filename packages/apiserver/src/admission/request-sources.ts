// What the admission chain's request view reads of this server: namespaces through the catalog's
// store (the watch cache's copy first), the resources that serve the same stored objects, and
// conversion between the versions of a resource.
import type { RequestViewSources } from '@plat/admission';
import type { EquivalentResource } from '@plat/api';
import type { ResolvedResource } from '@plat/registry';
import type { ResourceCatalog } from '@plat/endpoints';

export function catalogRequestSources(catalog: ResourceCatalog): RequestViewSources {
  const namespaces = () => catalog.store('', 'v1', 'namespaces');
  return {
    peekNamespace: (name) => namespaces().peek('', name),
    getNamespace: (name) => namespaces().get('', name),
    equivalents: (resource, subresource) => equivalentResources(catalog, resource, subresource),
    convert: async (object, from, to) => {
      const source = catalog.find(from.group, from.version, from.resource);
      const target = catalog.find(to.group, to.version, to.resource);
      return source && target ? source.store.convertTo(object, target.store) : undefined;
    },
  };
}

/** The resources that serve the same stored objects as `resource` (upstream's equivalent resources), with `subresource` where one is asked. */
function equivalentResources(catalog: ResourceCatalog, resource: ResolvedResource, subresource: string): EquivalentResource[] {
  const prefix = resource.prefix('');
  return catalog
    .all()
    .filter(({ resolved }) => resolved.prefix('') === prefix && (!subresource || resolved.definition.subresources?.[subresource]))
    .map(({ resolved }) => {
      const kind = subresource ? (resolved.subresourceKinds.get(subresource) ?? resolved) : resolved;
      return { group: resolved.group, version: resolved.version, resource: resolved.resource, kind: { group: kind.group, version: kind.version, kind: kind.kind } };
    });
}
