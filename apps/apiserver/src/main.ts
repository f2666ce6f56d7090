// The plat-apiserver binary: flags -> config -> storage and server; signals -> graceful shutdown.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  EncryptionConfigError,
  TransformationMetrics,
  createLogger,
  createServer,
  encryptionTransformers,
  parseEncryptionConfiguration,
  type Logger,
} from '@plat/apiserver';
import { parseAuditPolicy, type AuditPolicy } from '@plat/audit';
import { loadTokenFile, OidcAuthenticator, parsePublicKeys, parseSigningKey, type ServiceAccountTokenOptions } from '@plat/authn';
import { loadServingCert } from '@plat/serving';
import { loadWebhookKubeconfig, type WebhookConnection } from '@plat/webhook';
import { createStorage, type ResourceTransformers } from '@plat/storage';
import { builtinKinds, customResourceDefinitions, immortalNamespaces, systemNamespaceObjects } from '@plat/api';
import { commandLineOrExit, type UserInfo } from '@plat/apimachinery';
import { apiserverFlags, parseCommandLine, type ApiserverConfig } from './options.js';
import { loadEtcdTls } from './etcd-tls.js';

const PROGRAM = 'plat-apiserver';

/** A file named by a flag, or an error that names the flag. */
async function readFlagFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`--${flag}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** --client-ca-file: PEM certificates, at least one. */
async function loadClientCA(path: string): Promise<string> {
  const pem = await readFlagFile('client-ca-file', path);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new Error(`--client-ca-file: no PEM certificate in ${path}`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new Error(`--client-ca-file: ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return pem;
}

/** The service-account keys: the signing key, and the verification keys (default: the signing key's public half). */
async function loadServiceAccountKeys(config: NonNullable<ApiserverConfig['serviceAccounts']>): Promise<ServiceAccountTokenOptions> {
  const signingKey = config.signingKeyFile
    ? parseSigningKey(await readFlagFile('service-account-signing-key-file', config.signingKeyFile), config.signingKeyFile)
    : undefined;
  const keys = [];
  for (const file of config.keyFiles) keys.push(...parsePublicKeys(await readFlagFile('service-account-key-file', file), file));
  return {
    issuers: config.issuers,
    keys: keys.length ? keys : [signingKey!],
    ...(signingKey && { signingKey }),
    ...(config.apiAudiences.length && { apiAudiences: config.apiAudiences }),
    ...(config.maxExpirationSeconds && { maxExpirationSeconds: config.maxExpirationSeconds }),
  };
}

/** --oidc-*: the authenticator, with the CA file read now. */
async function oidcAuthenticator(config: NonNullable<ApiserverConfig['oidc']>, apiAudiences: string[]): Promise<OidcAuthenticator> {
  const ca = config.caFile ? await readFlagFile('oidc-ca-file', config.caFile) : undefined;
  return new OidcAuthenticator({
    issuerURL: config.issuerURL,
    clientID: config.clientID,
    usernameClaim: config.usernameClaim,
    usernamePrefix: config.usernamePrefix,
    ...(config.groupsClaim && { groupsClaim: config.groupsClaim }),
    groupsPrefix: config.groupsPrefix,
    ...(ca && { ca }),
    requiredClaims: config.requiredClaims,
    signingAlgs: config.signingAlgs,
    apiAudiences,
  });
}

/** A webhook's kubeconfig-format file, or an error that names the flag. */
async function webhookConnection(flag: string, path: string): Promise<WebhookConnection> {
  try {
    return await loadWebhookKubeconfig(path);
  } catch (error) {
    throw new Error(`--${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** --audit-policy-file, decoded and checked. */
async function loadAuditPolicy(path: string, domain: string): Promise<AuditPolicy> {
  const text = await readFlagFile('audit-policy-file', path);
  try {
    return parseAuditPolicy(text, domain);
  } catch (error) {
    throw new Error(`--audit-policy-file: ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** --encryption-provider-config: the transformers of the resources it lists, reporting to `metrics`. */
async function loadEncryption(path: string, metrics: TransformationMetrics): Promise<ResourceTransformers> {
  const text = await readFlagFile('encryption-provider-config', path);
  try {
    return encryptionTransformers(parseEncryptionConfiguration(text), metrics);
  } catch (error) {
    if (error instanceof EncryptionConfigError) throw new Error(`--encryption-provider-config: error while parsing file ${path}: ${error.message}`);
    throw error;
  }
}

async function run(config: ApiserverConfig, logger: Logger): Promise<void> {
  for (const warning of [...config.flagWarnings, ...config.featureGateWarnings]) logger.warn(warning);
  let tokens: Map<string, UserInfo> | undefined;
  if (config.tokenAuthFile) {
    const file = await loadTokenFile(config.tokenAuthFile);
    for (const warning of file.warnings) logger.warn(warning);
    tokens = file.tokens;
  }
  const clientCA = config.clientCAFile ? await loadClientCA(config.clientCAFile) : undefined;
  const apiAudiences = config.apiAudiences.length ? config.apiAudiences : (config.serviceAccounts?.issuers ?? []);
  const oidc = config.oidc && (await oidcAuthenticator(config.oidc, apiAudiences));
  const tokenWebhook = config.tokenWebhook && {
    connection: await webhookConnection('authentication-token-webhook-config-file', config.tokenWebhook.configFile),
    version: config.tokenWebhook.version,
    cacheTtlMs: config.tokenWebhook.cacheTtlMs,
  };
  const authorizationWebhook = config.authorizationWebhook && {
    connection: await webhookConnection('authorization-webhook-config-file', config.authorizationWebhook.configFile),
    version: config.authorizationWebhook.version,
    authorizedTtlMs: config.authorizationWebhook.authorizedTtlMs,
    unauthorizedTtlMs: config.authorizationWebhook.unauthorizedTtlMs,
  };
  const auditPolicy = config.auditPolicyFile ? await loadAuditPolicy(config.auditPolicyFile, config.apiDomain) : undefined;
  const serviceAccountTokens = config.serviceAccounts ? await loadServiceAccountKeys(config.serviceAccounts) : undefined;
  const tls = await loadServingCert({
    tlsCertFile: config.tlsCertFile,
    tlsPrivateKeyFile: config.tlsPrivateKeyFile,
    certDir: config.certDir,
    bindAddress: config.bindAddress,
  });
  if (tls.replacedBecause) logger.info({ reason: tls.replacedBecause }, 'replaced the self-signed serving certificate');
  logger.info({ certificate: tls.source }, 'serving certificate');

  const { etcdTlsFiles, encryptionProviderConfig, ...storageConfig } = config.storage;
  const transformationMetrics = new TransformationMetrics();
  const transformers = encryptionProviderConfig ? await loadEncryption(encryptionProviderConfig, transformationMetrics) : undefined;
  if (encryptionProviderConfig) logger.info({ file: encryptionProviderConfig }, 'encryption at rest: providers loaded');
  const etcdTls = etcdTlsFiles && config.storage.backend === 'etcd3' ? await loadEtcdTls(etcdTlsFiles) : undefined;
  if (etcdTls && !config.storage.etcdServers.some((server) => server.startsWith('https://'))) {
    logger.warn('--etcd-cafile, --etcd-certfile and --etcd-keyfile apply to https:// --etcd-servers only: every one given is plain http');
  }
  // Connecting is lazy: with etcd down the server still starts, and /readyz reports it until it is back.
  const storage = createStorage({
    ...storageConfig,
    ...(etcdTls && { etcdTls }),
    ...(transformers && { transformers }),
    healthTimeoutMs: config.storageHealthTimeoutMs,
    onBackgroundError: (err, what) => logger.error({ err, what }, 'storage background task failed'),
    onEtcdEndpointEvent: ({ endpoint, state, reason }) => {
      if (state === 'down') logger.warn({ endpoint, reason }, 'etcd member unavailable; using the others');
      else logger.info({ endpoint }, 'etcd member answers again');
    },
  });
  if (config.storage.backend === 'sqlite') logger.info({ dir: config.storage.dir }, 'storage: the embedded SQLite database');
  const server = createServer({
    storage,
    ...(transformers && { storageTransformationMetrics: transformationMetrics }),
    watchCache: config.watchCache && { consistentListFromCache: config.featureGates.enabled('ConsistentListFromCache') },
    watchCacheSizes: config.watchCacheSizes,
    logger,
    tls,
    bindAddress: config.bindAddress,
    port: config.port,
    http2MaxStreamsPerConnection: config.http2MaxStreamsPerConnection,
    authentication: {
      ...(tokens ? { tokens } : {}),
      ...(clientCA && { clientCA }),
      anonymous: config.anonymousAuth,
      ...(oidc && { tokenAuthenticators: [oidc] }),
      ...(apiAudiences.length && { apiAudiences }),
    },
    ...(tokenWebhook && { tokenWebhook }),
    authorizationModes: config.authorizationModes,
    ...(authorizationWebhook && { authorizationWebhook }),
    ...(serviceAccountTokens && { serviceAccountTokens }),
    build: {
      gitCommit: process.env.PLAT_GIT_COMMIT,
      gitTreeState: process.env.PLAT_GIT_TREE_STATE,
      buildDate: process.env.PLAT_BUILD_DATE,
    },
    storageHealthTimeoutMs: config.storageHealthTimeoutMs,
    shutdownDelayMs: config.shutdownDelayMs,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    limits: config.limits,
    priorityAndFairness: config.priorityAndFairness,
    ...(config.auditLogPath && { auditLogPath: config.auditLogPath }),
    auditLog: {
      format: config.auditLog.format,
      maxSizeBytes: config.auditLog.maxSizeMB * 1024 * 1024,
      maxBackups: config.auditLog.maxBackups,
      maxAgeDays: config.auditLog.maxAgeDays,
    },
    ...(auditPolicy && { auditPolicy }),
    tlsPolicy: config.tls,
    requestTimeoutMs: config.requestTimeoutMs,
    ...(config.showHiddenMetricsForVersion && { showHiddenMetricsForVersion: config.showHiddenMetricsForVersion }),
    api: {
      definitions: builtinKinds,
      domain: config.apiDomain,
      // Upstream keeps whole seconds of --event-ttl (a lease's unit).
      eventTTLSeconds: Math.floor(config.eventTTLMs / 1000),
      serviceClusterIPRange: config.serviceClusterIPRange,
      serviceNodePortRange: config.serviceNodePortRange,
      bootstrap: systemNamespaceObjects(config.apiDomain).map((object) => ({ group: '', version: 'v1', resource: 'namespaces', object })),
      immortalNamespaces: immortalNamespaces(config.apiDomain),
      responseCompression: config.featureGates.enabled('APIResponseCompression'),
      features: { watchList: config.featureGates.enabled('WatchList'), apiListChunking: config.featureGates.enabled('APIListChunking') },
      runtimeConfig: config.runtimeConfig,
      admissionPlugins: config.admissionPlugins,
      minRequestTimeoutS: config.minRequestTimeoutS,
      customResources: customResourceDefinitions,
      validatingAdmissionPolicy: config.featureGates.enabled('ValidatingAdmissionPolicy'),
    },
  });

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without finishing shutdown');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const { address, port } = await server.listen();
  const host = address.includes(':') ? `[${address}]` : address;
  logger.info({ address, port, url: `https://${host}:${port}` }, 'serving');
}

function main(): void {
  const config = commandLineOrExit(parseCommandLine, PROGRAM, apiserverFlags);
  if (!config) return;
  const logger = createLogger({ level: config.logLevel });
  run(config, logger).catch((err: unknown) => {
    logger.error({ err }, 'startup failed');
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

main();
