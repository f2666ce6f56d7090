// ServiceAccount (core v1, namespaced): an identity for processes in pods, with the secrets they may use.
import type { JSONSchema, KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { atomicList, booleanField, objectSchema, stringField } from '../common/schema.js';
import { allVerbs } from '../common/verbs.js';
import { objectReferenceSchema, type ObjectReference } from '../common/object-reference.js';

export interface LocalObjectReference {
  name?: string;
}

export type { ObjectReference };

export interface ServiceAccount extends KubeObject {
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: LocalObjectReference[];
  secrets?: ObjectReference[];
}

const localObjectReferenceSchema: JSONSchema = objectSchema(
  'A reference to an object in the same namespace.',
  { name: stringField('Name of the referent.') },
  { mapType: 'atomic' },
);

export const serviceAccountDefinition = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  resource: 'serviceaccounts',
  singularName: 'serviceaccount',
  shortNames: ['sa'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    'Binds together a name, understood by users and by peripheral systems, for an identity; a principal that can be authenticated and authorized; and a set of secrets.',
    {
      automountServiceAccountToken: booleanField(
        'Whether pods running as this account get an API token mounted automatically; a pod may override it.',
      ),
      imagePullSecrets: atomicList(
        'Secrets in the same namespace used to pull the images of pods that use this account. Not mountable in pods.',
        localObjectReferenceSchema,
      ),
      secrets: {
        type: 'array',
        description:
          'Secrets in the same namespace that pods running as this account may use; enforced only with the enforce-mountable-secrets annotation set to "true". Not for finding token secrets: request tokens through the TokenRequest API.',
        items: objectReferenceSchema,
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      },
    },
  ),
  strategy: {
    prepareForCreate: (account) => keepSecretNamesOnly(account),
    prepareForUpdate: (account) => keepSecretNamesOnly(account),
    // Upstream validates nothing beyond metadata: the references are not resolved.
    validate: () => [],
    validateUpdate: () => [],
  },
  tableColumns: [
    nameColumn<ServiceAccount>(),
    {
      name: 'Secrets',
      type: 'string',
      description: 'Secrets in the same namespace that pods running as this account may use.',
      priority: 0,
      value: (account) => account.secrets?.length ?? 0,
    },
    ageColumn<ServiceAccount>(),
  ],
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.core.v1.ServiceAccount', pointers: ['automountServiceAccountToken'] },
  deleteReturnsObject: true,
} satisfies ResourceDefinition<ServiceAccount>;

/** Secrets are referenced by name in the account's namespace: other parts of a reference are dropped. */
function keepSecretNamesOnly(account: ServiceAccount): void {
  if (account.secrets) account.secrets = account.secrets.map((secret) => (secret.name ? { name: secret.name } : {}));
}
