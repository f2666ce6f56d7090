// CustomResourceDefinition (apiextensions.{domain}/v1, cluster-scoped): a kind users add to the API.
// Its strategy is upstream's: v1 defaults, the server's status (names accepted and conditions are
// the definitions' controller's, apiserver/src/apiextensions), generation counting spec changes,
// and on the first delete the cleanup finalizer the controller-manager removes once the custom
// objects are gone (none for a definition of a built-in group, which has none).
import { formatTimestamp, type ResourceDefinition } from '@plat/registry';
import { allVerbs } from '../common/verbs.js';
import { setCondition } from './conditions.js';
import {
  prepareCustomResourceDefinitionForCreate,
  prepareCustomResourceDefinitionForUpdate,
  prepareCustomResourceDefinitionStatusUpdate,
  setCustomResourceDefinitionDefaults,
} from './crd-defaults.js';
import { customResourceDefinitionSchema } from './crd-schema.js';
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionName,
  validateCustomResourceDefinitionStatus,
  validateCustomResourceDefinitionUpdate,
} from './crd-validation.js';
import type { CustomResourceDefinition } from './types.js';

/** The finalizer a CRD's deletion waits on: its custom objects are deleted first. */
export const customResourceCleanupFinalizer = (domain: string): string => `customresourcecleanup.apiextensions.${domain}`;

/** What the server tells the kind: which API groups its built-in kinds have (resolved: `rbac.authorization.plat.io`). */
export interface CustomResourceDefinitionSettings {
  builtInGroup(group: string): boolean;
}

export const customResourceDefinitionDefinition = ({ builtInGroup }: CustomResourceDefinitionSettings) => ({
  group: 'apiextensions.{domain}',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  resource: 'customresourcedefinitions',
  singularName: 'customresourcedefinition',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  namespaced: false,
  verbs: allVerbs,
  schema: customResourceDefinitionSchema,
  validateName: (name, prefix, crd) => validateCustomResourceDefinitionName(name, prefix, crd),
  strategy: {
    // The generation is the strategy's own: it counts changes of the spec by upstream's equality.
    prepareForCreate: (crd) => prepareCustomResourceDefinitionForCreate(crd),
    prepareForUpdate: (crd, old) => prepareCustomResourceDefinitionForUpdate(crd, old),
    default: (crd) => setCustomResourceDefinitionDefaults(crd),
    validate: (crd, { domain }) => validateCustomResourceDefinition(crd, { domain }),
    validateUpdate: (crd, old, { domain }) => validateCustomResourceDefinitionUpdate(crd, old, { domain }),
    // A definition of a built-in group was never served (upstream's handlers claim every path of
    // such a group): there is nothing of it to clean up, and a cleanup through the API would reach
    // the built-in kind where the group, version and resource are the same (all its objects).
    deletionFinalizers: ({ domain }, crd) => (builtInGroup(crd.spec.group) ? [] : [customResourceCleanupFinalizer(domain)]),
    prepareForDeletion(crd) {
      setCondition(
        crd,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
        formatTimestamp(new Date()),
      );
    },
  },
  subresources: {
    status: {
      // Upstream keeps only the spec: its reset of the metadata resets it from itself.
      merge(crd, old) {
        prepareCustomResourceDefinitionStatusUpdate(crd, old);
        return crd;
      },
      validateUpdate: (crd) => validateCustomResourceDefinitionStatus(crd),
    },
  },
  // No columns of its own: Name and Created At, as upstream.
  allowCreateOnUpdate: false,
  protobuf: {
    message: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    // The scalar pointers of upstream's types.go (its pointer messages are kept whenever on the
    // wire); JSONSchemaProps' rules are the codec's own.
    pointers: [
      'spec.versions.deprecationWarning',
      'spec.versions.subresources.scale.labelSelectorPath',
      'spec.conversion.webhook.clientConfig.url',
      'spec.conversion.webhook.clientConfig.service.path',
      'spec.conversion.webhook.clientConfig.service.port',
    ],
  },
}) satisfies ResourceDefinition<CustomResourceDefinition>;
