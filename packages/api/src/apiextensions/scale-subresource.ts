// A custom resource's `scale` subresource (CustomResourceDefinition subresources.scale), served as an
// autoscaling/v1 Scale as upstream's ScaleREST for custom resources serves it: spec.replicas read
// from and written to specReplicasPath, status.replicas and status.selector read from
// statusReplicasPath and labelSelectorPath. The definition builder puts it in a version's
// subresources; the one generic store does the rest.
import { goQuote, newBadRequest, newInternalError, newInvalid } from '@plat/apimachinery';
import type { KindSubresource, KubeObject, TableColumn } from '@plat/registry';
import { scaleKind, type Scale } from '../autoscaling/scale.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { readInt64, readString, validateScaleSpec, writePath, type PathValue } from './schema/index.js';
import type { CustomResourceSubresourceScale } from './types.js';

/**
 * Upstream's mark, in the Scale a write starts from, of a parent without spec replicas: a write
 * that leaves it there has set none, and is refused.
 */
const NO_SPEC_REPLICAS = -2147483648;

/**
 * A path's fields (`.spec.replicas` -> spec, replicas). The definition's validation allows only
 * such simple paths, under .spec for the spec replicas and under .spec or .status for the others:
 * anything else here is a definition that was never validated.
 */
function fieldsOf(path: string, name: string, under: readonly string[]): string[] {
  const fields = path.slice(1).split('.');
  if (!path.startsWith('.') || fields.some((field) => field === '') || !under.includes(fields[0]!) || fields.length < 2) {
    throw new Error(`scale subresource: ${name} ${goQuote(path)} is not a json path under ${under.map((u) => `.${u}`).join(' or ')}`);
  }
  return fields;
}

/** A number as Go's int32() of an int64 makes it: the low 32 bits. */
const int32 = (value: number): number => value | 0;

/**
 * The value a path leads to (undefined when it leads nowhere). Upstream passes a parent's unreadable
 * field on as a plain error, which its handler answers as a 500; so do we, as an InternalError.
 */
function readable(read: PathValue): unknown {
  if (read.error) throw newInternalError(read.error);
  return read.found ? read.value : undefined;
}

const scaleColumns = (now?: () => number): TableColumn<KubeObject>[] => [
  nameColumn(),
  { name: 'Desired', type: 'integer', description: 'Number of desired replicas', priority: 0, value: (scale) => (scale as Scale).spec?.replicas },
  { name: 'Available', type: 'integer', description: 'Number of actual replicas', priority: 0, value: (scale) => (scale as Scale).status?.replicas },
  ageColumn(now),
];

/**
 * The `scale` subresource of a custom resource with these paths (`.spec.replicas`, `.status.replicas`,
 * `.status.selector`). `now` is the clock of the Table's Age column.
 */
export function customResourceScale(paths: CustomResourceSubresourceScale, now?: () => number): KindSubresource<KubeObject> {
  const specPath = paths.specReplicasPath;
  const spec = fieldsOf(specPath, 'specReplicasPath', ['spec']);
  const statusPath = paths.statusReplicasPath;
  fieldsOf(statusPath, 'statusReplicasPath', ['status']);
  const selectorPath = paths.labelSelectorPath;
  if (selectorPath) fieldsOf(selectorPath, 'labelSelectorPath', ['spec', 'status']);

  /** The parent's Scale (upstream's scaleFromCustomResource), `missing` standing for spec replicas it has none of. */
  const scaleOf = (parent: KubeObject, missing: () => number): Scale => {
    const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
    const specReplicas = (readable(readInt64(parent, specPath)) as number | undefined) ?? missing();
    const statusReplicas = (readable(readInt64(parent, statusPath)) as number | undefined) ?? 0;
    const labelSelector = selectorPath ? ((readable(readString(parent, selectorPath)) as string | undefined) ?? '') : '';
    // In Go's field order and with its omitempty: a Scale of 0 replicas has an empty spec.
    return {
      kind: scaleKind.kind,
      apiVersion: `${scaleKind.group}/${scaleKind.version}`,
      metadata: {
        name: name!,
        ...(namespace && { namespace }),
        ...(uid && { uid }),
        ...(resourceVersion && { resourceVersion }),
        creationTimestamp: creationTimestamp!,
      },
      spec: int32(specReplicas) ? { replicas: int32(specReplicas) } : {},
      status: { replicas: int32(statusReplicas), ...(labelSelector && { selector: labelSelector }) },
    };
  };

  return {
    verbs: ['get', 'patch', 'update'],
    servedAs: {
      ...scaleKind,
      tableColumns: scaleColumns(now),
      fromParent: (parent) =>
        scaleOf(parent, () => {
          throw newInternalError(`the spec replicas field ${goQuote(specPath)} does not exist`);
        }),
      writeBase: (parent) => scaleOf(parent, () => NO_SPEC_REPLICAS),
      toParent(object, parent, context) {
        // A Scale without spec replicas means 0, as Go decodes it.
        const replicas = (object as Scale).spec?.replicas ?? 0;
        if (replicas === NO_SPEC_REPLICAS) throw newBadRequest(`the spec replicas field ${goQuote(specPath)} cannot be empty`);
        try {
          writePath(parent, specPath, replicas);
        } catch (error) {
          throw newInternalError(error);
        }
        // The custom resource strategy's check of the replicas it finds at the path (upstream's
        // ValidateScaleSpec), made here too so that any parent refuses what a Scale may not say.
        const errors = validateScaleSpec(parent, paths);
        if (errors.length) throw newInvalid(context.groupKind, context.name, errors);
        return parent;
      },
      fields: [{ field: ['spec', 'replicas'], parentField: spec }],
    },
  };
}
