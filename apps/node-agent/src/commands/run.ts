// Running the agent: the configuration loaded, a client as it says (rate limit, content type),
// the Node registered or adopted, its Lease renewed and its status posted, the healthz, secured and
// read-only servers started; SIGTERM reports the node shutting down within shutdownGracePeriod,
// stops the loops and closes the servers.
import { readFile } from 'node:fs/promises';
import { pino, type Logger } from 'pino';
import { encodeNodeAgentConfiguration, type NodeAgentConfiguration } from '@plat/agent-config';
import { systemNamespaces } from '@plat/api';
import { Client, EventRecorder, loadKubeconfig } from '@plat/client';
import { loadServingCert, pingCheck, type HealthCheck } from '@plat/serving';
import { readMachine } from '../agent/machine.js';
import { NodeAgent } from '../agent/node-agent.js';
import { NodeEvents, agentComponent } from '../agent/node-events.js';
import type { NodeFacts } from '../agent/node-object.js';
import { AGENT_USER_AGENT, agentClientConfig, eventClientConfig } from '../agent/client-config.js';
import type { Command } from '../command-line.js';
import type { Output } from '../output.js';
import { RequestAuthenticator, type TokenReviewResult } from '../server/authentication.js';
import { RequestAuthorizer, type AccessReviewResult, type AccessReviewSpec } from '../server/authorization.js';
import { nodeHandlers } from '../server/handlers.js';
import { AgentMetrics } from '../server/metrics.js';
import { startHealthz, startReadOnly, startSecured, type Listener } from '../server/servers.js';
import { tlsCiphers, tlsMinVersion } from '../server/tls-settings.js';
import { loadNodeAgentConfiguration } from './load-config.js';

type RunCommand = Extract<Command, { kind: 'run' }>;

const PROGRAM = AGENT_USER_AGENT;
/** Where /logs/ reads from, as the kubelet's system log handler. */
const SYSTEM_LOG_DIR = '/var/log/';

/** A health check that fails once the lease has not been renewed for its whole duration. */
function leaseCheck(agent: NodeAgent, durationMs: number, startedAt: number): HealthCheck {
  return {
    name: 'nodelease',
    check: async () => {
      const renewed = agent.heartbeats().leaseRenewedAt || startedAt;
      const age = Date.now() - renewed;
      if (age > durationMs) throw new Error(`the node lease was last renewed ${Math.round(age / 1000)}s ago`);
    },
  };
}

const pinoLevel = (verbosity: number): string => (verbosity >= 4 ? 'debug' : 'info');

export async function runCommand(command: RunCommand, out: Output): Promise<number> {
  const config = await loadNodeAgentConfiguration(command.configFile, out);
  if (!config) return 1;
  const logger = pino({ level: pinoLevel(config.logging?.verbosity ?? 0), base: { pid: process.pid } });
  try {
    return await run(command, config, logger);
  } catch (err) {
    logger.error({ err }, 'the agent failed');
    out.stderr(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function run(command: RunCommand, config: NodeAgentConfiguration, logger: Logger): Promise<number> {
  const domain = command.apiDomain;
  const clientConfig = agentClientConfig(await loadKubeconfig(command.kubeconfig), config, domain);
  const client = new Client(clientConfig);
  const eventClient = new Client(eventClientConfig(clientConfig, config));
  logger.info('the container runtime is simulated: this agent runs no containers and no pods');
  const machine = readMachine();
  if (command.nodeIP) machine.internalIP = command.nodeIP;
  // The override names the node and is its hostname: the hostname label and address follow it, as the kubelet's.
  if (command.hostnameOverride) machine.hostname = command.hostnameOverride;
  const name = machine.hostname;
  const facts: NodeFacts = {
    name,
    domain,
    machine,
    port: config.port ?? 10250,
    maxPods: config.maxPods ?? 110,
    ...(config.systemReserved && { systemReserved: config.systemReserved }),
    ...(config.platReserved && { platReserved: config.platReserved }),
    ...(config.evictionHard && { evictionHard: config.evictionHard }),
    ...(config.providerID && { providerID: config.providerID }),
    ...(config.registerWithTaints && { registerWithTaints: config.registerWithTaints }),
  };
  const metrics = new AgentMetrics(name);
  const leaseDurationSeconds = config.nodeLeaseDurationSeconds ?? 40;
  const component = agentComponent(domain);
  const events = new NodeEvents(new EventRecorder(eventClient, { component, host: name, logger }), name, component);
  const agent = new NodeAgent({
    client,
    events,
    facts,
    leaseNamespace: systemNamespaces(domain)[3]!,
    leaseDurationSeconds,
    statusUpdateFrequencyMs: config.nodeStatusUpdateFrequency ?? 10_000,
    statusReportFrequencyMs: config.nodeStatusReportFrequency ?? 300_000,
    registerNode: config.registerNode ?? true,
    logger,
    onLeaseRenewed: () => metrics.leaseRenewed(),
    onStatusPosted: () => metrics.statusPosted(),
  });
  const checks = [pingCheck, leaseCheck(agent, leaseDurationSeconds * 1000, Date.now())];
  const handler = nodeHandlers({
    checks,
    configz: () => encodeNodeAgentConfiguration(config),
    registry: metrics.registry,
    ...(config.enableSystemLogHandler && { logDir: SYSTEM_LOG_DIR }),
    ...(config.enableDebugFlagsHandler && { setVerbosity: (level: number) => (logger.level = pinoLevel(level)) }),
    debuggingHandlers: config.enableDebuggingHandlers ?? true,
  });

  const listeners: Listener[] = [];
  if (config.healthzPort) {
    const healthz = await startHealthz(config.healthzBindAddress ?? '127.0.0.1', config.healthzPort, checks, logger);
    logger.info({ address: config.healthzBindAddress, port: healthz.port }, 'serving healthz');
    listeners.push(healthz);
  }
  if (config.enableServer) listeners.push(await startSecuredServer(command, config, client, name, handler, logger));
  if (config.readOnlyPort) {
    const readOnly = await startReadOnly(config.address ?? '0.0.0.0', config.readOnlyPort, (req, res, url) => handler(req, res, url), logger);
    logger.info({ address: config.address, port: readOnly.port }, 'serving the read-only port (no authentication)');
    listeners.push(readOnly);
  }

  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  const started = agent.start();
  await Promise.race([started, stopped]);
  await stopped;
  await agent.shutdown(config.shutdownGracePeriod ?? 0);
  await Promise.all(listeners.map((listener) => listener.close()));
  client.close();
  eventClient.close();
  logger.info('stopped');
  return 0;
}

async function startSecuredServer(
  command: RunCommand,
  config: NodeAgentConfiguration,
  client: Client,
  nodeName: string,
  handler: ReturnType<typeof nodeHandlers>,
  logger: Logger,
): Promise<Listener> {
  const address = config.address ?? '0.0.0.0';
  const tls = await loadServingCert({
    certDir: command.certDir,
    bindAddress: address,
    tlsCertFile: config.tlsCertFile ?? '',
    tlsPrivateKeyFile: config.tlsPrivateKeyFile ?? '',
    pairName: PROGRAM,
    caFileName: `${PROGRAM}-ca.crt`,
    dnsNames: [nodeName, 'localhost'],
  });
  const clientCAFile = config.authentication?.x509?.clientCAFile;
  const ca = clientCAFile ? await readFile(clientCAFile, 'utf8') : undefined;
  const domain = command.apiDomain;
  const webhook = config.authentication?.webhook;
  const authenticator = new RequestAuthenticator({
    x509: ca !== undefined,
    anonymous: config.authentication?.anonymous?.enabled ?? false,
    ...(webhook?.enabled && {
      webhook: {
        cacheTTLMs: webhook.cacheTTL ?? 120_000,
        review: async (token: string): Promise<TokenReviewResult> => {
          const review = await client.rest.request<{ status?: TokenReviewResult }>({
            method: 'POST',
            path: `/apis/authentication.${domain}/v1/tokenreviews`,
            body: { apiVersion: `authentication.${domain}/v1`, kind: 'TokenReview', spec: { token } },
          });
          return review.status ?? { authenticated: false };
        },
      },
    }),
  });
  const authorization = config.authorization;
  const authorizer = new RequestAuthorizer(
    authorization?.mode === 'AlwaysAllow'
      ? { mode: 'AlwaysAllow' }
      : {
          mode: 'Webhook',
          authorizedTTLMs: authorization?.webhook?.cacheAuthorizedTTL ?? 300_000,
          unauthorizedTTLMs: authorization?.webhook?.cacheUnauthorizedTTL ?? 30_000,
          review: async (spec: AccessReviewSpec): Promise<AccessReviewResult> => {
            const review = await client.rest.request<{ status?: AccessReviewResult }>({
              method: 'POST',
              path: `/apis/authorization.${domain}/v1/subjectaccessreviews`,
              body: { apiVersion: `authorization.${domain}/v1`, kind: 'SubjectAccessReview', spec },
            });
            return review.status ?? { allowed: false };
          },
        },
  );
  const minVersion = tlsMinVersion(config.tlsMinVersion);
  const ciphers = tlsCiphers(config.tlsCipherSuites);
  const secured = await startSecured({
    host: address,
    port: config.port ?? 10250,
    tls: { cert: tls.cert, key: tls.key, ...(ca && { ca }), ...(minVersion && { minVersion }), ...(ciphers && { ciphers }) },
    nodeName,
    authenticator,
    authorizer,
    handler,
    logger,
  });
  logger.info({ address, port: secured.port, certificate: tls.source, authorization: authorization?.mode }, 'serving securely');
  return secured;
}
