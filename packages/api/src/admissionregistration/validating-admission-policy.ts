// ValidatingAdmissionPolicy (admissionregistration.{domain}, cluster-scoped; v1beta1 and v1alpha1 in
// Kubernetes 1.28, neither served unless --runtime-config enables it): CEL expressions that requests
// must pass, enforced through its bindings by the ValidatingAdmissionPolicy admission plugin. Its
// strategy is upstream's: the generation counts spec changes, the status is the server's (written
// through the status subresource, apiserver's admission/policy/status-controller.ts).
import { isDeepStrictEqual } from 'node:util';
import type { ResourceDefinition } from '@plat/registry';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { setPolicyDefaults } from './defaults.js';
import { validatingAdmissionPolicySchema } from './schema.js';
import type { ValidatingAdmissionPolicy } from './types.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyStatus, validateValidatingAdmissionPolicyUpdate } from './validation.js';

export type PolicyVersion = 'v1beta1' | 'v1alpha1';

export function validatingAdmissionPolicyDefinition(version: PolicyVersion) {
  return {
    group: 'admissionregistration.{domain}',
    version,
    kind: 'ValidatingAdmissionPolicy',
    resource: 'validatingadmissionpolicies',
    singularName: 'validatingadmissionpolicy',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: allVerbs,
    servedByDefault: false,
    schema: validatingAdmissionPolicySchema,
    zeroValue: { spec: {}, status: {} },
    strategy: {
      prepareForCreate(policy) {
        delete policy.status;
        policy.metadata.generation = 1;
      },
      prepareForUpdate(policy, old) {
        if (old.status === undefined) delete policy.status;
        else policy.status = structuredClone(old.status);
        // Defaults first, so that a spec sent without them is not a change.
        setPolicyDefaults(policy);
        const generation = old.metadata.generation ?? 1;
        policy.metadata.generation = isDeepStrictEqual(policy.spec, old.spec) ? generation : generation + 1;
      },
      default: (policy) => setPolicyDefaults(policy),
      validate: (policy) => validateValidatingAdmissionPolicy(policy),
      validateUpdate: (policy, old) => validateValidatingAdmissionPolicyUpdate(policy, old),
    },
    subresources: {
      status: {
        // Only the status is taken, and none of the metadata the spec's writers own (upstream's ResetObjectMetaForStatus).
        merge(policy, old) {
          if (old.spec === undefined) delete policy.spec;
          else policy.spec = structuredClone(old.spec);
          for (const key of ['generation', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
            if (old.metadata[key] === undefined) delete policy.metadata[key];
            else (policy.metadata as Record<string, unknown>)[key] = structuredClone(old.metadata[key]);
          }
          return policy;
        },
        validateUpdate: (policy) => validateValidatingAdmissionPolicyStatus(policy),
      },
    },
    tableColumns: [
      nameColumn<ValidatingAdmissionPolicy>(),
      {
        name: 'Validations',
        type: 'integer',
        description: 'Validations indicates the number of validation rules defined in this configuration',
        priority: 0,
        value: (policy) => policy.spec?.validations?.length ?? 0,
      },
      {
        name: 'ParamKind',
        type: 'string',
        description: 'ParamKind specifies the kind of resources used to parameterize this policy',
        priority: 0,
        value: (policy) => (policy.spec?.paramKind ? `${policy.spec.paramKind.apiVersion ?? ''}/${policy.spec.paramKind.kind ?? ''}` : '<unset>'),
      },
      ageColumn<ValidatingAdmissionPolicy>(),
    ],
    allowCreateOnUpdate: false,
    protobuf: {
      message: `k8s.io.api.admissionregistration.${version}.ValidatingAdmissionPolicy`,
      pointers: ['spec.failurePolicy', 'spec.matchConstraints.matchPolicy', 'spec.matchConstraints.resourceRules.scope', 'spec.matchConstraints.excludeResourceRules.scope', 'spec.validations.reason'],
    },
  } satisfies ResourceDefinition<ValidatingAdmissionPolicy>;
}
