// Authentication: who a request is. The user and upstream's well-known names (user.ts), the
// authenticators in upstream's order (authentication.ts: client certificates, the token file,
// service-account JWTs, OIDC ID tokens, the TokenReview webhook, anonymous), a cache of any token
// authenticator's answers (token-cache.ts over expiring-cache.ts, which the webhook authorizer shares).
export { authenticate, authenticateToken, type AuthenticationOptions, type TlsPeer } from './authentication.js';
export { ExpiringCache } from './expiring-cache.js';
export { OidcAuthenticator } from './oidc.js';
export { parsePublicKeys, parseSigningKey, type ServiceAccountTokenOptions, ServiceAccountTokens } from './service-account-tokens.js';
export { CachedTokenAuthenticator } from './token-cache.js';
export { loadTokenFile } from './token-file.js';
export { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername, SYSTEM_PRIVILEGED_GROUP, type UserInfo } from './user.js';
export { WebhookTokenAuthenticator, type WebhookVersion } from './webhook-token.js';
