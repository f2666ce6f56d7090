// The Table and PartialObjectMetadata representations (conventions 2.4): rows of a kind's columns
// (Name and Created At when it has none), with the object, its metadata or nothing per includeObject.
import { invalid, newBadRequest, newPath } from '@plat/apimachinery';
import type { KubeObject, ResolvedResource, StrategyContext, TableColumn } from '@plat/registry';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  // Upstream's ValidateTableOptions, reported as the Table conversion reports it.
  const error = invalid(newPath('includeObject'), value, "must be 'Metadata', 'Object', 'None', or empty");
  throw newBadRequest(`Unable to convert to Table as requested: ${error.toString()}`);
}

interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const DEFAULT_COLUMNS: Array<ColumnDefinition & { value: (object: KubeObject) => unknown }> = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace. It is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
    priority: 0,
    value: (object) => object.metadata.name ?? '',
  },
  {
    name: 'Created At',
    type: 'date',
    format: '',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    priority: 0,
    value: (object) => object.metadata.creationTimestamp ?? '',
  },
];

function columnsOf(resource: ResolvedResource): Array<ColumnDefinition & { value: (object: KubeObject, context: StrategyContext) => unknown }> {
  const columns = resource.definition.tableColumns as readonly TableColumn<KubeObject>[] | undefined;
  if (!columns?.length) return DEFAULT_COLUMNS;
  return columns.map((column) => ({
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description: column.description,
    priority: column.priority,
    value: column.value,
  }));
}

export function partialObjectMetadata(object: KubeObject, metaGroup: string, version: string): object {
  return { kind: 'PartialObjectMetadata', apiVersion: `${metaGroup}/${version}`, metadata: object.metadata };
}

export interface TableOptions {
  metaGroup: string;
  version: string;
  includeObject: IncludeObject;
  /** Leave out columnDefinitions (watch events after the first). */
  withoutColumns?: boolean;
  listMetadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

/** A Table's fields but its rows, and the row of each object: for writing a long one row by row. */
export interface TableParts {
  head: { kind: 'Table'; apiVersion: string; metadata: object; columnDefinitions: ColumnDefinition[] };
  row(object: KubeObject): object;
}

export function tableParts(resource: ResolvedResource, options: TableOptions): TableParts {
  const columns = columnsOf(resource);
  // The Table's group is meta.<domain>.
  const context: StrategyContext = { domain: options.metaGroup.replace(/^meta\./, '') };
  return {
    head: {
      kind: 'Table',
      apiVersion: `${options.metaGroup}/${options.version}`,
      metadata: options.listMetadata ?? {},
      columnDefinitions: options.withoutColumns ? [] : columns.map(({ value: _value, ...definition }) => definition),
    },
    row(object) {
      const withType = { apiVersion: resource.apiVersion, kind: resource.kind, ...object };
      // A list's object may carry its stored apiVersion (a shared list's objects do): the row says the served one.
      withType.apiVersion = resource.apiVersion;
      withType.kind = resource.kind;
      return {
        cells: columns.map((column) => column.value(withType, context)),
        ...(options.includeObject === 'Object' && { object: withType }),
        ...(options.includeObject === 'Metadata' && {
          object: partialObjectMetadata(withType, options.metaGroup, options.version),
        }),
      };
    },
  };
}

export function toTable(resource: ResolvedResource, objects: readonly KubeObject[], options: TableOptions): object {
  const { head, row } = tableParts(resource, options);
  return { ...head, rows: objects.map(row) };
}
