// The API approval policy of protected groups (upstream's KEP 1111): a CRD in k8s.io or
// kubernetes.io (the domain's own groups here) says in an annotation where its API was approved.
// Validation refuses a missing or malformed annotation; the KubernetesAPIApprovalPolicyConformant
// condition says what the annotation holds.
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from './types.js';
import { wellKnownPrefix } from '../common/domain.js';
import { parseGoRequestURI } from '@plat/apimachinery';

/** The groups whose CRDs need an approved API (upstream's k8s.io and kubernetes.io, under our domain). */
export function isProtectedGroup(group: string, domain: string): boolean {
  const protectedDomains = domain === 'k8s.io' ? ['k8s.io', 'kubernetes.io'] : [domain];
  return protectedDomains.some((d) => group === d || group.endsWith(`.${d}`));
}

export type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

export function approvalState(annotations: Record<string, string> | undefined, key: string): { state: ApprovalState; reason: string } {
  const value = annotations?.[key] ?? '';
  const link = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (!value) return { state: 'missing', reason: `protected groups must have approval annotation "${key}", ${link}` };
  if (value.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: "${value}"` };
  const url = parseGoRequestURI(value);
  if (url && url.host && url.scheme) return { state: 'approved', reason: `approved in ${value}` };
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation "${key}" with either a URL or a reason starting with "unapproved", ${link}`,
  };
}


/** `api-approved.kubernetes.io` under k8s.io, `api-approved.plat.io` under plat.io. */
export const apiApprovalAnnotation = (domain: string): string => `api-approved.${wellKnownPrefix(domain)}`;

const REASONS: Record<ApprovalState, { status: 'True' | 'False'; reason: string }> = {
  approved: { status: 'True', reason: 'ApprovedAnnotation' },
  bypassed: { status: 'False', reason: 'UnapprovedAnnotation' },
  missing: { status: 'False', reason: 'MissingAnnotation' },
  invalid: { status: 'False', reason: 'InvalidAnnotation' },
};

/** The KubernetesAPIApprovalPolicyConformant condition of a CRD in a protected group; undefined for other groups. */
export function apiApprovalCondition(crd: CustomResourceDefinition, domain: string): Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'> | undefined {
  if (!isProtectedGroup(crd.spec.group, domain)) return undefined;
  const { state, reason } = approvalState(crd.metadata.annotations, apiApprovalAnnotation(domain));
  return { type: 'KubernetesAPIApprovalPolicyConformant', ...REASONS[state], message: reason };
}
