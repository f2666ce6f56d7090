// ClusterRoleBinding (rbac.authorization.{domain}/v1, cluster-scoped): grants a ClusterRole to
// subjects in every namespace.
import { nameIsPathSegment } from '@plat/apimachinery';
import type { ResourceDefinition } from '@plat/registry';
import { bindingTableColumns, defaultBinding, validateBinding, validateBindingUpdate, type Binding } from '../common/binding.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { roleRefSchema } from '../common/role-ref.js';
import { atomicList } from '../common/schema.js';
import { subjectSchema } from '../common/subject.js';
import { allVerbs } from '../common/verbs.js';

export type ClusterRoleBinding = Binding;

const roleKinds = ['ClusterRole'] as const;

export const clusterRoleBindingDefinition = {
  group: 'rbac.authorization.{domain}',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { roleRef: {} },
  resource: 'clusterrolebindings',
  singularName: 'clusterrolebinding',
  namespaced: false,
  verbs: allVerbs,
  schema: kindSchema(
    'Grants the permissions of a ClusterRole, cluster-wide, to subjects.',
    {
      subjects: atomicList('The subjects the role applies to.', subjectSchema),
      roleRef: {
        ...roleRefSchema,
        description: 'A ClusterRole in the global namespace. Cannot be changed; an invalid reference is an error for the authorizer.',
      },
    },
    ['roleRef'],
  ),
  validateName: nameIsPathSegment,
  strategy: {
    default: (binding, { domain }) => defaultBinding(binding, domain),
    validate: (binding, { domain }) => validateBinding(binding, false, roleKinds, domain),
    validateUpdate: (binding, old, { domain }) => validateBindingUpdate(binding, old, false, roleKinds, domain),
  },
  tableColumns: bindingTableColumns<ClusterRoleBinding>(),
  allowCreateOnUpdate: true,
  protobuf: { message: 'k8s.io.api.rbac.v1.ClusterRoleBinding' },
} satisfies ResourceDefinition<ClusterRoleBinding>;
