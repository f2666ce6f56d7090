// The API server: the koa application, its filter chain and endpoints, and the HTTPS server around it.
export { createServer, type Server, type ServerOptions } from './server.js';
export type { Handler, RequestContext, RequestState } from '@plat/filters';
export { createLogger, logLevels, type LogLevel, type Logger } from './logger.js';
export {
  authorizationModes,
  type AuthorizationMode,
  type Authorizer,
} from '@plat/authz';
export type { AuthenticationOptions, TokenAuthenticator, TokenAuthentication } from '@plat/authn';
export {
  parsePublicKeys,
  parseSigningKey,
  keyId,
  ServiceAccountKeyError,
  type ServiceAccountTokenOptions,
} from '@plat/authn';
export { loadTokenFile, parseTokenFile, TokenFileError, type TokenFile } from '@plat/authn';
export type { UserInfo } from '@plat/authn';
// The serving certificate lives in @plat/serving, shared with the controller-manager; offered here too.
export { loadServingCert, ensureSelfSignedCert, servingNames, type ServingCertificate, type SelfSignedCertificate } from '@plat/serving';
export { checkShowHiddenMetricsForVersion, parseTlsCipherSuites, parseTlsMinVersion, type TlsPolicy } from '@plat/serving';
export type { RequestInfo } from '@plat/filters';
export { versionInfo, type VersionInfo } from '@plat/endpoints';
export { TOO_MANY_REQUESTS_MESSAGE, type LimitOptions, type UserRateOptions } from '@plat/filters';
export { AuditFileLog, type AuditEvent, type AuditFileOptions, type AuditLogFormat, type AuditSink } from '@plat/audit';
export { parseAuditPolicy, type AuditPolicy } from '@plat/audit';
export { OidcAuthenticator, type OidcOptions } from '@plat/authn';
export { parseRuntimeConfig, type RuntimeConfigEntry } from './runtime-config.js';
export { DEFAULT_WATCH_CACHE_SIZES, parseWatchCacheSizes, type WatchCacheSize } from './watch-cache-sizes.js';
export type { WebhookVersion } from '@plat/authn';
export { EncryptionConfigError, parseEncryptionConfiguration, encryptionTransformers, TransformationMetrics } from './encryption/index.js';
