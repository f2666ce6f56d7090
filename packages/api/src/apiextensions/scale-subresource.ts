// A custom resource's `scale` subresource (CustomResourceDefinition subresources.scale), served as an
// autoscaling/v1 Scale as upstream's ScaleREST for custom resources serves it: spec.replicas read
// from and written to specReplicasPath, status.replicas and status.selector read from
// statusReplicasPath and labelSelectorPath. The definition builder puts it in a version's
// subresources; the one generic store does the rest.
import { goQuote, invalid, newBadRequest, newInternalError, newInvalid, newPath } from '@plat/apimachinery';
import type { KindSubresource, KubeObject, TableColumn } from '@plat/registry';
import { scaleKind, type Scale } from '../autoscaling/scale.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { nestedInteger, nestedString, NestedFieldError, setNestedField } from './nested-field.js';
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
 * Upstream passes a parent's unreadable field on as a plain error, which its handler answers as a
 * 500; so do we, as an InternalError.
 */
function readable<V>(read: () => V): V {
  try {
    return read();
  } catch (error) {
    if (error instanceof NestedFieldError) throw newInternalError(error);
    throw error;
  }
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
  const status = fieldsOf(paths.statusReplicasPath, 'statusReplicasPath', ['status']);
  const selector = paths.labelSelectorPath ? fieldsOf(paths.labelSelectorPath, 'labelSelectorPath', ['spec', 'status']) : undefined;

  /** The parent's Scale (upstream's scaleFromCustomResource), `missing` standing for spec replicas it has none of. */
  const scaleOf = (parent: KubeObject, missing: () => number): Scale => {
    const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
    const specReplicas = readable(() => nestedInteger(parent, spec)) ?? missing();
    const statusReplicas = readable(() => nestedInteger(parent, status)) ?? 0;
    const labelSelector = selector ? (readable(() => nestedString(parent, selector)) ?? '') : '';
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
        // Upstream's custom resource validation of the replicas it finds at the path.
        if (replicas < 0) throw newInvalid(context.groupKind, context.name, [invalid(newPath(specPath), replicas, 'should be a non-negative integer')]);
        try {
          setNestedField(parent, replicas, spec);
        } catch (error) {
          throw error instanceof NestedFieldError ? newInternalError(error) : error;
        }
        return parent;
      },
      fields: [{ field: ['spec', 'replicas'], parentField: spec }],
    },
  };
}
