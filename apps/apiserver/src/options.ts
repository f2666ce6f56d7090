// The apiserver's flags (kube-apiserver's names where one exists) and the config they make.
import { AdmissionPluginFlagsError, DEFAULT_OFF_PLUGINS, ORDERED_PLUGINS, enabledPlugins, type PluginName } from '@plat/admission';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_WATCH_CACHE_SIZES,
  logLevels,
  parseRuntimeConfig,
  parseWatchCacheSizes,
  type LogLevel,
  type RuntimeConfigEntry,
  type WatchCacheSize,
} from '@plat/apiserver';
import { authorizationModes, type AuthorizationMode } from '@plat/authz';
import { checkShowHiddenMetricsForVersion, parseTlsCipherSuites, parseTlsMinVersion, type TlsPolicy } from '@plat/serving';
import { FlagError, deprecatedFlag, flag, parseFlags, type FlagValues } from '@plat/apimachinery';
import { DEFAULT_NODE_PORT_RANGE, parsePortRange, parseServiceClusterIPRanges } from '@plat/api';
import { featureGatesHelp, parseFeatureGates, type ApiserverFeatureGate } from './feature-gates.js';

/**
 * kube-apiserver keeps its generated certificate in /var/run/kubernetes; ours goes to /var/run/plat
 * when running as root, and otherwise to a per-user directory that a non-root user can create.
 */
export function defaultCertDir(): string {
  if (process.getuid?.() === 0) return '/var/run/plat';
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  return runtimeDir ? join(runtimeDir, 'plat') : join(tmpdir(), `plat-${process.getuid?.() ?? 'user'}`);
}

/** Upstream's default set, as its help lists it. */
const defaultOnPlugins = (): string => ORDERED_PLUGINS.filter((name) => !DEFAULT_OFF_PLUGINS.has(name)).join(', ');

export const apiserverFlags = {
  'storage-backend': flag.enum(
    'The storage backend for persistence: etcd3 (an etcd cluster, --etcd-servers), sqlite (one embedded SQLite database in --storage-dir, for a single replica) or memory (nothing kept when the process ends; for tests).',
    ['etcd3', 'sqlite', 'memory'] as const,
    'etcd3',
  ),
  'storage-dir': flag.string(
    'With --storage-backend=sqlite: the folder that keeps the database (plat.db and its write-ahead log), created when missing. One replica at a time may use it.',
  ),
  'etcd-servers': flag.list('List of etcd servers to connect with (scheme://ip:port), comma separated. Required with --storage-backend=etcd3.'),
  'etcd-cafile': flag.string('SSL Certificate Authority file used to secure etcd communication (https:// --etcd-servers). Default: the system\'s roots.'),
  'etcd-certfile': flag.string('SSL certification file used to secure etcd communication: the client certificate the etcd members require (PEM, with --etcd-keyfile).'),
  'etcd-keyfile': flag.string('SSL key file used to secure etcd communication: the private key of --etcd-certfile (PEM).'),
  'etcd-prefix': flag.string('The prefix to prepend to all resource paths in etcd.', '/registry'),
  'etcd-compaction-interval': flag.duration('The interval of compaction requests. If 0, the compaction request from apiserver is disabled.', 5 * 60_000),
  'etcd-healthcheck-timeout': flag.duration('The timeout to use when checking etcd health.', 2000),
  'encryption-provider-config': flag.string(
    'The file containing configuration for encryption providers to be used for storing secrets in etcd: an EncryptionConfiguration (apiserver.config.k8s.io/v1) listing resources and their providers (aesgcm, aescbc, secretbox, identity); the first provider writes, all read. Read at start-up: restart to rotate keys.',
  ),
  'event-ttl': flag.duration('Amount of time to retain events.', 60 * 60_000),
  'service-cluster-ip-range': flag.string(
    'A CIDR notation IP range from which to assign service cluster IPs. This must not overlap with any IP ranges assigned to nodes or pods. Max of two dual-stack CIDRs is allowed. Default: 10.0.0.0/24.',
  ),
  'service-node-port-range': {
    ...flag.string('A port range to reserve for services with NodePort visibility. This must not overlap with the ephemeral port range on nodes. Example: \'30000-32767\'. Inclusive at both ends of the range.', DEFAULT_NODE_PORT_RANGE),
    // upstream's PortRange.Set: its messages.
    parse: (text: string) => {
      parsePortRange(text);
      return text;
    },
  },
  'watch-cache': flag.bool('Enable watch caching in the apiserver: watches and current lists are served from memory, one etcd watch per resource.', true),
  'watch-cache-sizes': flag.stringSlice(
    'Watch cache size settings for some resources, comma separated: resource[.group]#size, where resource is lowercase plural (no version) and group is omitted for the core (v1) group (a group may be named in the k8s.io form). Watch caches size themselves, so the only meaningful size is 0: that resource is served without a watch cache, its gets, lists and watches going to storage; any other size leaves it cached. Events (events and events.events.k8s.io) have no watch cache unless given a size here. Custom resources may be named too, as kube-apiserver 1.28 honours them (its own help says otherwise). Consulted only with --watch-cache.',
  ),
  'default-watch-cache-size': deprecatedFlag(
    flag.int('Default watch cache size. Has no effect: watch caches size themselves, as in kube-apiserver 1.28.', 100, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    'watch caches are sized automatically and this flag will be removed in a future version',
  ),
  'secure-port': flag.int('The port on which to serve HTTPS; 0 picks a free port.', 6443, 0, 65535),
  'bind-address': flag.string('The IP address on which to listen for the --secure-port port.', '0.0.0.0'),
  'http2-max-streams-per-connection': flag.int(
    'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang\'s default (250).',
    1000,
    0,
    2 ** 31 - 1,
  ),
  'cert-dir': flag.string(
    'The directory where the self-signed TLS certificate is kept (apiserver.crt, apiserver.key, ca.crt). Ignored if --tls-cert-file and --tls-private-key-file are given.',
    defaultCertDir(),
  ),
  'tls-cert-file': flag.string('File containing the default x509 certificate for HTTPS (CA certificates after it).'),
  'tls-private-key-file': flag.string('File containing the default x509 private key matching --tls-cert-file.'),
  'tls-min-version': flag.string('Minimum TLS version supported. Possible values: VersionTLS12 (the default), VersionTLS13 (VersionTLS10 and VersionTLS11 are refused: node\'s OpenSSL does not serve them).'),
  'tls-cipher-suites': flag.list(
    'Comma-separated list of cipher suites for the server, Go\'s names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...): the TLS 1.2 suites offered, in order. If omitted, the default suites are used. TLS 1.3\'s suites are not configurable, as in Go.',
  ),
  'request-timeout': flag.duration(
    'An optional field indicating the duration a handler must keep a request open before timing it out: past it, a request other than a watch is answered 504 (a shorter ?timeout= of the request applies instead). 0 means no timeout.',
    60_000,
  ),
  'min-request-timeout': flag.int(
    'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value between this and twice this as the connection timeout, to spread out load.',
    1800,
    0,
    2_147_483_647,
  ),
  'token-auth-file': flag.string('If set, the file that will be used to secure the secure port of the API server via token authentication.'),
  'anonymous-auth': flag.bool('Enables anonymous requests to the secure port: requests that no other method rejects get the user system:anonymous.', true),
  'authorization-mode': flag.list(
    'Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: AlwaysAllow,AlwaysDeny,RBAC,Webhook. Members of system:masters are always allowed.',
    ['RBAC'],
  ),
  'authorization-webhook-config-file': flag.string(
    "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.",
  ),
  'authorization-webhook-version': flag.enum(
    'The API version of the authorization.<api-domain> SubjectAccessReview to send to and expect from the webhook.',
    ['v1', 'v1beta1'] as const,
    'v1',
  ),
  'authorization-webhook-cache-authorized-ttl': flag.duration("The duration to cache 'authorized' responses from the webhook authorizer.", 5 * 60_000),
  'authorization-webhook-cache-unauthorized-ttl': flag.duration("The duration to cache 'unauthorized' responses from the webhook authorizer.", 30_000),
  'authentication-token-webhook-config-file': flag.string(
    'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.',
  ),
  'authentication-token-webhook-version': flag.enum(
    'The API version of the authentication.<api-domain> TokenReview to send to and expect from the webhook.',
    ['v1', 'v1beta1'] as const,
    'v1',
  ),
  'authentication-token-webhook-cache-ttl': flag.duration('The duration to cache responses from the webhook token authenticator.', 2 * 60_000),
  'api-domain': flag.string('The domain of the built-in API groups and media types (k8s.io serves Kubernetes\' names).', 'plat.io'),
  'shutdown-delay-duration': flag.duration('Time to delay the termination: /readyz fails while the server keeps serving, so that load balancers stop sending requests.', 0),
  'shutdown-timeout': flag.duration('How long shutdown waits for requests in flight before closing their connections.', 30_000),
  'log-level': flag.enum('The lowest level of log lines written.', logLevels, 'info'),
  'client-ca-file': flag.string(
    'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate, and its Organizations as groups.',
  ),
  'service-account-signing-key-file': flag.string(
    'Path to the file that contains the current private key of the service account token issuer (PEM, RSA or EC). The issuer signs issued ID tokens with this key (the TokenRequest API).',
  ),
  'service-account-key-file': flag.list(
    'File containing PEM-encoded public (or private) RSA or ECDSA keys, or certificates, used to verify service account tokens. May be given multiple times. Default: the public half of --service-account-signing-key-file.',
  ),
  'service-account-issuer': flag.list(
    'Identifier of the service account token issuer: the "iss" claim of issued tokens, and the default audience. May be given multiple times: the first issues, all are accepted.',
  ),
  'oidc-issuer-url': flag.string(
    "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).",
  ),
  'oidc-client-id': flag.string('The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.'),
  'oidc-username-claim': flag.string(
    "The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable.",
    'sub',
  ),
  'oidc-username-prefix': flag.string(
    "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.",
  ),
  'oidc-groups-claim': flag.string('If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.'),
  'oidc-groups-prefix': flag.string('If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.'),
  'oidc-ca-file': flag.string("If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used."),
  'oidc-required-claim': flag.list(
    'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.',
  ),
  'oidc-signing-algs': flag.list('Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported \'alg\' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512.', ['RS256']),
  'api-audiences': flag.list(
    'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If --service-account-issuer is configured and this flag is not, this field defaults to a single element list containing the issuer URL.',
  ),
  'service-account-max-token-expiration': flag.duration(
    'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value. 0: no maximum.',
    0,
  ),
  'enable-admission-plugins': flag.stringSlice(
    `admission plugins that should be enabled in addition to default enabled ones (${defaultOnPlugins()}). Comma-delimited list of admission plugins: ${ORDERED_PLUGINS.join(', ')}. The order of plugins in this flag does not matter. Those that act only on kinds this server does not serve (pods, persistent volume claims, ...) have nothing to admit here; NamespaceAutoProvision, NamespaceExists, NodeRestriction, EventRateLimit and OwnerReferencesPermissionEnforcement are refused: they would act on what this server serves, and are not implemented.`,
  ),
  'disable-admission-plugins': flag.stringSlice(
    `admission plugins that should be disabled although they are in the default enabled plugins list (${defaultOnPlugins()}). Comma-delimited list of admission plugins: ${ORDERED_PLUGINS.join(', ')}. The order of plugins in this flag does not matter.`,
  ),
  'runtime-config': flag.list(
    'A set of key=value pairs that enable or disable built-in APIs: api/all, api/ga, api/beta, api/alpha, <group>/<version> (the core group: v1) or <group>/<version>/<resource>, =true or =false (no value means true); the most specific wins. Groups may be named in the k8s.io form. By default GA and beta versions are served and alpha versions are not.',
  ),
  'feature-gates': flag.list(`A set of key=value pairs that describe feature gates for alpha/experimental features. Options are: ${featureGatesHelp()}.`),
  'show-hidden-metrics-for-version': flag.string(
    "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.27'. The purpose of this format is make sure you have the opportunity to notice if the next release hides additional metrics, rather than being surprised when they are permanently removed in the release after that.",
  ),
  'audit-log-path': flag.string(
    'If set, all requests coming to the apiserver will be logged to this file, one line per event the audit policy records (without --audit-policy-file: every request at level Metadata, stage ResponseComplete). Empty: no audit log.',
  ),
  'audit-policy-file': flag.string('Path to the file that defines the audit policy configuration (an audit.<api-domain>/v1 Policy, YAML or JSON).'),
  'audit-log-format': flag.enum(
    'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.',
    ['json', 'legacy'] as const,
    'json',
  ),
  'audit-log-maxage': flag.int('The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.', 0, 0, 1_000_000),
  'audit-log-maxbackup': flag.int(
    "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.",
    0,
    0,
    1_000_000,
  ),
  'audit-log-maxsize': flag.int('The maximum size in megabytes of the audit log file before it gets rotated (0: 100, as upstream\'s).', 0, 0, 1_000_000),
  'enable-priority-and-fairness': flag.bool(
    'If true and the APIPriorityAndFairness feature gate is enabled, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness',
    true,
  ),
  'max-requests-inflight': flag.int(
    "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.",
    400,
    0,
    1_000_000,
  ),
  'max-mutating-requests-inflight': flag.int(
    "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.",
    200,
    0,
    1_000_000,
  ),
  'redis-url': flag.string(
    'redis://host:port[/db]: per-user request rates (--per-user-qps, --per-user-burst) shared by every replica through this Redis. While it is unreachable each replica applies the same rates alone. Empty: no per-user rates.',
  ),
  'per-user-qps': flag.int('With --redis-url: the sustained requests per second one user may make over all replicas (members of system:masters are exempt).', 100, 1, 1_000_000),
  'per-user-burst': flag.int('With --redis-url: the requests one user may make at once above --per-user-qps.', 200, 1, 1_000_000),
} satisfies Record<string, unknown>;

export type ApiserverFlagValues = FlagValues<typeof apiserverFlags>;

export interface ApiserverConfig {
  storage: {
    backend: 'etcd3' | 'sqlite' | 'memory';
    /** For sqlite: --storage-dir. */
    dir?: string;
    etcdServers: string[];
    prefix: string;
    compactionIntervalMs: number;
    /** Present when any of --etcd-cafile, --etcd-certfile, --etcd-keyfile is given. */
    etcdTlsFiles?: { caFile?: string; certFile?: string; keyFile?: string };
    /** --encryption-provider-config: encryption at rest of the resources it lists. */
    encryptionProviderConfig?: string;
  };
  storageHealthTimeoutMs: number;
  /** Serve watches and current lists from the watch cache (--watch-cache). */
  watchCache: boolean;
  /**
   * With --watch-cache: kube-apiserver's entries (Events uncached), then --watch-cache-sizes' own,
   * the last for a resource winning; a resource at 0 has no watch cache. Empty without the cache.
   */
  watchCacheSizes: WatchCacheSize[];
  /** The deprecated flags given, one warning each (pflag's words), for the log. */
  flagWarnings: string[];
  /** --event-ttl: how long an Event lives after its last write. */
  eventTTLMs: number;
  /** --service-cluster-ip-range ('' for upstream's default) and --service-node-port-range. */
  serviceClusterIPRange: string;
  serviceNodePortRange: string;
  bindAddress: string;
  port: number;
  /** --http2-max-streams-per-connection (0: Go's default). */
  http2MaxStreamsPerConnection: number;
  certDir: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tokenAuthFile?: string;
  clientCAFile?: string;
  /** --tls-min-version and --tls-cipher-suites. */
  tls: TlsPolicy;
  /** --request-timeout; 0: none. */
  requestTimeoutMs: number;
  /** --min-request-timeout, in seconds. */
  minRequestTimeoutS: number;
  /** --api-audiences (the service accounts' default: their issuers). */
  apiAudiences: string[];
  /** Present when --service-account-issuer is given. */
  serviceAccounts?: { issuers: string[]; keyFiles: string[]; signingKeyFile?: string; apiAudiences: string[]; maxExpirationSeconds?: number };
  anonymousAuth: boolean;
  authorizationModes: AuthorizationMode[];
  /** --authorization-webhook-*: present with the Webhook mode. */
  authorizationWebhook?: { configFile: string; version: 'v1' | 'v1beta1'; authorizedTtlMs: number; unauthorizedTtlMs: number };
  /** --authentication-token-webhook-*: present with its config file. */
  tokenWebhook?: { configFile: string; version: 'v1' | 'v1beta1'; cacheTtlMs: number };
  apiDomain: string;
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  logLevel: LogLevel;
  /** --show-hidden-metrics-for-version: the previous minor release, when given. */
  showHiddenMetricsForVersion?: string;
  featureGates: ApiserverFeatureGate;
  /** Upstream's warnings for the GA and deprecated gates --feature-gates set, for the log. */
  featureGateWarnings: string[];
  auditLogPath?: string;
  /** --audit-log-format and the rotation flags. */
  auditLog: { format: 'json' | 'legacy'; maxSizeMB: number; maxBackups: number; maxAgeDays: number };
  /** --audit-policy-file: read and decoded at start. */
  auditPolicyFile?: string;
  /** --oidc-*: present with --oidc-issuer-url. */
  oidc?: {
    issuerURL: string;
    clientID: string;
    usernameClaim: string;
    usernamePrefix: string;
    groupsClaim: string;
    groupsPrefix: string;
    caFile?: string;
    requiredClaims: Record<string, string>;
    signingAlgs: string[];
  };
  /** --runtime-config, checked for syntax (the server checks the names). */
  runtimeConfig: RuntimeConfigEntry[];
  /** --enable-admission-plugins and --disable-admission-plugins: the plugins that run, in order. */
  admissionPlugins: PluginName[];
  limits: { maxRequestsInflight: number; maxMutatingRequestsInflight: number; userRate?: { qps: number; burst: number; redisUrl: string } };
  /** --enable-priority-and-fairness with the APIPriorityAndFairness gate: API Priority and Fairness replaces the in-flight limits. */
  priorityAndFairness: boolean;
}

const invalid = (name: string, value: string, reason: string): FlagError =>
  new FlagError(`invalid value ${JSON.stringify(value)} for flag --${name}: ${reason}`);

function checkAuthorizationModes(modes: string[], webhookConfigFile: string): AuthorizationMode[] {
  if (!modes.length) throw new FlagError('flag --authorization-mode: at least one authorization mode must be given');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(authorizationModes as readonly string[]).includes(mode)) {
      throw invalid('authorization-mode', mode, `must be one of ${authorizationModes.join(', ')}`);
    }
    if (seen.has(mode)) throw invalid('authorization-mode', mode, 'mode given more than once');
    seen.add(mode);
  }
  // Upstream's two refusals.
  if (seen.has('Webhook') && !webhookConfigFile) throw new FlagError("authorization-mode Webhook's authorization config file not passed");
  if (webhookConfigFile && !seen.has('Webhook')) throw new FlagError('cannot specify --authorization-webhook-config-file without mode Webhook');
  return modes as AuthorizationMode[];
}

/** Upstream's checks of --service-account-issuer, and that the service-account flags come together. */
function serviceAccountConfig(values: ApiserverFlagValues): ApiserverConfig['serviceAccounts'] {
  const issuers = values['service-account-issuer'];
  const keyFiles = values['service-account-key-file'];
  const signingKeyFile = values['service-account-signing-key-file'];
  const seen = new Set<string>();
  for (const issuer of issuers) {
    if (!issuer) throw invalid('service-account-issuer', issuer, 'should not be an empty string');
    if (issuer.includes(':') && !URL.canParse(issuer)) throw invalid('service-account-issuer', issuer, "contained a ':' but was not a valid URL");
    if (seen.has(issuer)) throw invalid('service-account-issuer', issuer, 'is already specified');
    seen.add(issuer);
  }
  if (!issuers.length) {
    if (values['service-account-max-token-expiration']) throw new FlagError('flag --service-account-max-token-expiration requires --service-account-issuer');
    if (signingKeyFile) throw new FlagError('flag --service-account-signing-key-file requires --service-account-issuer');
    if (keyFiles.length) throw new FlagError('flag --service-account-key-file requires --service-account-issuer');
    return undefined;
  }
  if (!signingKeyFile && !keyFiles.length) {
    throw new FlagError('flag --service-account-issuer requires --service-account-signing-key-file or --service-account-key-file');
  }
  const maxExpiration = values['service-account-max-token-expiration'];
  // Upstream's bounds: an hour at least, 2^32 seconds at most.
  if (maxExpiration && (maxExpiration < 3_600_000 || maxExpiration > 2 ** 32 * 1000)) {
    throw new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  return {
    issuers,
    keyFiles,
    ...(signingKeyFile && { signingKeyFile }),
    apiAudiences: values['api-audiences'],
    ...(maxExpiration && { maxExpirationSeconds: Math.floor(maxExpiration / 1000) }),
  };
}

/** --tls-min-version and --tls-cipher-suites, with upstream's refusals. */
function tlsPolicy(minVersion: string, suites: string[]): TlsPolicy {
  const policy: TlsPolicy = { minVersion: 'TLSv1.2' };
  try {
    policy.minVersion = parseTlsMinVersion(minVersion);
  } catch (error) {
    throw invalid('tls-min-version', minVersion, error instanceof Error ? error.message : String(error));
  }
  try {
    const tls12Suites = parseTlsCipherSuites(suites);
    if (tls12Suites) policy.tls12Suites = tls12Suites;
  } catch (error) {
    throw invalid('tls-cipher-suites', suites.join(','), error instanceof Error ? error.message : String(error));
  }
  return policy;
}

const signingAlgs = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** --oidc-*, with upstream's checks. */
function oidcConfig(values: ApiserverFlagValues): ApiserverConfig['oidc'] {
  const issuerURL = values['oidc-issuer-url'];
  const clientID = values['oidc-client-id'];
  if (issuerURL && !clientID) throw new FlagError('oidc-issuer-url requires oidc-client-id');
  if (clientID && !issuerURL) throw new FlagError('oidc-client-id requires oidc-issuer-url');
  if (!issuerURL) return undefined;
  const scheme = URL.canParse(issuerURL) ? new URL(issuerURL).protocol.slice(0, -1) : '';
  if (scheme !== 'https') throw new FlagError(`'oidc-issuer-url' (${JSON.stringify(issuerURL)}) has invalid scheme (${JSON.stringify(scheme)}), require 'https'`);
  const requiredClaims: Record<string, string> = {};
  for (const pair of values['oidc-required-claim']) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw invalid('oidc-required-claim', pair, 'must be formatted as key=value');
    requiredClaims[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  for (const alg of values['oidc-signing-algs']) {
    if (!signingAlgs.includes(alg)) throw invalid('oidc-signing-algs', alg, `oidc: unsupported signing alg: ${alg}`);
  }
  return {
    issuerURL,
    clientID,
    usernameClaim: values['oidc-username-claim'],
    usernamePrefix: values['oidc-username-prefix'],
    groupsClaim: values['oidc-groups-claim'],
    groupsPrefix: values['oidc-groups-prefix'],
    ...(values['oidc-ca-file'] && { caFile: values['oidc-ca-file'] }),
    requiredClaims,
    signingAlgs: values['oidc-signing-algs'],
  };
}

/**
 * --watch-cache-sizes after kube-apiserver's defaults, refused with upstream's messages. Without the
 * watch cache upstream never reads the flag, so neither is it checked then.
 */
function watchCacheSizes(watchCache: boolean, entries: string[]): WatchCacheSize[] {
  if (!watchCache) return [];
  try {
    return [...DEFAULT_WATCH_CACHE_SIZES, ...parseWatchCacheSizes(entries)];
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error));
  }
}

function admissionPlugins(enable: string[], disable: string[]): PluginName[] {
  try {
    return enabledPlugins({ enable, disable });
  } catch (error) {
    if (error instanceof AdmissionPluginFlagsError) throw new FlagError(error.problems.length === 1 ? error.problems[0]! : `[${error.problems.join(', ')}]`);
    throw error;
  }
}

function runtimeConfig(items: string[]): RuntimeConfigEntry[] {
  try {
    return parseRuntimeConfig(items);
  } catch (error) {
    throw new FlagError(`invalid value ${JSON.stringify(items.join(','))} for flag --runtime-config: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Checks what the flags mean together and makes the config; throws FlagError naming the flag. */
export function buildConfig(values: ApiserverFlagValues, flagWarnings: string[] = []): ApiserverConfig {
  if (values['storage-backend'] === 'etcd3' && !values['etcd-servers'].length) {
    throw new FlagError('flag --etcd-servers must be specified when --storage-backend is etcd3');
  }
  if (values['storage-backend'] === 'sqlite' && !values['storage-dir']) {
    throw new FlagError('flag --storage-dir must be specified when --storage-backend is sqlite');
  }
  if (values['storage-dir'] && values['storage-backend'] !== 'sqlite') {
    throw new FlagError('flag --storage-dir applies to --storage-backend=sqlite only');
  }
  for (const server of values['etcd-servers']) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(server) && !/^https?:\/\/[^/]+\/?$/i.test(server)) {
      throw invalid('etcd-servers', server, 'must be http://host:port or https://host:port');
    }
  }
  if (Boolean(values['etcd-certfile']) !== Boolean(values['etcd-keyfile'])) {
    throw new FlagError('flags --etcd-certfile and --etcd-keyfile must be given together');
  }
  const etcdTlsFiles = {
    ...(values['etcd-cafile'] && { caFile: values['etcd-cafile'] }),
    ...(values['etcd-certfile'] && { certFile: values['etcd-certfile'] }),
    ...(values['etcd-keyfile'] && { keyFile: values['etcd-keyfile'] }),
  };
  if (!isIP(values['bind-address'])) throw invalid('bind-address', values['bind-address'], 'must be an IP address');
  if (!values['cert-dir']) throw invalid('cert-dir', '', 'must not be empty');
  if (Boolean(values['tls-cert-file']) !== Boolean(values['tls-private-key-file'])) {
    throw new FlagError('flags --tls-cert-file and --tls-private-key-file must be given together');
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(values['api-domain'])) {
    throw invalid('api-domain', values['api-domain'], 'must be a DNS domain such as plat.io');
  }
  const serviceAccounts = serviceAccountConfig(values);
  const featureGates = parseFeatureGates(values['feature-gates']);
  const priorityAndFairness = values['enable-priority-and-fairness'] && featureGates.gates.enabled('APIPriorityAndFairness');
  // Upstream's check (its ServerRunOptions.Validate): the two limits are the server's seats.
  if (priorityAndFairness && values['max-requests-inflight'] + values['max-mutating-requests-inflight'] <= 0) {
    throw new FlagError(
      `invalid configuration: MaxRequestsInFlight=${values['max-requests-inflight']} and MaxMutatingRequestsInFlight=${values['max-mutating-requests-inflight']}; they must add up to something positive`,
    );
  }
  const oidc = oidcConfig(values);
  const tls = tlsPolicy(values['tls-min-version'], values['tls-cipher-suites']);
  const hiddenMetrics = checkShowHiddenMetricsForVersion(values['show-hidden-metrics-for-version']);
  if (hiddenMetrics) throw new FlagError(hiddenMetrics);
  if (values['redis-url'] && !/^rediss?:\/\//.test(values['redis-url'])) throw invalid('redis-url', values['redis-url'], 'must be a redis:// or rediss:// URL');
  // upstream's validateClusterIPFlags: its messages, several as an aggregate.
  const ranges = parseServiceClusterIPRanges(values['service-cluster-ip-range'] ?? '');
  if (ranges.errors.length) throw new FlagError(ranges.errors.length === 1 ? ranges.errors[0]! : `[${ranges.errors.join(', ')}]`);
  return {
    storage: {
      backend: values['storage-backend'],
      ...(values['storage-dir'] && { dir: values['storage-dir'] }),
      etcdServers: values['etcd-servers'],
      prefix: values['etcd-prefix'],
      compactionIntervalMs: values['etcd-compaction-interval'],
      ...(Object.keys(etcdTlsFiles).length > 0 && { etcdTlsFiles }),
      ...(values['encryption-provider-config'] && { encryptionProviderConfig: values['encryption-provider-config'] }),
    },
    storageHealthTimeoutMs: values['etcd-healthcheck-timeout'],
    watchCache: values['watch-cache'],
    watchCacheSizes: watchCacheSizes(values['watch-cache'], values['watch-cache-sizes']),
    flagWarnings,
    eventTTLMs: values['event-ttl'],
    serviceClusterIPRange: values['service-cluster-ip-range'] ?? '',
    serviceNodePortRange: values['service-node-port-range'],
    bindAddress: values['bind-address'],
    port: values['secure-port'],
    http2MaxStreamsPerConnection: values['http2-max-streams-per-connection'],
    certDir: values['cert-dir'],
    ...(values['tls-cert-file'] ? { tlsCertFile: values['tls-cert-file'], tlsPrivateKeyFile: values['tls-private-key-file'] } : {}),
    tls,
    requestTimeoutMs: values['request-timeout'],
    minRequestTimeoutS: values['min-request-timeout'],
    ...(values['token-auth-file'] ? { tokenAuthFile: values['token-auth-file'] } : {}),
    ...(values['client-ca-file'] ? { clientCAFile: values['client-ca-file'] } : {}),
    ...(serviceAccounts && { serviceAccounts }),
    ...(oidc && { oidc }),
    apiAudiences: values['api-audiences'],
    anonymousAuth: values['anonymous-auth'],
    authorizationModes: checkAuthorizationModes(values['authorization-mode'], values['authorization-webhook-config-file']),
    ...(values['authorization-webhook-config-file'] && {
      authorizationWebhook: {
        configFile: values['authorization-webhook-config-file'],
        version: values['authorization-webhook-version'],
        authorizedTtlMs: values['authorization-webhook-cache-authorized-ttl'],
        unauthorizedTtlMs: values['authorization-webhook-cache-unauthorized-ttl'],
      },
    }),
    ...(values['authentication-token-webhook-config-file'] && {
      tokenWebhook: {
        configFile: values['authentication-token-webhook-config-file'],
        version: values['authentication-token-webhook-version'],
        cacheTtlMs: values['authentication-token-webhook-cache-ttl'],
      },
    }),
    apiDomain: values['api-domain'],
    shutdownDelayMs: values['shutdown-delay-duration'],
    shutdownTimeoutMs: values['shutdown-timeout'],
    logLevel: values['log-level'],
    ...(values['show-hidden-metrics-for-version'] && { showHiddenMetricsForVersion: values['show-hidden-metrics-for-version'] }),
    featureGates: featureGates.gates,
    featureGateWarnings: featureGates.warnings,
    ...(values['audit-log-path'] && { auditLogPath: values['audit-log-path'] }),
    auditLog: {
      format: values['audit-log-format'],
      maxSizeMB: values['audit-log-maxsize'],
      maxBackups: values['audit-log-maxbackup'],
      maxAgeDays: values['audit-log-maxage'],
    },
    ...(values['audit-policy-file'] && { auditPolicyFile: values['audit-policy-file'] }),
    runtimeConfig: runtimeConfig(values['runtime-config']),
    admissionPlugins: admissionPlugins(values['enable-admission-plugins'], values['disable-admission-plugins']),
    priorityAndFairness,
    limits: {
      maxRequestsInflight: values['max-requests-inflight'],
      maxMutatingRequestsInflight: values['max-mutating-requests-inflight'],
      ...(values['redis-url'] && { userRate: { qps: values['per-user-qps'], burst: values['per-user-burst'], redisUrl: values['redis-url'] } }),
    },
  };
}

/** Flags to config; `help` when --help was asked for. Throws FlagError. */
export function parseCommandLine(argv: readonly string[]): { config: ApiserverConfig; help: false } | { help: true } {
  const parsed = parseFlags(apiserverFlags, argv);
  if (parsed.help) return { help: true };
  return { config: buildConfig(parsed.values, parsed.warnings), help: false };
}
