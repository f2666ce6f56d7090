// The plat-controller-manager binary: flags -> client -> the secure port (health, metrics) ->
// leader election -> the controllers; SIGTERM stops the controllers, gives the lease up and closes
// the port.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type { Lease } from '@plat/apimachinery';
import { Client, LeaderElector, leaseResource, sleep } from '@plat/client';
import { loadServingCert, pingCheck, type HealthCheck } from '@plat/serving';
import { runControllers, type ControllersHooks } from './controller-manager.js';
import { commandLineOrExit } from '@plat/apimachinery';
import { ControllerManagerMetrics } from './metrics.js';
import { controllerManagerFlags, parseCommandLine, type ControllerManagerConfig, type ControllerName } from './options.js';
import { systemNamespace } from './names.js';
import { ServiceAccountCredentials } from './service-account-credentials.js';
import { InformerSyncCheck, leaderElectionCheck, startSecureServing, type SecureServing } from './serving.js';

const PROGRAM = 'plat-controller-manager';

/** The secure port, unless --secure-port=0; its certificate as the flags say (in memory by default). */
async function serve(config: ControllerManagerConfig, checks: { live: HealthCheck[]; ready: HealthCheck[] }, metrics: ControllerManagerMetrics, logger: Logger): Promise<SecureServing | undefined> {
  const { port, bindAddress, certDir, tlsCertFile, tlsPrivateKeyFile } = config.serving;
  if (port === 0) return undefined;
  const tls = await loadServingCert({
    certDir,
    bindAddress,
    tlsCertFile,
    tlsPrivateKeyFile,
    // Upstream's names for its self-signed certificate: the pair named after the program, localhost.
    pairName: PROGRAM,
    caFileName: `${PROGRAM}-ca.crt`,
    dnsNames: ['localhost'],
  });
  if (tls.replacedBecause) logger.info({ reason: tls.replacedBecause }, 'replaced the self-signed serving certificate');
  const serving = await startSecureServing({
    bindAddress,
    port,
    tls,
    tlsPolicy: config.serving.tls,
    checks: { healthz: checks.live, livez: checks.live, readyz: checks.ready },
    registry: metrics.registry,
    logger,
  });
  logger.info({ address: bindAddress, port: serving.port, certificate: tls.source }, 'serving securely');
  return serving;
}

/** A controller's credentials, asked for again every 2 s while the API cannot give them. */
async function clientWithRetries(credentials: ServiceAccountCredentials, controller: ControllerName, signal: AbortSignal, logger: Logger): Promise<Client> {
  for (;;) {
    try {
      return await credentials.clientFor(controller, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      logger.warn({ err, controller }, 'getting the credentials of a controller failed; retrying');
      await sleep(2000, signal);
    }
  }
}

async function run(config: ControllerManagerConfig, logger: Logger): Promise<void> {
  for (const warning of config.featureGateWarnings) logger.warn(warning);
  const client = await Client.fromKubeconfig(config.kubeconfig, { userAgent: PROGRAM });
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const metrics = new ControllerManagerMetrics({ showHiddenMetricsForVersion: config.showHiddenMetricsForVersion });
  const synced = new InformerSyncCheck();
  const credentials = config.useServiceAccountCredentials
    ? new ServiceAccountCredentials(client, systemNamespace(config.apiDomain), config.apiDomain, logger)
    : undefined;
  const hooks: ControllersHooks = {
    queueMetrics: metrics.queueMetrics,
    onInformers: (informers) => synced.set(informers),
    ...(credentials && { clientFor: (controller: ControllerName, signal: AbortSignal) => clientWithRetries(credentials, controller, signal, logger) }),
  };
  const election = config.leaderElection;
  // Unique per process, as upstream's hostname_uuid.
  const identity = `${hostname()}_${randomUUID()}`;
  const elector = election.enabled
    ? new LeaderElector({
        leases: client.resource<Lease>(leaseResource(config.apiDomain)),
        namespace: election.namespace,
        name: election.name,
        identity,
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
        // Stopping on purpose hands the lease on at once instead of after its duration.
        releaseOnCancel: true,
        logger,
        callbacks: {
          onStartedLeading: (leading) => {
            logger.info({ identity }, 'started leading');
            metrics.setLeading(election.name, true);
            return runControllers(client, config, logger, leading, hooks);
          },
          onStoppedLeading: () => {
            metrics.setLeading(election.name, false);
            logger.info({ identity }, 'stopped leading');
          },
          onNewLeader: (leader) => {
            if (leader !== identity) logger.info({ identity, leader }, 'new leader observed');
          },
        },
      })
    : undefined;
  if (elector) metrics.setLeading(election.name, false);
  const live = [pingCheck, ...(elector ? [leaderElectionCheck(elector)] : [])];
  const serving = await serve(config, { live, ready: [...live, synced] }, metrics, logger);

  if (!elector) {
    await runControllers(client, config, logger, stop.signal, hooks);
  } else {
    logger.info({ identity, lease: `${election.namespace}/${election.name}` }, 'leader election candidate');
    await elector.run(stop.signal);
    if (!stop.signal.aborted) {
      // As kube-controller-manager: a replica that lost the lease exits and is restarted clean.
      logger.error({ identity }, 'leaderelection lost');
      client.close();
      process.exit(1);
    }
  }
  await serving?.close();
  credentials?.close();
  client.close();
  logger.info('stopped');
  process.exit(0);
}

function main(): void {
  const config = commandLineOrExit(parseCommandLine, PROGRAM, controllerManagerFlags);
  if (!config) return;
  const logger = pino({ level: config.logLevel, base: { pid: process.pid } });
  run(config, logger).catch((err: unknown) => {
    logger.error({ err }, 'startup failed');
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

main();
