// RoleBinding (rbac.authorization.{domain}/v1, namespaced): grants a Role, or a ClusterRole's rules,
// to subjects within the binding's namespace.
import { nameIsPathSegment } from '@plat/apimachinery';
import type { ResourceDefinition } from '@plat/registry';
import { bindingTableColumns, defaultBinding, validateBinding, validateBindingUpdate, type Binding } from '../common/binding.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { roleRefSchema } from '../common/role-ref.js';
import { atomicList } from '../common/schema.js';
import { subjectSchema } from '../common/subject.js';
import { allVerbs } from '../common/verbs.js';

export type RoleBinding = Binding;

const roleKinds = ['Role', 'ClusterRole'] as const;

export const roleBindingDefinition = {
  group: 'rbac.authorization.{domain}',
  version: 'v1',
  kind: 'RoleBinding',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { roleRef: {} },
  resource: 'rolebindings',
  singularName: 'rolebinding',
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    "Grants the permissions of a Role in the binding's namespace, or of a ClusterRole within that namespace, to subjects.",
    {
      subjects: atomicList('The subjects the role applies to.', subjectSchema),
      roleRef: {
        ...roleRefSchema,
        description: 'A Role in the current namespace or a ClusterRole. Cannot be changed; an invalid reference is an error for the authorizer.',
      },
    },
    ['roleRef'],
  ),
  validateName: nameIsPathSegment,
  strategy: {
    default: (binding, { domain }) => defaultBinding(binding, domain),
    validate: (binding, { domain }) => validateBinding(binding, true, roleKinds, domain),
    validateUpdate: (binding, old, { domain }) => validateBindingUpdate(binding, old, true, roleKinds, domain),
  },
  tableColumns: bindingTableColumns<RoleBinding>(),
  allowCreateOnUpdate: true,
  protobuf: { message: 'k8s.io.api.rbac.v1.RoleBinding' },
} satisfies ResourceDefinition<RoleBinding>;
