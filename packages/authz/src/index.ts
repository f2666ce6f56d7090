// Authorization: what a request may do. The modes (authorization.ts: AlwaysAllow, AlwaysDeny, RBAC,
// Webhook, asked in --authorization-mode's order after system:masters; a synchronous form for the
// admission policies' expressions), the RBAC authorizer over @plat/auth's index fed by the
// registry's informers (rbac-authorizer.ts), the SubjectAccessReview webhook (webhook-authorizer.ts).
export { type AuthorizationMode, authorizationModes, type Authorizer, forbiddenError, newAuthorizer, newSyncAuthorizer } from './authorization.js';
export { RbacAuthorizer, type RbacSeed } from './rbac-authorizer.js';
export { WebhookAuthorizer } from './webhook-authorizer.js';
