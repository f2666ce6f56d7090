// ValidatingAdmissionPolicy on a server: the policies and bindings watched (the source), the plugin
// that enforces them, their status written, and who may name a policy's parameters. Behind its
// feature gate, which needs one of the policy kinds' versions served.
import type { StoreCheck } from '@plat/registry';
import type { Logger } from 'pino';
import { paramAuthorization } from '../../admission/policy/param-authorization.js';
import { ValidatingAdmissionPolicyPlugin } from '../../admission/policy/policy-admission.js';
import { PolicyMetrics } from '../../admission/policy/policy-metrics.js';
import { PolicySource } from '../../admission/policy/policy-source.js';
import { PolicyStatusWriter } from '../../admission/policy/status-writer.js';
import { catalogKinds } from '../../admission/policy/kind-resolver.js';
import type { Authorizer } from '@plat/authz';
import type { ServerMetrics } from '@plat/metrics';
import type { ResourceCatalog } from '@plat/endpoints';
import type { ApiOptions } from '../options.js';

export interface ServedPolicies {
  /** Who may name a policy's parameters: where the policy kinds are served. */
  paramCheck: StoreCheck | undefined;
  /** The plugin's check: with the feature gate on. */
  validate: StoreCheck | undefined;
  start(): void;
  stop(): void;
}

export function servePolicies(
  api: Pick<ApiOptions, 'domain' | 'validatingAdmissionPolicy'>,
  catalog: ResourceCatalog,
  authorizers: { decisions: Authorizer; atOnce: ConstructorParameters<typeof ValidatingAdmissionPolicyPlugin>[0]['authorizer'] },
  metrics: ServerMetrics,
  logger: Logger,
): ServedPolicies {
  const group = `admissionregistration.${api.domain}`;
  const version = ['v1beta1', 'v1alpha1'].find((candidate) => catalog.find(group, candidate, 'validatingadmissionpolicies') && catalog.find(group, candidate, 'validatingadmissionpolicybindings'));
  // Declared whether the gate is on or not, as kube-apiserver registers them.
  const policyMetrics = new PolicyMetrics(metrics.stability);
  const paramCheck = version ? paramAuthorization(catalog, api.domain, authorizers.decisions) : undefined;
  if (!api.validatingAdmissionPolicy) return { paramCheck, validate: undefined, start: () => {}, stop: () => {} };
  if (!version) {
    throw new Error(
      `the ValidatingAdmissionPolicy feature gate needs ${group}/v1beta1 or v1alpha1 served: add --runtime-config=${api.domain === 'k8s.io' ? 'admissionregistration.k8s.io' : group}/v1beta1=true`,
    );
  }
  const policyStore = catalog.store(group, version, 'validatingadmissionpolicies');
  const source = new PolicySource(policyStore, catalog.store(group, version, 'validatingadmissionpolicybindings'), logger, policyMetrics);
  const plugin = new ValidatingAdmissionPolicyPlugin({ catalog, domain: api.domain, source, metrics: policyMetrics, authorizer: authorizers.atOnce });
  const status = new PolicyStatusWriter(policyStore, catalogKinds(catalog), logger);
  source.onPolicy.push((policy) => status.observe(policy));
  return {
    paramCheck,
    validate: (attributes) => plugin.admission(attributes),
    start: () => source.start(),
    stop: () => {
      source.stop();
      status.stop();
    },
  };
}
