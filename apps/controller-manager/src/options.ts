// The controller-manager's flags (kube-controller-manager's names where there is one) and the
// configuration they make.
import { isIP } from 'node:net';
import { FlagError, flag, parseFlags, type FlagValues } from '@plat/apimachinery';
import { FeatureGate, clusterFeatureGates, type ClusterFeature } from '@plat/featuregate';
import { checkShowHiddenMetricsForVersion, parseTlsCipherSuites, parseTlsMinVersion, type TlsPolicy } from '@plat/serving';
import { leaseName, systemNamespace } from './names.js';

export const controllerNames = [
  'namespace-controller',
  'serviceaccount-controller',
  'clusterrole-aggregation-controller',
  'garbage-collector-controller',
  'crd-cleanup-controller',
  'node-lifecycle-controller',
] as const;
export type ControllerName = (typeof controllerNames)[number];

export const logLevels = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof logLevels)[number];

/** The cluster's gates: upstream's components share one list, so a cluster-wide value is accepted by each. */
const defaultFeatureGate = new FeatureGate(clusterFeatureGates);

export const controllerManagerFlags = {
  kubeconfig: flag.string('Path to a kubeconfig file: the API server to talk to, its CA and the credentials (required).'),
  'api-domain': flag.string('The API domain the server serves: plat.io, or k8s.io for Kubernetes names.', 'plat.io'),
  'leader-elect': flag.bool('Run the controllers only while holding the leader Lease, so that replicas take turns.', true),
  'leader-elect-lease-duration': flag.duration('How long a candidate waits after the last observed renewal before taking the lease over.', 15_000),
  'leader-elect-renew-deadline': flag.duration('How long the leader tries to renew before it stops leading.', 10_000),
  'leader-elect-retry-period': flag.duration('How long candidates wait between attempts to acquire or renew.', 2_000),
  'leader-elect-resource-namespace': flag.string('Namespace of the leader Lease (default <prefix>-system).'),
  'leader-elect-resource-name': flag.string('Name of the leader Lease (default <prefix>-controller-manager).'),
  controllers: flag.list(`Controllers to run: "*" for all, "name" to enable, "-name" to disable. Names: ${controllerNames.join(', ')}.`, ['*']),
  'use-service-account-credentials': flag.bool(
    'Run each controller as its own service account in the system namespace (created when missing), with a token requested for it; the bootstrap policy gives each its system:controller role.',
    false,
  ),
  'concurrent-gc-syncs': flag.int('Garbage collector workers.', 20, 1, 1000),
  'concurrent-namespace-syncs': flag.int('Namespace deletion workers.', 10, 1, 1000),
  'node-monitor-period': flag.duration('How often the node lifecycle controller looks at the nodes\' heartbeats.', 5_000),
  'node-monitor-grace-period': flag.duration(
    'How long a node may go without renewing its Lease or posting its status before the node lifecycle controller marks it Unknown and unreachable.',
    40_000,
  ),
  'node-startup-grace-period': flag.duration('The same for a node that has never posted its status.', 60_000),
  'log-level': flag.string(`Least severe level logged: ${logLevels.join(', ')}.`, 'info'),
  'secure-port': flag.int('The port on which to serve HTTPS: /healthz, /livez, /readyz and /metrics, without authentication. If 0, don\'t serve HTTPS at all.', 10257, 0, 65535),
  'bind-address': flag.string('The IP address on which to listen for the --secure-port port (0.0.0.0 or :: for every interface).', '127.0.0.1'),
  'cert-dir': flag.string(
    'The directory where the self-signed TLS certificate is kept (plat-controller-manager.crt, plat-controller-manager.key, plat-controller-manager-ca.crt). Empty: generated in memory at every start. Ignored if --tls-cert-file and --tls-private-key-file are given.',
  ),
  'tls-cert-file': flag.string('File containing the default x509 certificate for HTTPS (CA certificates after it).'),
  'tls-private-key-file': flag.string('File containing the default x509 private key matching --tls-cert-file.'),
  'tls-min-version': flag.string('Minimum TLS version supported. Possible values: VersionTLS12 (the default), VersionTLS13 (VersionTLS10 and VersionTLS11 are refused: node\'s OpenSSL does not serve them).'),
  'tls-cipher-suites': flag.list(
    'Comma-separated list of cipher suites for the server, Go\'s names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...): the TLS 1.2 suites offered, in order. If omitted, the default suites are used. TLS 1.3\'s suites are not configurable, as in Go.',
  ),
  'show-hidden-metrics-for-version': flag.string(
    "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.27'.",
  ),
  'feature-gates': flag.list(
    `A set of key=value pairs that describe feature gates for alpha/experimental features: the cluster's gates, accepted here as by every component (none changes what these controllers do). Options are: ${defaultFeatureGate.knownFeatures().join(', ')}.`,
  ),
};

export type ControllerManagerFlagValues = FlagValues<typeof controllerManagerFlags>;

export interface ControllerManagerConfig {
  kubeconfig: string;
  apiDomain: string;
  leaderElection: {
    enabled: boolean;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
    namespace: string;
    name: string;
  };
  controllers: ReadonlySet<ControllerName>;
  useServiceAccountCredentials: boolean;
  concurrentGCSyncs: number;
  concurrentNamespaceSyncs: number;
  nodeLifecycle: { monitorPeriodMs: number; gracePeriodMs: number; startupGracePeriodMs: number };
  logLevel: LogLevel;
  /** The secure port's; port 0: not served. */
  serving: {
    port: number;
    bindAddress: string;
    certDir: string;
    tlsCertFile: string;
    tlsPrivateKeyFile: string;
    /** --tls-min-version and --tls-cipher-suites. */
    tls: TlsPolicy;
  };
  /** --show-hidden-metrics-for-version: empty, or the previous minor release. */
  showHiddenMetricsForVersion: string;
  featureGates: FeatureGate<ClusterFeature>;
  /** Upstream's warnings for the GA and deprecated gates --feature-gates set, for the log. */
  featureGateWarnings: string[];
}

/** Upstream's --controllers rule: a name or "-name" decides for that controller, else "*" enables it. */
export function enabledControllers(list: readonly string[]): Set<ControllerName> {
  for (const item of list) {
    const name = item.replace(/^-/, '');
    if (name !== '*' && !(controllerNames as readonly string[]).includes(name)) {
      throw new FlagError(`invalid value for flag --controllers: unknown controller ${JSON.stringify(name)}`);
    }
  }
  return new Set(
    controllerNames.filter((name) => {
      if (list.includes(name)) return true;
      if (list.includes(`-${name}`)) return false;
      return list.includes('*');
    }),
  );
}

export function buildConfig(values: ControllerManagerFlagValues): ControllerManagerConfig {
  if (!values.kubeconfig) throw new FlagError('--kubeconfig is required');
  const domain = values['api-domain'];
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(domain)) {
    throw new FlagError(`invalid value ${JSON.stringify(domain)} for flag --api-domain: must be a DNS domain such as plat.io`);
  }
  const logLevel = values['log-level'];
  if (!(logLevels as readonly string[]).includes(logLevel)) {
    throw new FlagError(`invalid value ${JSON.stringify(logLevel)} for flag --log-level: must be one of ${logLevels.join(', ')}`);
  }
  const leaderElection = {
    enabled: values['leader-elect'],
    leaseDurationMs: values['leader-elect-lease-duration'],
    renewDeadlineMs: values['leader-elect-renew-deadline'],
    retryPeriodMs: values['leader-elect-retry-period'],
    namespace: values['leader-elect-resource-namespace'] || systemNamespace(domain),
    name: values['leader-elect-resource-name'] || leaseName(domain),
  };
  if (leaderElection.enabled) {
    if (leaderElection.leaseDurationMs <= leaderElection.renewDeadlineMs) {
      throw new FlagError('--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline');
    }
    if (leaderElection.renewDeadlineMs <= 1.2 * leaderElection.retryPeriodMs) {
      throw new FlagError('--leader-elect-renew-deadline must be greater than 1.2 x --leader-elect-retry-period');
    }
  }
  for (const name of ['node-monitor-period', 'node-monitor-grace-period', 'node-startup-grace-period'] as const) {
    if (values[name] <= 0) throw new FlagError(`invalid value for flag --${name}: must be positive`);
  }
  const bindAddress = values['bind-address'];
  if (!isIP(bindAddress)) {
    throw new FlagError(`invalid value ${JSON.stringify(bindAddress)} for flag --bind-address: must be an IP address`);
  }
  if (Boolean(values['tls-cert-file']) !== Boolean(values['tls-private-key-file'])) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const tls: TlsPolicy = { minVersion: 'TLSv1.2' };
  try {
    tls.minVersion = parseTlsMinVersion(values['tls-min-version']);
  } catch (error) {
    throw new FlagError(`invalid value ${JSON.stringify(values['tls-min-version'])} for flag --tls-min-version: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const suites = parseTlsCipherSuites(values['tls-cipher-suites']);
    if (suites) tls.tls12Suites = suites;
  } catch (error) {
    throw new FlagError(`invalid value ${JSON.stringify(values['tls-cipher-suites'].join(','))} for flag --tls-cipher-suites: ${error instanceof Error ? error.message : String(error)}`);
  }
  const hiddenMetrics = checkShowHiddenMetricsForVersion(values['show-hidden-metrics-for-version']);
  if (hiddenMetrics) throw new FlagError(hiddenMetrics);
  let featureGates: { gates: FeatureGate<ClusterFeature>; warnings: string[] };
  try {
    featureGates = defaultFeatureGate.withFlag(values['feature-gates']);
  } catch (error) {
    throw new FlagError(`invalid value ${JSON.stringify(values['feature-gates'].join(','))} for flag --feature-gates: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    kubeconfig: values.kubeconfig,
    apiDomain: domain,
    leaderElection,
    controllers: enabledControllers(values.controllers),
    useServiceAccountCredentials: values['use-service-account-credentials'],
    concurrentGCSyncs: values['concurrent-gc-syncs'],
    concurrentNamespaceSyncs: values['concurrent-namespace-syncs'],
    nodeLifecycle: {
      monitorPeriodMs: values['node-monitor-period'],
      gracePeriodMs: values['node-monitor-grace-period'],
      startupGracePeriodMs: values['node-startup-grace-period'],
    },
    logLevel: logLevel as LogLevel,
    serving: {
      port: values['secure-port'],
      bindAddress,
      certDir: values['cert-dir'],
      tlsCertFile: values['tls-cert-file'],
      tlsPrivateKeyFile: values['tls-private-key-file'],
      tls,
    },
    showHiddenMetricsForVersion: values['show-hidden-metrics-for-version'],
    featureGates: featureGates.gates,
    featureGateWarnings: featureGates.warnings,
  };
}

export function parseCommandLine(argv: readonly string[]): { help: true } | { help: false; config: ControllerManagerConfig } {
  const { values, help } = parseFlags(controllerManagerFlags, argv);
  if (help) return { help: true };
  return { help: false, config: buildConfig(values) };
}
