// Responses in the representation the client negotiated: the object or list itself, a Table, or
// metadata only (PartialObjectMetadata / PartialObjectMetadataList).
import type { KubeObject, ObjectList } from '@plat/registry';
import { writeObject } from '../respond.js';
import { parseIncludeObject, partialObjectMetadata, toTable } from '../table.js';
import type { VerbScope } from './scope.js';

const metaGroupOf = (scope: VerbScope): string => `meta.${scope.services.domain}`;

function transformContentType(scope: VerbScope, as: string, version: string): string {
  return `application/json;as=${as};g=${metaGroupOf(scope)};v=${version}`;
}

export async function presentObject(scope: VerbScope, code: number, object: KubeObject): Promise<void> {
  const { representation } = scope;
  if (representation.type === 'table') {
    const table = toTable(scope.served.resolved, [object], {
      metaGroup: metaGroupOf(scope),
      version: representation.version,
      includeObject: parseIncludeObject(scope.query.string('includeObject')),
    });
    return writeObject(scope.ctx, code, table, { contentType: transformContentType(scope, 'Table', representation.version) });
  }
  if (representation.type === 'partial') {
    const partial = partialObjectMetadata(object, metaGroupOf(scope), representation.version);
    return writeObject(scope.ctx, code, partial, {
      contentType: transformContentType(scope, 'PartialObjectMetadata', representation.version),
    });
  }
  return writeObject(scope.ctx, code, object, { representation, compress: scope.compress });
}

export async function presentList(scope: VerbScope, list: ObjectList<KubeObject>): Promise<void> {
  const { representation } = scope;
  if (representation.type === 'table') {
    const table = toTable(scope.served.resolved, list.items, {
      metaGroup: metaGroupOf(scope),
      version: representation.version,
      includeObject: parseIncludeObject(scope.query.string('includeObject')),
      listMetadata: list.metadata,
    });
    return writeObject(scope.ctx, 200, table, {
      compress: scope.compress,
      contentType: transformContentType(scope, 'Table', representation.version),
    });
  }
  if (representation.type === 'partial') {
    const metaGroup = metaGroupOf(scope);
    const partial = {
      kind: 'PartialObjectMetadataList',
      apiVersion: `${metaGroup}/${representation.version}`,
      metadata: list.metadata,
      items: list.items.map((item) => partialObjectMetadata(item, metaGroup, representation.version)),
    };
    return writeObject(scope.ctx, 200, partial, {
      compress: scope.compress,
      contentType: transformContentType(scope, 'PartialObjectMetadataList', representation.version),
    });
  }
  // The registry's list items are shared and unchanging (its list-item.ts).
  const resource = scope.served.resolved.prefix('');
  return writeObject(scope.ctx, 200, list, {
    representation,
    compress: scope.compress,
    sharedItems: true,
    onListJsonSize: (bytes, items) => scope.services.listBudget.learn(resource, bytes, items),
  });
}
