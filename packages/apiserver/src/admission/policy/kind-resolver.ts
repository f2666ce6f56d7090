// The catalog's kinds, with their schemas, as a policy's type checking looks them up.
import type { KindResolver, TypedKind } from '@plat/api';
import type { ResourceCatalog, ServedResource } from '@plat/endpoints';

function typed(served: ServedResource | undefined): TypedKind | undefined {
  if (!served) return undefined;
  const { group, version, kind, definition } = served.resolved;
  return { group, version, kind, schema: definition.unstructured?.openAPIV3Schema ?? definition.schema };
}

export function catalogKinds(catalog: ResourceCatalog): KindResolver {
  return {
    byResource: (group, version, resource) => typed(catalog.find(group, version, resource)),
    byKind: (group, version, kind) =>
      typed(catalog.all().find((s) => s.resolved.group === group && s.resolved.version === version && s.resolved.kind === kind && !s.resolved.definition.virtual)),
  };
}
