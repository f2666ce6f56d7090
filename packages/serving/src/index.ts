// What every component's secure port shares: its serving certificate (given, or self-signed in a
// directory or in memory) and the health endpoints' format.
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
