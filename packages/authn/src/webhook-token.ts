// Webhook token authentication (--authentication-token-webhook-config-file), as upstream's: each
// bearer token no other authenticator took is posted to the webhook as a TokenReview of
// authentication.<domain>/v1 (or v1beta1, --authentication-token-webhook-version) and its status
// decides. Audiences as upstream checks them: when the request is for some audiences, they go in
// the review's spec, and the token is good only for those among the status' audiences (or, when
// the webhook names none, the API server's own). kube-apiserver puts a cache around it
// (token-cache.ts, --authentication-token-webhook-cache-ttl).
import type { UserInfo } from '@plat/apimachinery';
import type { TokenAuthentication, TokenAuthenticator } from './authentication.js';
import { checkAnswerKind, type WebhookClient } from '@plat/webhook';

export type WebhookVersion = 'v1' | 'v1beta1';

export interface WebhookTokenOptions {
  client: WebhookClient;
  /** --api-domain: the review's group is authentication.<domain>. */
  domain: string;
  version: WebhookVersion;
  /** The API server's audiences (--api-audiences): a token's when the webhook names none. */
  implicitAudiences: readonly string[];
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** The status' user as ours; extra values that are not lists of strings are left out. */
function userOf(user: TokenReviewStatus['user'] = {}): UserInfo {
  const extra: Record<string, string[]> = {};
  if (user.extra && typeof user.extra === 'object') {
    for (const [key, values] of Object.entries(user.extra)) if (Array.isArray(values)) extra[key] = strings(values);
  }
  return {
    name: typeof user.username === 'string' ? user.username : '',
    uid: typeof user.uid === 'string' ? user.uid : '',
    groups: strings(user.groups),
    ...(Object.keys(extra).length > 0 && { extra }),
  };
}

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly options: WebhookTokenOptions) {}

  async authenticateToken(token: string, audiences: readonly string[]): Promise<TokenAuthentication | undefined> {
    const { client, domain, version, implicitAudiences } = this.options;
    const group = `authentication.${domain}`;
    const answer = await client.post({
      apiVersion: `${group}/${version}`,
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token, ...(audiences.length > 0 && { audiences }) },
      status: { user: {} },
    });
    checkAnswerKind(answer, 'TokenReview', group, ['v1', 'v1beta1']);
    const status = (typeof answer.status === 'object' && answer.status !== null ? answer.status : {}) as TokenReviewStatus;
    // Upstream checks the audiences first: a token for none of them is no error, whatever the status says.
    let valid: string[] = [];
    if (audiences.length) {
      const named = strings(status.audiences);
      const granted = named.length ? named : implicitAudiences;
      valid = audiences.filter((audience) => granted.includes(audience));
      if (!valid.length) return undefined;
    }
    if (status.authenticated !== true) {
      if (typeof status.error === 'string' && status.error) throw new Error(status.error);
      return undefined;
    }
    return { user: userOf(status.user), audiences: valid };
  }
}
