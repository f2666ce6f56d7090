// Whether the user may do what a request asks of the node: AlwaysAllow, or Webhook, a
// SubjectAccessReview of the node's subresource asked of the API, its answer cached for
// cacheAuthorizedTTL when allowed and cacheUnauthorizedTTL when not.
import type { UserInfo } from '@plat/apimachinery';
import type { NodeRequestAttributes } from './request-attributes.js';
import { TtlCache } from './ttl-cache.js';

export interface AccessReviewSpec {
  user: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
  resourceAttributes: { namespace: string; verb: string; group: string; version: string; resource: string; subresource: string; name: string };
}

export interface AccessReviewResult {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export type AuthorizationOptions =
  | { mode: 'AlwaysAllow' }
  | { mode: 'Webhook'; review(spec: AccessReviewSpec): Promise<AccessReviewResult>; authorizedTTLMs: number; unauthorizedTTLMs: number };

export class RequestAuthorizer {
  private readonly decisions = new TtlCache<AccessReviewResult>();

  constructor(private readonly options: AuthorizationOptions) {}

  async authorize(user: UserInfo, attributes: NodeRequestAttributes): Promise<boolean> {
    const options = this.options;
    if (options.mode === 'AlwaysAllow') return true;
    const spec: AccessReviewSpec = {
      user: user.name,
      ...(user.uid && { uid: user.uid }),
      groups: user.groups,
      ...(user.extra && { extra: user.extra }),
      resourceAttributes: {
        namespace: '',
        verb: attributes.verb,
        group: '',
        version: 'v1',
        resource: attributes.resource,
        subresource: attributes.subresource,
        name: attributes.name,
      },
    };
    const key = JSON.stringify(spec);
    const cached = this.decisions.get(key);
    if (cached) return cached.allowed;
    const result = await options.review(spec);
    this.decisions.set(key, result, result.allowed ? options.authorizedTTLMs : options.unauthorizedTTLMs);
    return result.allowed;
  }
}
