// ValidatingAdmissionPolicyBinding (admissionregistration.{domain}, cluster-scoped; v1beta1 and
// v1alpha1): binds a policy to its parameters and to the resources it applies to, with the actions a
// failed validation takes (Deny, Warn, Audit).
import { isDeepStrictEqual } from 'node:util';
import type { ResourceDefinition } from '@plat/registry';
import type { LabelSelector } from '../common/label-selector.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { setBindingDefaults } from './defaults.js';
import { validatingAdmissionPolicyBindingSchema } from './schema.js';
import type { PolicyVersion } from './validating-admission-policy.js';
import type { ValidatingAdmissionPolicyBinding } from './types.js';
import { validateValidatingAdmissionPolicyBinding } from './validation.js';

/** A label selector as Go's generated String() prints it, which upstream's ParamRef column shows. */
export function goLabelSelectorString(selector: LabelSelector): string {
  const labels = Object.keys(selector.matchLabels ?? {})
    .sort()
    .map((key) => `${key}: ${selector.matchLabels![key]},`)
    .join('');
  const expressions = (selector.matchExpressions ?? [])
    .map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

/** What the ParamRef column shows: `<namespace>/<name>`, `*\/<name>` without a namespace, or the selector. */
function paramRefColumn(binding: ValidatingAdmissionPolicyBinding): string {
  const ref = binding.spec?.paramRef;
  if (!ref) return '<unset>';
  if (ref.name) return `${ref.namespace || '*'}/${ref.name}`;
  if (ref.selector) return goLabelSelectorString(ref.selector);
  return '<unset>';
}

export function validatingAdmissionPolicyBindingDefinition(version: PolicyVersion) {
  return {
    group: 'admissionregistration.{domain}',
    version,
    kind: 'ValidatingAdmissionPolicyBinding',
    resource: 'validatingadmissionpolicybindings',
    singularName: 'validatingadmissionpolicybinding',
    categories: ['api-extensions'],
    namespaced: false,
    verbs: allVerbs,
    servedByDefault: false,
    schema: validatingAdmissionPolicyBindingSchema,
    zeroValue: { spec: {} },
    strategy: {
      // Upstream counts a binding's generations as a policy's.
      prepareForCreate(binding) {
        binding.metadata.generation = 1;
      },
      prepareForUpdate(binding, old) {
        setBindingDefaults(binding);
        const generation = old.metadata.generation ?? 1;
        binding.metadata.generation = isDeepStrictEqual(binding.spec, old.spec) ? generation : generation + 1;
      },
      default: (binding) => setBindingDefaults(binding),
      validate: (binding) => validateValidatingAdmissionPolicyBinding(binding),
      validateUpdate: (binding) => validateValidatingAdmissionPolicyBinding(binding),
    },
    tableColumns: [
      nameColumn<ValidatingAdmissionPolicyBinding>(),
      {
        name: 'PolicyName',
        type: 'string',
        description: 'PolicyName indicates the policy definition which the policy binding binded to',
        priority: 0,
        value: (binding) => binding.spec?.policyName ?? '',
      },
      {
        name: 'ParamRef',
        type: 'string',
        description: 'ParamRef indicates the param resource which sets the configration param',
        priority: 0,
        value: paramRefColumn,
      },
      ageColumn<ValidatingAdmissionPolicyBinding>(),
    ],
    allowCreateOnUpdate: false,
    protobuf: {
      message: `k8s.io.api.admissionregistration.${version}.ValidatingAdmissionPolicyBinding`,
      pointers: [
        'spec.paramRef.parameterNotFoundAction',
        'spec.matchResources.matchPolicy',
        'spec.matchResources.resourceRules.scope',
        'spec.matchResources.excludeResourceRules.scope',
      ],
    },
  } satisfies ResourceDefinition<ValidatingAdmissionPolicyBinding>;
}
