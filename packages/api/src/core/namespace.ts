// Namespace (core v1, cluster-scoped): a scope for names. Deleting one is a process: it turns
// Terminating, a controller empties it, then removes its spec.finalizers, and only then it goes away.
import { invalid, isQualifiedName, nameIsDNSLabel, newPath, type FieldError, type FieldPath } from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition, SubresourceDefinition } from '@plat/registry';
import { wellKnownPrefix } from '../common/domain.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicStringList, objectSchema, stringField, timeField } from '../common/schema.js';
import { ageColumn, nameColumn } from '../common/table.js';

export type NamespacePhase = 'Active' | 'Terminating';

export interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NamespaceSpec {
  finalizers?: string[];
}

export interface NamespaceStatus {
  phase?: NamespacePhase;
  conditions?: NamespaceCondition[];
}

export interface Namespace extends KubeObject {
  spec?: NamespaceSpec;
  status?: NamespaceStatus;
}

/**
 * The finalizer the namespace controller removes once a namespace is empty: "kubernetes" under the
 * k8s.io domain, otherwise the domain's first label ("plat").
 */
export const namespaceFinalizer = (domain: string): string => (domain === 'k8s.io' ? 'kubernetes' : domain.split('.')[0]!);

/** The label every namespace carries with its own name, for selecting namespaces by name. */
const namespaceNameLabel = (domain: string): string => `${wellKnownPrefix(domain)}/metadata.name`;

const namespaceConditionSchema: JSONSchema = objectSchema(
  'The state of a namespace at a point in time.',
  {
    type: stringField('Type of namespace controller condition.'),
    status: stringField('Status of the condition: True, False or Unknown.'),
    lastTransitionTime: timeField('When the condition last changed status.'),
    reason: stringField("Unique, one-word, CamelCase reason for the condition's last transition."),
    message: stringField('Human-readable message about the last transition.'),
  },
  { required: ['type', 'status'] },
);

const namespaceSchema = kindSchema('A scope for names. Deleting a namespace deletes everything in it.', {
  spec: objectSchema('How the namespace behaves.', {
    finalizers: atomicStringList(
      'Opaque values that must be empty before the namespace is removed from storage; the namespace controller removes its own once the namespace is empty.',
    ),
  }),
  status: objectSchema('Information about the namespace, maintained by the server.', {
    phase: stringField('The lifecycle phase of the namespace: Active or Terminating.'),
    conditions: {
      type: 'array',
      description: 'The latest available observations of the namespace state.',
      items: namespaceConditionSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    },
  }),
});

// A finalizer without a "/" must be one of the well-known ones.
function validateFinalizerName(name: string, path: FieldPath, domain: string): FieldError[] {
  const errors = isQualifiedName(name).map((message) => invalid(path, name, message));
  const standard = [namespaceFinalizer(domain), 'orphan', 'foregroundDeletion'];
  if (!name.includes('/') && !standard.includes(name)) {
    errors.push(invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errors;
}

// Upstream reports the main resource's finalizers at `spec.finalizers` without an index.
const validateNamespace = (namespace: Namespace, domain: string): FieldError[] =>
  (namespace.spec?.finalizers ?? []).flatMap((name) => validateFinalizerName(name, newPath('spec', 'finalizers'), domain));

/** `object` with one top-level part taken from `old` (left out where `old` has none). */
function keepingPart<K extends 'spec' | 'status'>(object: Namespace, old: Namespace, part: K): Namespace {
  const merged = { ...object };
  if (old[part] === undefined) delete merged[part];
  else merged[part] = old[part];
  return merged;
}

// As upstream's status and finalize strategies, each keeps the other part from the stored object
// and takes the rest, metadata included, from the request (the store keeps what is server-owned).
const statusSubresource: SubresourceDefinition<Namespace> = {
  merge: (object, old) => keepingPart(object, old, 'spec'),
  // The phase follows deletion. The path `status.Phase` is upstream's, capital P included.
  validateUpdate: (namespace) => {
    const phase = namespace.status?.phase ?? '';
    const path = newPath('status', 'Phase');
    if (!namespace.metadata.deletionTimestamp) {
      return phase === 'Active' ? [] : [invalid(path, phase, "may only be 'Active' if `deletionTimestamp` is empty")];
    }
    return phase === 'Terminating' ? [] : [invalid(path, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  },
};

const finalizeSubresource: SubresourceDefinition<Namespace> = {
  // Upstream's finalize storage only updates: no GET or PATCH route.
  verbs: ['update'],
  merge: (object, old) => keepingPart(object, old, 'status'),
  validateUpdate: (namespace, _old, { domain }) =>
    (namespace.spec?.finalizers ?? []).flatMap((name, i) =>
      validateFinalizerName(name, newPath('spec', 'finalizers').index(i), domain),
    ),
};

export const namespaceDefinition = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { spec: {}, status: {} },
  resource: 'namespaces',
  singularName: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  // Upstream serves no deletecollection for namespaces.
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  schema: namespaceSchema,
  validateName: nameIsDNSLabel,
  strategy: {
    prepareForCreate(namespace, { domain }) {
      namespace.status = { phase: 'Active' };
      // Required on create; the controller removes it over the namespace's life, so it is not a default.
      const finalizer = namespaceFinalizer(domain);
      const finalizers = namespace.spec?.finalizers ?? [];
      if (!finalizers.includes(finalizer)) namespace.spec = { ...namespace.spec, finalizers: [...finalizers, finalizer] };
    },
    prepareForUpdate(namespace, old) {
      // spec.finalizers change only through /finalize, status only through /status.
      const finalizers = old.spec?.finalizers;
      namespace.spec = { ...namespace.spec };
      if (finalizers) namespace.spec.finalizers = finalizers;
      else delete namespace.spec.finalizers;
      if (old.status) namespace.status = old.status;
      else delete namespace.status;
    },
    default(namespace, { domain }) {
      if (namespace.status && !namespace.status.phase) namespace.status.phase = 'Active';
      const name = namespace.metadata.name;
      if (name) namespace.metadata.labels = { ...namespace.metadata.labels, [namespaceNameLabel(domain)]: name };
    },
    validate: (namespace, { domain }) => validateNamespace(namespace, domain),
    validateUpdate: (namespace, _old, { domain }) => validateNamespace(namespace, domain),
    hasPendingFinalizers: (namespace) =>
      (namespace.metadata.finalizers?.length ?? 0) > 0 || (namespace.spec?.finalizers?.length ?? 0) > 0,
    prepareForDeletion(namespace) {
      namespace.status = { ...namespace.status, phase: 'Terminating' };
    },
  },
  selectableFields: (namespace) => ({
    'status.phase': namespace.status?.phase ?? '',
    // Upstream keeps this unqualified field for compatibility.
    name: namespace.metadata.name ?? '',
  }),
  tableColumns: [
    nameColumn<Namespace>(),
    {
      name: 'Status',
      type: 'string',
      description: 'The status of the namespace',
      priority: 0,
      value: (namespace) => namespace.status?.phase ?? '',
    },
    ageColumn<Namespace>(),
  ],
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.core.v1.Namespace' },
  subresources: { status: statusSubresource, finalize: finalizeSubresource },
} satisfies ResourceDefinition<Namespace>;
