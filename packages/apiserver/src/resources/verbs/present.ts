// Responses in the representation the client negotiated: the object or list itself, a Table, or
// metadata only (PartialObjectMetadata / PartialObjectMetadataList).
import { listObjects, type KubeObject, type ObjectList } from '@plat/registry';
import { STREAMED_LIST_MIN_ITEMS, jsonArrayStream, jsonUpToArray } from '../list-stream.js';
import { isPretty, writeChunks, writeObject } from '../respond.js';
import { parseIncludeObject, partialObjectMetadata, tableParts, toTable } from '../table.js';
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
    const options = {
      metaGroup: metaGroupOf(scope),
      version: representation.version,
      includeObject: parseIncludeObject(scope.query.string('includeObject')),
      listMetadata: list.metadata,
    };
    const contentType = transformContentType(scope, 'Table', representation.version);
    // A shared list's objects, not its items (which it would make: rows need neither).
    const items = listObjects(list)?.objects ?? list.items;
    if (items.length >= STREAMED_LIST_MIN_ITEMS && !isPretty(scope.ctx)) {
      // Row by row as the client reads (kubectl's every `get` asks for a Table): never the whole
      // Table built, nor its text, which for 100,000 objects held about 500 MB at once.
      scope.ctx.state.audit?.noteResponseObjectMade(() => toTable(scope.served.resolved, items, options));
      const { head, row } = tableParts(scope.served.resolved, options);
      const rows = jsonArrayStream(jsonUpToArray(head, 'rows'), items.length, (index) => {
        const text = JSON.stringify(row(items[index]!));
        return { text, length: Buffer.byteLength(text) };
      });
      return writeChunks(scope.ctx, 200, rows, { contentType, compress: scope.compress });
    }
    const table = toTable(scope.served.resolved, items, options);
    return writeObject(scope.ctx, 200, table, { compress: scope.compress, contentType });
  }
  if (representation.type === 'partial') {
    const metaGroup = metaGroupOf(scope);
    const head = { kind: 'PartialObjectMetadataList', apiVersion: `${metaGroup}/${representation.version}`, metadata: list.metadata };
    const partial = (item: KubeObject): object => partialObjectMetadata(item, metaGroup, representation.version);
    const contentType = transformContentType(scope, 'PartialObjectMetadataList', representation.version);
    const items = listObjects(list)?.objects ?? list.items;
    if (items.length >= STREAMED_LIST_MIN_ITEMS && !isPretty(scope.ctx)) {
      // Metadata informers (the garbage collector's, the namespace controller's) list this way.
      scope.ctx.state.audit?.noteResponseObjectMade(() => ({ ...head, items: items.map(partial) }));
      const stream = jsonArrayStream(jsonUpToArray(head, 'items'), items.length, (index) => {
        const text = JSON.stringify(partial(items[index]!));
        return { text, length: Buffer.byteLength(text) };
      });
      return writeChunks(scope.ctx, 200, stream, { contentType, compress: scope.compress });
    }
    return writeObject(scope.ctx, 200, { ...head, items: items.map(partial) }, { compress: scope.compress, contentType });
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
