// What every component's secure port shares: its serving certificate (given, or self-signed in a
// directory or in memory), the health endpoints' format, and how a request that cannot be parsed
// is answered and its connection closed.
export {
  loadServingCert,
  ensureSelfSignedCert,
  generateSelfSignedCert,
  servingNames,
  apiserverDNSNames,
  type ServingCertificate,
  type SelfSignedCertificate,
  type SelfSignedOptions,
  type ServingCertOptions,
  type CertificateNames,
} from './serving-cert.js';
export { answerAndClose, goErrorResponse, wasAnswered } from './refused-connection.js';
export { pingCheck, runHealthChecks, runHealthCheck, type HealthCheck, type HealthReport } from './health.js';
export { HealthCheckMetrics } from './health-metrics.js';
export { parseTlsCipherSuites, parseTlsMinVersion, secureServingOptions, serverCiphers, type SecureServingOptions, type ServingTlsOptions, type TlsPolicy } from './tls-options.js';
export {
  MetricsStability,
  checkShowHiddenMetricsForVersion,
  collectProcessMetrics,
  metricsVersion,
  type DeclaredMetric,
  type MetricStability,
  type MetricsStabilityOptions,
  type StabilityLevel,
} from './metrics-stability.js';
