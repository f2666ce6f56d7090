// The plat-controller-manager binary: flags -> client -> leader election -> the controllers;
// SIGTERM stops the controllers and gives the lease up.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { Client, LeaderElector, leaseResource, type Lease } from '@plat/client';
import { runControllers } from './controller-manager.js';
import { commandLineOrExit } from '@plat/apimachinery';
import { controllerManagerFlags, parseCommandLine, type ControllerManagerConfig } from './options.js';

const PROGRAM = 'plat-controller-manager';

async function run(config: ControllerManagerConfig, logger: Logger): Promise<void> {
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

  const election = config.leaderElection;
  if (!election.enabled) {
    await runControllers(client, config, logger, stop.signal);
  } else {
    // Unique per process, as upstream's hostname_uuid.
    const identity = `${hostname()}_${randomUUID()}`;
    logger.info({ identity, lease: `${election.namespace}/${election.name}` }, 'leader election candidate');
    const elector = new LeaderElector({
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
          return runControllers(client, config, logger, leading);
        },
        onStoppedLeading: () => logger.info({ identity }, 'stopped leading'),
        onNewLeader: (leader) => {
          if (leader !== identity) logger.info({ identity, leader }, 'new leader observed');
        },
      },
    });
    await elector.run(stop.signal);
    if (!stop.signal.aborted) {
      // As kube-controller-manager: a replica that lost the lease exits and is restarted clean.
      logger.error({ identity }, 'leaderelection lost');
      client.close();
      process.exit(1);
    }
  }
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
