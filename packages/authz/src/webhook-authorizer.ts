// Webhook authorization (--authorization-mode=Webhook, --authorization-webhook-config-file), as
// upstream's: each request is posted as a SubjectAccessReview of authorization.<domain>/v1 (or
// v1beta1, --authorization-webhook-version); allowed is Allow, denied is Deny, neither is no
// opinion, and the reason comes along. Answers are kept, keyed by the review's spec, for
// --authorization-webhook-cache-authorized-ttl when allowed and -unauthorized-ttl otherwise;
// requests whose requester-controlled attributes are very long are not kept (they could flood the
// cache). A webhook that fails gives no opinion with an error: the request then fails (500) unless
// a later authorizer allows it, and access reviews report the error. What must be answered at once
// (admission policies' expressions) gets the cached answers only (cachedOnly).
import type { AccessAttributes, AccessDecision, AccessRules } from '@plat/apimachinery';
import type { Authorizer, SyncAuthorizer } from './authorization.js';
import { ExpiringCache } from '@plat/authn';
import { checkAnswerKind, type WebhookClient } from '@plat/webhook';
import type { WebhookVersion } from '@plat/authn';

export interface WebhookAuthorizerOptions {
  client: WebhookClient;
  /** --api-domain: the review's group is authorization.<domain>. */
  domain: string;
  version: WebhookVersion;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  now?: () => number;
}

// Upstream's bounds: 8192 answers, and no caching past 10000 bytes of requester-controlled attributes.
const MAX_ENTRIES = 8192;
const MAX_CACHED_ATTRIBUTE_BYTES = 10_000;

interface ReviewStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
}

/** The review's spec, in upstream's field order (Go's omitempty leaves out what is empty). */
function reviewSpec(attributes: AccessAttributes, version: WebhookVersion): Record<string, unknown> {
  const omitEmpty = (record: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ''));
  const { user } = attributes;
  return {
    ...(attributes.isResourceRequest
      ? {
          resourceAttributes: omitEmpty({
            namespace: attributes.namespace,
            verb: attributes.verb,
            group: attributes.apiGroup,
            version: attributes.apiVersion,
            resource: attributes.resource,
            subresource: attributes.subresource,
            name: attributes.name,
          }),
        }
      : { nonResourceAttributes: omitEmpty({ path: attributes.path, verb: attributes.verb }) }),
    ...(user.name && { user: user.name }),
    // v1beta1 names the list of groups `group`.
    ...(user.groups.length > 0 && { [version === 'v1' ? 'groups' : 'group']: user.groups }),
    ...(user.extra && Object.keys(user.extra).length > 0 && { extra: user.extra }),
    ...(user.uid && { uid: user.uid }),
  };
}

/** Upstream's shouldCache: the attributes a requester controls, short enough to keep. */
function cacheable(attributes: AccessAttributes): boolean {
  const { namespace, verb, apiGroup, apiVersion, resource, subresource, name, path } = attributes;
  return [namespace, verb, apiGroup, apiVersion, resource, subresource, name, path].reduce((size, value) => size + value.length, 0) < MAX_CACHED_ATTRIBUTE_BYTES;
}

/** Upstream's mapping of a review's status to a decision. */
function decisionOf(status: ReviewStatus): AccessDecision {
  if (status.allowed && status.denied) return { decision: 'Deny', reason: status.reason, error: 'webhook subject access review returned both allow and deny response' };
  if (status.denied) return { decision: 'Deny', reason: status.reason };
  return { decision: status.allowed ? 'Allow' : 'NoOpinion', reason: status.reason };
}

export class WebhookAuthorizer implements Authorizer {
  private readonly cache: ExpiringCache<ReviewStatus>;
  /**
   * The webhook for what must be answered at once (admission policies' authorizer library): a
   * cached answer, or no opinion with an error while the webhook is asked in the background, so
   * that a later evaluation has the answer. An expression cannot wait for a webhook here.
   */
  readonly cachedOnly: SyncAuthorizer = {
    authorize: (attributes) => {
      const spec = reviewSpec(attributes, this.options.version);
      const status = this.cache.get(JSON.stringify(spec));
      if (status) return decisionOf(status);
      void this.authorize(attributes);
      return { decision: 'NoOpinion', reason: '', error: 'the authorization webhook has not answered this question yet, and an expression cannot wait for it' };
    },
  };

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.cache = new ExpiringCache(MAX_ENTRIES, options.now);
  }

  async authorize(attributes: AccessAttributes): Promise<AccessDecision> {
    const { client, domain, version } = this.options;
    const spec = reviewSpec(attributes, version);
    const key = JSON.stringify(spec);
    let status = this.cache.get(key);
    if (!status) {
      const group = `authorization.${domain}`;
      try {
        const answer = await client.post({ apiVersion: `${group}/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } });
        checkAnswerKind(answer, 'SubjectAccessReview', group, ['v1', 'v1beta1']);
        const raw = (typeof answer.status === 'object' && answer.status !== null ? answer.status : {}) as Record<string, unknown>;
        status = { allowed: raw.allowed === true, denied: raw.denied === true, reason: typeof raw.reason === 'string' ? raw.reason : '' };
      } catch (error) {
        return { decision: 'NoOpinion', reason: '', error: error instanceof Error ? error.message : String(error) };
      }
      if (cacheable(attributes)) this.cache.set(key, status, status.allowed ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs);
    }
    return decisionOf(status);
  }

  /** Upstream's webhook cannot list a user's rules: an incomplete answer that says so. */
  rulesFor(): AccessRules {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }
}
