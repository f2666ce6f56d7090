import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError } from '@plat/apimachinery';
import { DEFAULT_WATCH_CACHE_SIZES } from '@plat/apiserver';
import { usage } from '@plat/apimachinery';
import { apiserverFlags, defaultCertDir, parseCommandLine, type ApiserverConfig } from './options.js';

const memory = ['--storage-backend=memory'];

function config(argv: string[]): ApiserverConfig {
  const parsed = parseCommandLine(argv);
  assert.ok(!parsed.help);
  return parsed.config;
}

test('options: defaults', () => {
  const { featureGates, featureGateWarnings, ...rest } = config(['--etcd-servers=http://127.0.0.1:2379']);
  assert.deepEqual(
    [featureGates.enabled('APIListChunking'), featureGates.enabled('APIResponseCompression'), featureGates.enabled('WatchList'), featureGates.enabled('ConsistentListFromCache')],
    [true, true, false, false],
  );
  assert.deepEqual(featureGateWarnings, []);
  assert.deepEqual(rest, {
    storage: { backend: 'etcd3', etcdServers: ['http://127.0.0.1:2379'], prefix: '/registry', compactionIntervalMs: 300_000 },
    storageHealthTimeoutMs: 2000,
    watchCache: true,
    // kube-apiserver's own entries: Events without a watch cache.
    watchCacheSizes: [
      { resource: 'events', group: '', size: 0 },
      { resource: 'events', group: 'events.k8s.io', size: 0 },
    ],
    flagWarnings: [],
    eventTTLMs: 3_600_000,
    bindAddress: '0.0.0.0',
    port: 6443,
    http2MaxStreamsPerConnection: 1000,
    certDir: defaultCertDir(),
    anonymousAuth: true,
    apiAudiences: [],
    authorizationModes: ['RBAC'],
    apiDomain: 'plat.io',
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 30_000,
    logLevel: 'info',
    tls: { minVersion: 'TLSv1.2' },
    requestTimeoutMs: 60_000,
    minRequestTimeoutS: 1800,
    auditLog: { format: 'json', maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 },
    limits: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 },
    priorityAndFairness: true,
    runtimeConfig: [],
    serviceClusterIPRange: '',
    serviceNodePortRange: '30000-32767',
    // kube-apiserver 1.28's default set of admission plugins, in its order.
    admissionPlugins: [
      'NamespaceLifecycle',
      'LimitRanger',
      'ServiceAccount',
      'TaintNodesByCondition',
      'PodSecurity',
      'Priority',
      'DefaultTolerationSeconds',
      'DefaultStorageClass',
      'StorageObjectInUseProtection',
      'PersistentVolumeClaimResize',
      'RuntimeClass',
      'CertificateApproval',
      'CertificateSigning',
      'ClusterTrustBundleAttest',
      'CertificateSubjectRestriction',
      'DefaultIngressClass',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ],
  });
});

test('options: --enable-admission-plugins and --disable-admission-plugins, in upstream\'s order whatever theirs', () => {
  const { admissionPlugins } = config([...memory, '--enable-admission-plugins=AlwaysDeny,AlwaysAdmit', '--disable-admission-plugins=TaintNodesByCondition,ValidatingAdmissionPolicy,ResourceQuota']);
  assert.deepEqual(admissionPlugins.slice(0, 2), ['AlwaysAdmit', 'NamespaceLifecycle']);
  assert.equal(admissionPlugins.at(-1), 'AlwaysDeny');
  for (const name of ['TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ResourceQuota']) assert.ok(!admissionPlugins.includes(name as never), name);
});

const ok: { name: string; argv: string[]; want: Partial<ApiserverConfig> }[] = [
  { name: '--event-ttl takes a Go duration', argv: [...memory, '--event-ttl=90s'], want: { eventTTLMs: 90_000 } },
  { name: '--http2-max-streams-per-connection (0: Go\'s default)', argv: [...memory, '--http2-max-streams-per-connection=0'], want: { http2MaxStreamsPerConnection: 0 } },
  { name: 'memory backend needs no etcd', argv: memory, want: { storage: { backend: 'memory', etcdServers: [], prefix: '/registry', compactionIntervalMs: 300_000 } } },
  {
    name: 'etcd flags',
    argv: ['--etcd-servers=http://a:2379,http://b:2379', '--etcd-prefix=/plat', '--etcd-compaction-interval=0'],
    want: { storage: { backend: 'etcd3', etcdServers: ['http://a:2379', 'http://b:2379'], prefix: '/plat', compactionIntervalMs: 0 } },
  },
  {
    name: 'etcd over TLS: CA, client certificate and key',
    argv: ['--etcd-servers=https://a:2379', '--etcd-cafile=/etcd/ca.crt', '--etcd-certfile=/etcd/client.crt', '--etcd-keyfile=/etcd/client.key'],
    want: {
      storage: {
        backend: 'etcd3',
        etcdServers: ['https://a:2379'],
        prefix: '/registry',
        compactionIntervalMs: 300_000,
        etcdTlsFiles: { caFile: '/etcd/ca.crt', certFile: '/etcd/client.crt', keyFile: '/etcd/client.key' },
      },
    },
  },
  {
    name: 'etcd over TLS: the CA alone',
    argv: ['--etcd-servers=https://a:2379', '--etcd-cafile=/etcd/ca.crt'],
    want: { storage: { backend: 'etcd3', etcdServers: ['https://a:2379'], prefix: '/registry', compactionIntervalMs: 300_000, etcdTlsFiles: { caFile: '/etcd/ca.crt' } } },
  },
  {
    name: 'sqlite backend keeps its database in --storage-dir',
    argv: ['--storage-backend=sqlite', '--storage-dir=/var/lib/plat', '--etcd-prefix=/plat'],
    want: { storage: { backend: 'sqlite', dir: '/var/lib/plat', etcdServers: [], prefix: '/plat', compactionIntervalMs: 300_000 } },
  },
  { name: 'port 0 and a bind address', argv: [...memory, '--secure-port=0', '--bind-address=127.0.0.1'], want: { port: 0, bindAddress: '127.0.0.1' } },
  { name: 'IPv6 bind address', argv: [...memory, '--bind-address=::1'], want: { bindAddress: '::1' } },
  { name: 'watch cache off', argv: [...memory, '--watch-cache=false'], want: { watchCache: false, watchCacheSizes: [] } },
  {
    name: '--watch-cache-sizes after kube-apiserver\'s entries, in order, repeated flags appending',
    argv: [...memory, '--watch-cache-sizes=configmaps#0,deployments.apps#100', '--watch-cache-sizes', 'events#5'],
    want: {
      watchCacheSizes: [
        ...DEFAULT_WATCH_CACHE_SIZES,
        { resource: 'configmaps', group: '', size: 0 },
        { resource: 'deployments', group: 'apps', size: 100 },
        { resource: 'events', group: '', size: 5 },
      ],
    },
  },
  // Upstream reads the sizes only with the watch cache on: without it, not even their syntax.
  { name: '--watch-cache-sizes is not consulted with --watch-cache=false', argv: [...memory, '--watch-cache=false', '--watch-cache-sizes=nonsense'], want: { watchCacheSizes: [] } },
  {
    name: '--default-watch-cache-size is taken, deprecated, and changes nothing (as in kube-apiserver 1.28)',
    argv: [...memory, '--default-watch-cache-size=0'],
    want: {
      watchCache: true,
      watchCacheSizes: [...DEFAULT_WATCH_CACHE_SIZES],
      flagWarnings: ['Flag --default-watch-cache-size has been deprecated, watch caches are sized automatically and this flag will be removed in a future version'],
    },
  },
  { name: 'anonymous auth off', argv: [...memory, '--anonymous-auth=false'], want: { anonymousAuth: false } },
  { name: 'authorization modes in order', argv: [...memory, '--authorization-mode=AlwaysDeny,AlwaysAllow'], want: { authorizationModes: ['AlwaysDeny', 'AlwaysAllow'] } },
  { name: 'RBAC with another mode', argv: [...memory, '--authorization-mode=RBAC,AlwaysDeny'], want: { authorizationModes: ['RBAC', 'AlwaysDeny'] } },
  {
    name: 'Webhook authorization with its file, version and TTLs',
    argv: [...memory, '--authorization-mode=RBAC,Webhook', '--authorization-webhook-config-file=/authz.yaml', '--authorization-webhook-version=v1beta1', '--authorization-webhook-cache-unauthorized-ttl=0'],
    want: { authorizationModes: ['RBAC', 'Webhook'], authorizationWebhook: { configFile: '/authz.yaml', version: 'v1beta1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 0 } },
  },
  {
    name: 'webhook token authentication, upstream\'s defaults',
    argv: [...memory, '--authentication-token-webhook-config-file=/authn.yaml'],
    want: { tokenWebhook: { configFile: '/authn.yaml', version: 'v1', cacheTtlMs: 120_000 } },
  },
  {
    name: 'webhook token authentication, its cache TTL',
    argv: [...memory, '--authentication-token-webhook-config-file=/authn.yaml', '--authentication-token-webhook-cache-ttl=10s'],
    want: { tokenWebhook: { configFile: '/authn.yaml', version: 'v1', cacheTtlMs: 10_000 } },
  },
  { name: 'client CA file', argv: [...memory, '--client-ca-file=/ca.crt'], want: { clientCAFile: '/ca.crt' } },
  {
    name: 'service-account issuer and signing key',
    argv: [...memory, '--service-account-issuer=https://plat.example', '--service-account-signing-key-file=/sa.key'],
    want: { serviceAccounts: { issuers: ['https://plat.example'], keyFiles: [], signingKeyFile: '/sa.key', apiAudiences: [] } },
  },
  {
    name: '--api-audiences and --service-account-max-token-expiration',
    argv: [...memory, '--service-account-issuer=https://plat.example', '--service-account-signing-key-file=/sa.key', '--api-audiences=api,plat', '--service-account-max-token-expiration=2h'],
    want: { serviceAccounts: { issuers: ['https://plat.example'], keyFiles: [], signingKeyFile: '/sa.key', apiAudiences: ['api', 'plat'], maxExpirationSeconds: 7200 } },
  },
  {
    name: 'several issuers and key files: verification only',
    argv: [...memory, '--service-account-issuer=https://a', '--service-account-issuer=b', '--service-account-key-file=/a.pub', '--service-account-key-file=/b.pub'],
    want: { serviceAccounts: { issuers: ['https://a', 'b'], keyFiles: ['/a.pub', '/b.pub'], apiAudiences: [] } },
  },
  { name: 'no service-account flags', argv: memory, want: { serviceAccounts: undefined } },
  { name: 'TLS files', argv: [...memory, '--tls-cert-file=/c.crt', '--tls-private-key-file=/c.key'], want: { tlsCertFile: '/c.crt', tlsPrivateKeyFile: '/c.key' } },
  { name: 'token file', argv: [...memory, '--token-auth-file=/tokens.csv'], want: { tokenAuthFile: '/tokens.csv' } },
  { name: 'api domain', argv: [...memory, '--api-domain=k8s.io'], want: { apiDomain: 'k8s.io' } },
  { name: 'shutdown durations', argv: [...memory, '--shutdown-delay-duration=10s', '--shutdown-timeout=1m'], want: { shutdownDelayMs: 10_000, shutdownTimeoutMs: 60_000 } },
  { name: 'log level', argv: [...memory, '--log-level=debug'], want: { logLevel: 'debug' } },
  { name: 'runtime-config empty', argv: [...memory, '--runtime-config='], want: { runtimeConfig: [] } },
  {
    name: 'runtime-config: omitted value means true',
    argv: [...memory, '--runtime-config=api/alpha,networking.k8s.io/v1alpha1=false', '--runtime-config=v1/namespaces=true'],
    want: {
      runtimeConfig: [
        { key: 'api/alpha', enabled: true },
        { key: 'networking.k8s.io/v1alpha1', enabled: false },
        { key: 'v1/namespaces', enabled: true },
      ],
    },
  },
  {
    name: 'timeouts',
    argv: [...memory, '--request-timeout=30s', '--min-request-timeout=600'],
    want: { requestTimeoutMs: 30_000, minRequestTimeoutS: 600 },
  },
  {
    name: 'TLS 1.3 at least',
    argv: [...memory, '--tls-min-version=VersionTLS13'],
    want: { tls: { minVersion: 'TLSv1.3' } },
  },
  {
    name: 'TLS 1.2 suites by Go\'s names, in order',
    argv: [...memory, '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
    want: { tls: { minVersion: 'TLSv1.2', tls12Suites: ['ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-AES128-GCM-SHA256'] } },
  },
  { name: 'hidden metrics shown for the previous release', argv: [...memory, '--show-hidden-metrics-for-version=1.27'], want: { showHiddenMetricsForVersion: '1.27' } },
  {
    name: 'audit policy, format and rotation',
    argv: [...memory, '--audit-policy-file=/etc/plat/audit.yaml', '--audit-log-format=legacy', '--audit-log-maxsize=10', '--audit-log-maxbackup=3', '--audit-log-maxage=7'],
    want: { auditPolicyFile: '/etc/plat/audit.yaml', auditLog: { format: 'legacy', maxSizeMB: 10, maxBackups: 3, maxAgeDays: 7 } },
  },
  { name: 'audit log path', argv: [...memory, '--audit-log-path=/var/log/plat/audit.log'], want: { auditLogPath: '/var/log/plat/audit.log' } },
  { name: 'in-flight limits by default', argv: memory, want: { limits: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 } } },
  { name: 'priority and fairness on by default, as kube-apiserver', argv: memory, want: { priorityAndFairness: true } },
  { name: 'priority and fairness off by its flag: the in-flight limits apply', argv: [...memory, '--enable-priority-and-fairness=false'], want: { priorityAndFairness: false } },
  { name: 'priority and fairness off by its feature gate', argv: [...memory, '--feature-gates=APIPriorityAndFairness=false'], want: { priorityAndFairness: false } },
  {
    name: 'no in-flight limits without priority and fairness',
    argv: [...memory, '--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'],
    want: { priorityAndFairness: false, limits: { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 } },
  },
  {
    name: 'in-flight limits and per-user rates through Redis',
    argv: [...memory, '--max-requests-inflight=10', '--max-mutating-requests-inflight=0', '--redis-url=redis://127.0.0.1:6379', '--per-user-qps=5'],
    want: { limits: { maxRequestsInflight: 10, maxMutatingRequestsInflight: 0, userRate: { qps: 5, burst: 200, redisUrl: 'redis://127.0.0.1:6379' } } },
  },
];

test('options: feature gates, as @plat/featuregate reads them (ValidatingAdmissionPolicy beta and off, WatchList alpha)', () => {
  const gates = (argv: string[]) => config([...memory, ...argv]).featureGates;
  assert.deepEqual(
    ['APIListChunking', 'APIResponseCompression', 'ValidatingAdmissionPolicy', 'WatchList'].map((name) => gates([]).enabled(name as 'WatchList')),
    [true, true, false, false],
  );
  const set = gates(['--feature-gates=WatchList=true,APIListChunking=false,ValidatingAdmissionPolicy=true']);
  assert.deepEqual([set.enabled('WatchList'), set.enabled('APIListChunking'), set.enabled('ValidatingAdmissionPolicy')], [true, false, true]);
});

for (const { name, argv, want } of ok) {
  test(`options: ${name}`, () => {
    const got = config(argv);
    for (const [key, value] of Object.entries(want)) assert.deepEqual(got[key as keyof ApiserverConfig], value, key);
  });
}

const gateCases: { name: string; argv: string[]; gates: Record<string, boolean>; warnings?: string[] }[] = [
  { name: 'a beta gate off', argv: ['--feature-gates=APIResponseCompression=false'], gates: { APIListChunking: true, APIResponseCompression: false, WatchList: false } },
  {
    name: 'WatchList (alpha) on, APIListChunking (beta) off',
    argv: ['--feature-gates=WatchList=true,APIListChunking=false'],
    gates: { APIListChunking: false, APIResponseCompression: true, WatchList: true },
  },
  { name: 'ConsistentListFromCache (alpha) on', argv: ['--feature-gates=ConsistentListFromCache=true'], gates: { ConsistentListFromCache: true } },
  { name: 'repeated flags accumulate', argv: ['--feature-gates=WatchList=true', '--feature-gates=APIListChunking=false'], gates: { WatchList: true, APIListChunking: false } },
  { name: 'AllAlpha', argv: ['--feature-gates=AllAlpha=true,WatchList=false'], gates: { ConsistentListFromCache: true, WatchList: false, APIListChunking: true } },
  {
    name: 'a locked GA gate set to its value: accepted, with upstream\'s warning',
    argv: ['--feature-gates=ServerSideApply=true'],
    gates: { ServerSideApply: true },
    warnings: ['Setting GA feature gate ServerSideApply=true. It will be removed in a future release.'],
  },
  {
    name: 'a deprecated gate set to what this server does: accepted, with upstream\'s warning',
    argv: ['--feature-gates=KMSv1=false'],
    gates: { KMSv1: false },
    warnings: ['Setting deprecated feature gate KMSv1=false. It will be removed in a future release.'],
  },
];
for (const { name, argv, gates, warnings = [] } of gateCases) {
  test(`options: feature gates: ${name}`, () => {
    const got = config([...memory, ...argv]);
    for (const [gate, value] of Object.entries(gates)) assert.equal(got.featureGates.enabled(gate as 'WatchList'), value, gate);
    assert.deepEqual(got.featureGateWarnings, warnings);
  });
}

const bad: { name: string; argv: string[]; message: string }[] = [
  {
    name: 'priority and fairness with no seats',
    argv: [...memory, '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'],
    message: 'invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive',
  },
  { name: 'etcd3 without servers', argv: [], message: 'flag --etcd-servers must be specified when --storage-backend is etcd3' },
  { name: 'unknown backend', argv: ['--storage-backend=mysql'], message: 'invalid value "mysql" for flag --storage-backend: must be one of etcd3, sqlite, memory' },
  { name: 'sqlite without a folder', argv: ['--storage-backend=sqlite'], message: 'flag --storage-dir must be specified when --storage-backend is sqlite' },
  { name: 'a storage folder for another backend', argv: [...memory, '--storage-dir=/data'], message: 'flag --storage-dir applies to --storage-backend=sqlite only' },
  { name: 'bad port', argv: [...memory, '--secure-port=abc'], message: 'invalid value "abc" for flag --secure-port: must be an integer between 0 and 65535' },
  {
    name: 'a negative number of HTTP/2 streams',
    argv: [...memory, '--http2-max-streams-per-connection=-1'],
    message: 'invalid value "-1" for flag --http2-max-streams-per-connection: must be an integer between 0 and 2147483647',
  },
  { name: 'bind address not an IP', argv: [...memory, '--bind-address=localhost'], message: 'invalid value "localhost" for flag --bind-address: must be an IP address' },
  { name: 'unknown authorization mode', argv: [...memory, '--authorization-mode=Node'], message: 'invalid value "Node" for flag --authorization-mode: must be one of AlwaysAllow, AlwaysDeny, RBAC, Webhook' },
  { name: 'Webhook without its file', argv: [...memory, '--authorization-mode=RBAC,Webhook'], message: "authorization-mode Webhook's authorization config file not passed" },
  { name: 'a webhook file without the mode', argv: [...memory, '--authorization-webhook-config-file=/authz.yaml'], message: 'cannot specify --authorization-webhook-config-file without mode Webhook' },
  {
    name: 'an unknown webhook version',
    argv: [...memory, '--authentication-token-webhook-config-file=/a', '--authentication-token-webhook-version=v2'],
    message: 'invalid value "v2" for flag --authentication-token-webhook-version: must be one of v1, v1beta1',
  },
  {
    name: 'a signing key without an issuer',
    argv: [...memory, '--service-account-signing-key-file=/sa.key'],
    message: 'flag --service-account-signing-key-file requires --service-account-issuer',
  },
  { name: 'a key file without an issuer', argv: [...memory, '--service-account-key-file=/sa.pub'], message: 'flag --service-account-key-file requires --service-account-issuer' },
  {
    name: 'an issuer without keys',
    argv: [...memory, '--service-account-issuer=https://a'],
    message: 'flag --service-account-issuer requires --service-account-signing-key-file or --service-account-key-file',
  },
  {
    name: 'an issuer with a colon that is no URL',
    argv: [...memory, '--service-account-issuer=http://[x', '--service-account-key-file=/sa.pub'],
    message: 'invalid value "http://[x" for flag --service-account-issuer: contained a \':\' but was not a valid URL',
  },
  {
    name: 'an issuer given twice',
    argv: [...memory, '--service-account-issuer=a', '--service-account-issuer=a', '--service-account-key-file=/sa.pub'],
    message: 'invalid value "a" for flag --service-account-issuer: is already specified',
  },
  { name: 'repeated authorization mode', argv: [...memory, '--authorization-mode=AlwaysAllow,AlwaysAllow'], message: 'invalid value "AlwaysAllow" for flag --authorization-mode: mode given more than once' },
  { name: 'etcd client certificate without its key', argv: ['--etcd-servers=https://a:2379', '--etcd-certfile=/c.crt'], message: 'flags --etcd-certfile and --etcd-keyfile must be given together' },
  { name: 'etcd key without its certificate', argv: ['--etcd-servers=https://a:2379', '--etcd-keyfile=/c.key'], message: 'flags --etcd-certfile and --etcd-keyfile must be given together' },
  { name: 'etcd server of another scheme', argv: ['--etcd-servers=unix://etcd.sock'], message: 'invalid value "unix://etcd.sock" for flag --etcd-servers: must be http://host:port or https://host:port' },
  { name: 'TLS cert without key', argv: [...memory, '--tls-cert-file=/c.crt'], message: 'flags --tls-cert-file and --tls-private-key-file must be given together' },
  { name: 'bad api domain', argv: [...memory, '--api-domain=Plat'], message: 'invalid value "Plat" for flag --api-domain: must be a DNS domain such as plat.io' },
  {
    name: 'unknown feature gate',
    argv: [...memory, '--feature-gates=Teleport=true'],
    message: 'invalid value "Teleport=true" for flag --feature-gates: unrecognized feature gate: Teleport',
  },
  {
    name: 'feature gate without a bool',
    argv: [...memory, '--feature-gates=APIResponseCompression=yes'],
    message: 'invalid value "APIResponseCompression=yes" for flag --feature-gates: invalid value of APIResponseCompression=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
  },
  {
    name: '--show-hidden-metrics-for-version other than the previous minor release',
    argv: [...memory, '--show-hidden-metrics-for-version=1.26'],
    message: "--show-hidden-metrics-for-version must be omitted or have the value '1.27'. Only the previous minor version is allowed",
  },
  {
    name: 'a maximum token expiration under an hour',
    argv: [...memory, '--service-account-issuer=https://a', '--service-account-key-file=/a.pub', '--service-account-max-token-expiration=30m'],
    message: 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds',
  },
  { name: 'unknown TLS version', argv: [...memory, '--tls-min-version=TLS13'], message: 'invalid value "TLS13" for flag --tls-min-version: unknown tls version "TLS13"' },
  {
    name: 'unknown cipher suite',
    argv: [...memory, '--tls-cipher-suites=TLS_FAST'],
    message: 'invalid value "TLS_FAST" for flag --tls-cipher-suites: Cipher suite TLS_FAST not supported or doesn\'t exist',
  },
  { name: 'negative request timeout', argv: [...memory, '--request-timeout=-1s'], message: 'invalid value "-1s" for flag --request-timeout: must not be negative' },
  {
    name: 'a locked GA gate turned off',
    argv: [...memory, '--feature-gates=ServerSideApply=false'],
    message: 'invalid value "ServerSideApply=false" for flag --feature-gates: cannot set feature gate ServerSideApply to false, feature is locked to true',
  },
  {
    name: 'a gate removed before 1.28',
    argv: [...memory, '--feature-gates=AdvancedAuditing=true'],
    message: 'invalid value "AdvancedAuditing=true" for flag --feature-gates: unrecognized feature gate: AdvancedAuditing',
  },
  {
    name: 'a feature this server does not implement turned on',
    argv: [...memory, '--feature-gates=APIServerTracing=true'],
    message: 'invalid value "APIServerTracing=true" for flag --feature-gates: cannot set feature gate APIServerTracing to true, this server does not implement the feature',
  },
  {
    name: 'CEL validation rules, always enforced, turned off',
    argv: [...memory, '--feature-gates=CustomResourceValidationExpressions=false'],
    message:
      'invalid value "CustomResourceValidationExpressions=false" for flag --feature-gates: cannot set feature gate CustomResourceValidationExpressions to false, this server cannot turn the feature off',
  },
  { name: 'redis URL without the scheme', argv: [...memory, '--redis-url=localhost:6379'], message: 'invalid value "localhost:6379" for flag --redis-url: must be a redis:// or rediss:// URL' },
  { name: 'bad duration', argv: [...memory, '--shutdown-delay-duration=soon'], message: 'invalid value "soon" for flag --shutdown-delay-duration: must be a duration such as 30s, 5m or 1h30m' },
  // Upstream's messages (ParseWatchCacheSizes).
  { name: 'a watch cache size without its size', argv: [...memory, '--watch-cache-sizes=pods#0,configmaps'], message: 'invalid value of watch cache size: configmaps' },
  { name: 'a watch cache size that is no number', argv: [...memory, '--watch-cache-sizes=configmaps#none'], message: 'invalid size of watch cache size: configmaps#none' },
  { name: 'a negative watch cache size', argv: [...memory, '--watch-cache-sizes=configmaps#-1'], message: 'watch cache size cannot be negative: configmaps#-1' },
  // pflag's StringSlice keeps an empty field, which upstream's parser refuses.
  { name: 'an empty watch cache size entry', argv: [...memory, '--watch-cache-sizes=pods#0,,configmaps#0'], message: 'invalid value of watch cache size: ' },
  {
    name: 'a deprecated flag\'s value is still checked',
    argv: [...memory, '--default-watch-cache-size=lots'],
    message: 'invalid value "lots" for flag --default-watch-cache-size: must be an integer between -9007199254740991 and 9007199254740991',
  },
  { name: 'an unknown admission plugin', argv: [...memory, '--enable-admission-plugins=Nope'], message: 'enable-admission-plugins plugin "Nope" is unknown' },
  {
    name: 'admission plugins both enabled and disabled, and an unknown one disabled',
    argv: [...memory, '--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins=AlwaysDeny,Nope'],
    message: '[disable-admission-plugins plugin "Nope" is unknown, [AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped]',
  },
  {
    name: 'an admission plugin this server does not have, for what it serves',
    argv: [...memory, '--enable-admission-plugins=NodeRestriction'],
    message: 'admission plugin "NodeRestriction" is not implemented by this server: leave it out of --enable-admission-plugins',
  },
  {
    name: 'service-cluster-ip-range of one family twice (upstream validateClusterIPFlags)',
    argv: [...memory, '--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24'],
    message: '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family',
  },
  { name: 'service-cluster-ip-range not a CIDR', argv: [...memory, '--service-cluster-ip-range=10.0.0.1'], message: 'service-cluster-ip-range[0] is not a valid cidr' },
  {
    name: 'service-node-port-range backwards (upstream PortRange.Set)',
    argv: [...memory, '--service-node-port-range=32767-30000'],
    message: 'invalid value "32767-30000" for flag --service-node-port-range: end port cannot be less than start port: 32767-30000',
  },
  {
    name: 'service-node-port-range not numbers',
    argv: [...memory, '--service-node-port-range=a-b'],
    message: 'invalid value "a-b" for flag --service-node-port-range: strconv.Atoi: parsing "a": invalid syntax',
  },
  {
    name: 'runtime-config with a value that is no bool',
    argv: [...memory, '--runtime-config=api/all=off'],
    message: 'invalid value "api/all=off" for flag --runtime-config: invalid value "off" of api/all: must be true or false',
  },
];

for (const { name, argv, message } of bad) {
  test(`options: ${name}`, () => {
    assert.throws(() => parseCommandLine(argv), (error: unknown) => error instanceof FlagError && error.message === message);
  });
}

test('options: --help', () => {
  assert.deepEqual(parseCommandLine(['--help']), { help: true });
});

test('options: the usage lists --watch-cache-sizes and hides the deprecated --default-watch-cache-size, as pflag does', () => {
  const text = usage('plat-apiserver', apiserverFlags);
  assert.match(text, /--watch-cache-sizes strings +Watch cache size settings/);
  assert.doesNotMatch(text, /default-watch-cache-size/);
});
