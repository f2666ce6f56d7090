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
  // A shared list's objects, not its items (which it would make: rows and metadata need neither).
  const objects = listObjects(list)?.objects ?? list.items;
  if (representation.type === 'table') {
    const { head, row } = tableParts(scope.served.resolved, {
      metaGroup: metaGroupOf(scope),
      version: representation.version,
      includeObject: parseIncludeObject(scope.query.string('includeObject')),
      listMetadata: list.metadata,
    });
    return presentMade(scope, head, 'rows', objects, row, transformContentType(scope, 'Table', representation.version));
  }
  if (representation.type === 'partial') {
    const metaGroup = metaGroupOf(scope);
    const head = { kind: 'PartialObjectMetadataList', apiVersion: `${metaGroup}/${representation.version}`, metadata: list.metadata };
    const partial = (item: KubeObject): object => partialObjectMetadata(item, metaGroup, representation.version);
    return presentMade(scope, head, 'items', objects, partial, transformContentType(scope, 'PartialObjectMetadataList', representation.version));
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

/**
 * A Table or a metadata-only list: `head` with its last field `field` made of one entry per object.
 * Long ones are written entry by entry as the client reads (kubectl's every `get` asks for a Table,
 * metadata informers list this way): never the whole object built, nor its text, which for 100,000
 * objects held about 500 MB at once. Audit at RequestResponse gets the whole object, made only then.
 */
function presentMade(scope: VerbScope, head: Record<string, unknown>, field: string, objects: readonly KubeObject[], make: (object: KubeObject) => object, contentType: string): Promise<void> | void {
  const whole = (): object => ({ ...head, [field]: objects.map(make) });
  if (objects.length < STREAMED_LIST_MIN_ITEMS || isPretty(scope.ctx)) return writeObject(scope.ctx, 200, whole(), { compress: scope.compress, contentType });
  scope.ctx.state.audit?.noteResponseObjectMade(whole);
  const entries = jsonArrayStream(jsonUpToArray(head, field), objects.length, (index) => {
    const text = JSON.stringify(make(objects[index]!));
    return { text, length: Buffer.byteLength(text) };
  });
  writeChunks(scope.ctx, 200, entries, { contentType, compress: scope.compress });
}
