// What the four access reviews (authorization.{domain}/v1) share: the attributes a review asks
// about, its status, the "exactly one of" rule, and turning a spec into an authorizer question.
import { invalid, type AccessAttributes, type AccessDecision, type FieldError, type FieldPath, type UserInfo } from '@plat/apimachinery';
import type { JSONSchema, ObjectMeta } from '@plat/registry';
import { atomicStringList, booleanField, objectSchema, stringField } from '../common/schema.js';

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export const resourceAttributesSchema: JSONSchema = objectSchema('The information for a resource access request, as an authorizer receives it.', {
  namespace: stringField(
    'The namespace of the action; "" means all namespaces for namespaced resources and is right for cluster-scoped ones; defaulted for LocalSubjectAccessReviews.',
  ),
  verb: stringField('A verb such as get, list, watch, create, update, delete or proxy; "*" means all.'),
  group: stringField('The API group of the resource; "*" means all.'),
  version: stringField('The API version of the resource; "*" means all.'),
  resource: stringField('One of the existing resource types; "*" means all.'),
  subresource: stringField('One of the existing subresources; "" means none.'),
  name: stringField('The name of the object acted on (get, update, delete); "" means all.'),
});

export const nonResourceAttributesSchema: JSONSchema = objectSchema('The information for a non-resource access request.', {
  path: stringField('The URL path of the request.'),
  verb: stringField('The standard HTTP verb.'),
});

export const subjectAccessReviewStatusSchema: JSONSchema = objectSchema(
  'Whether the request is allowed.',
  {
    allowed: booleanField('True if the action would be allowed, false otherwise.'),
    denied: booleanField(
      'True if the action would be denied. When allowed and denied are both false, the authorizer has no opinion; allowed true excludes denied true.',
    ),
    reason: stringField('Why the request was allowed or denied.'),
    evaluationError: stringField('An error met while checking; the authorizer may still have decided.'),
  },
  { required: ['allowed'] },
);

/** The user and group fields of a SubjectAccessReviewSpec (SubjectAccessReview and LocalSubjectAccessReview). */
export const subjectSchemaFields: Record<string, JSONSchema> = {
  user: stringField('The user to test for. Given without groups, it is tested as a member of no group.'),
  groups: atomicStringList('The groups to test for.'),
  extra: {
    type: 'object',
    description: 'Extra information of the user, as the authenticator would give it; the authorizer may use it.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  uid: stringField('Information about the requesting user.'),
};

/** Upstream's ValidateSelfSubjectAccessReviewSpec: exactly one of the two attribute sets. */
export function validateAttributesChoice(spec: SubjectAccessReviewSpec | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (spec?.resourceAttributes && spec.nonResourceAttributes) {
    errors.push(invalid(path.child('nonResourceAttributes'), spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (!spec?.resourceAttributes && !spec?.nonResourceAttributes) {
    errors.push(invalid(path.child('resourceAttributes'), spec?.nonResourceAttributes ?? null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return errors;
}

/** Upstream's ValidateSubjectAccessReviewSpec: the attribute choice, and someone to ask about. */
export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec | undefined, path: FieldPath): FieldError[] {
  const errors = validateAttributesChoice(spec, path);
  if (!spec?.user && !spec?.groups?.length) errors.push(invalid(path.child('user'), spec?.user ?? '', 'at least one of user or group must be specified'));
  return errors;
}

/** An access review's metadata must be empty (managedFields aside; the namespace aside for a local review). */
export function validateEmptyMetadata(metadata: ObjectMeta, path: FieldPath, exceptNamespace: boolean): FieldError[] {
  const rest = Object.entries(metadata).filter(([key, value]) => {
    if (key === 'managedFields' || (exceptNamespace && key === 'namespace')) return false;
    if (value === undefined || value === '' || value === 0) return false;
    return !(typeof value === 'object' && value !== null && Object.keys(value).length === 0);
  });
  if (!rest.length) return [];
  return [invalid(path, metadata, exceptNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

/** The user a SubjectAccessReviewSpec names (upstream's AuthorizationAttributesFrom). */
function userFromSpec(spec: SubjectAccessReviewSpec): UserInfo {
  return { name: spec.user ?? '', uid: spec.uid ?? '', groups: [...(spec.groups ?? [])], ...(spec.extra && { extra: spec.extra }) };
}

/** Upstream's ResourceAttributesFrom / NonResourceAttributesFrom: an empty version matches every version. */
export function attributesFrom(user: UserInfo, spec: SubjectAccessReviewSpec): AccessAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      namespace: r.namespace ?? '',
      apiGroup: r.group ?? '',
      apiVersion: r.version || '*',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
      isResourceRequest: true,
      path: '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: n.verb ?? '',
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
    isResourceRequest: false,
    path: n.path ?? '',
  };
}

/**
 * The status upstream fills: allowed and denied from the decision, the reason, and as the
 * evaluation error what went wrong while deciding (an authorizer's error, a webhook down, among it).
 */
export function statusFrom(decision: AccessDecision): SubjectAccessReviewStatus {
  const status: SubjectAccessReviewStatus = { allowed: decision.decision === 'Allow' };
  if (decision.decision === 'Deny') status.denied = true;
  if (decision.reason) status.reason = decision.reason;
  const evaluationError = [decision.evaluationError, decision.error].filter(Boolean).join('\n');
  if (evaluationError) status.evaluationError = evaluationError;
  return status;
}

/**
 * The virtual create of SubjectAccessReview and LocalSubjectAccessReview: the spec's user asks
 * the authorizer, and the review comes back with its status filled.
 */
export async function answerSubjectAccessReview<T extends { spec: SubjectAccessReviewSpec; status?: SubjectAccessReviewStatus }>(
  review: T,
  authorize: (attributes: AccessAttributes) => Promise<AccessDecision>,
): Promise<T> {
  review.status = statusFrom(await authorize(attributesFrom(userFromSpec(review.spec), review.spec)));
  return review;
}
