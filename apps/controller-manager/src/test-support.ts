// For this package's tests only (not exported): the in-process harness's API server, a client for it,
// and the controllers running against it.
import type { UserInfo } from '@plat/apimachinery';
import type { Server } from '@plat/apiserver';
import { startInProcessApiServer } from '@plat/apiserver/testing';
import { Client, silentLogger, type KubeObject, type Logger, type ResourceRef } from '@plat/client';
import { generateKeyPairSync } from 'node:crypto';
import { runControllers } from './controller-manager.js';
import { ServiceAccountCredentials } from './service-account-credentials.js';
import { controllerNames, type ControllerName } from './options.js';

const DOMAIN = 'plat.io';
/** The controller-manager's own identity, with no group: only what the bootstrap policy grants it. */
const CONTROLLER_MANAGER_TOKEN = 'controller-test-controller-manager';

export interface TestCluster {
  server: Server;
  client: Client;
  /** Stops the controllers, then the server. */
  close(): Promise<void>;
}

export interface TestClusterOptions {
  /**
   * RBAC with the bootstrap policy; the controllers run as the controller-manager's own user
   * (system:plat-controller-manager), each with its service account's token (as
   * --use-service-account-credentials). Otherwise authorization allows all and they use an admin.
   */
  serviceAccountCredentials?: boolean;
  /** The node lifecycle controller's periods; default short ones (100 ms, 800 ms grace) for tests. */
  nodeLifecycle?: { monitorPeriodMs: number; gracePeriodMs: number; startupGracePeriodMs: number };
}

/** The in-process harness's API server (as a replica is), and the controllers running against it. */
export async function startTestCluster(controllers: readonly ControllerName[] = controllerNames, options: TestClusterOptions = {}): Promise<TestCluster> {
  const users = new Map<string, UserInfo>([[CONTROLLER_MANAGER_TOKEN, { name: `system:plat-controller-manager`, uid: 'controller-manager', groups: [] }]]);
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const api = await startInProcessApiServer({
    domain: DOMAIN,
    users,
    ...(options.serviceAccountCredentials && {
      server: {
        authorizationModes: ['RBAC'],
        serviceAccountTokens: { issuers: ['https://plat.test'], keys: [signing.publicKey], signingKey: signing.privateKey },
      },
    }),
  });
  const { server, url, ca } = api;
  const client = new Client({ server: url, ca, token: api.adminToken });
  const logger = process.env.PLAT_TEST_LOG ? consoleLogger : silentLogger;
  const stop = new AbortController();
  let credentials: ServiceAccountCredentials | undefined;
  let running: Promise<void>;
  const nodeLifecycle = options.nodeLifecycle ?? { monitorPeriodMs: 100, gracePeriodMs: 800, startupGracePeriodMs: 800 };
  if (options.serviceAccountCredentials) {
    const own = new Client({ server: url, ca, token: CONTROLLER_MANAGER_TOKEN });
    // The bootstrap policy stored and in the authorizer's index: the controller-manager may list.
    await eventually('the controller-manager authorized', () => own.resource(refs.serviceAccounts).list().then(() => true, () => false), 10_000);
    const sa = new ServiceAccountCredentials(own, 'plat-system', DOMAIN, logger);
    credentials = sa;
    running = runControllers(own, { apiDomain: DOMAIN, controllers: new Set(controllers), concurrentGCSyncs: 5, concurrentNamespaceSyncs: 2, nodeLifecycle }, logger, stop.signal, {
      clientFor: (controller, signal) => sa.clientFor(controller, signal),
    }).finally(() => own.close());
  } else {
    running = runControllers(
      client,
      { apiDomain: DOMAIN, controllers: new Set(controllers), concurrentGCSyncs: 5, concurrentNamespaceSyncs: 2, nodeLifecycle },
      logger,
      stop.signal,
    );
  }
  return {
    server,
    client,
    async close() {
      stop.abort();
      await running;
      credentials?.close();
      client.close();
      await api.stop();
    },
  };
}

/** PLAT_TEST_LOG=1 prints the controllers' logs. */
const consoleLogger: Logger = {
  debug: (fields, message) => console.error('debug', message, fields),
  info: (fields, message) => console.error('info', message, fields),
  warn: (fields, message) => console.error('warn', message, fields),
  error: (fields, message) => console.error('error', message, fields),
};

export const refs = {
  nodes: { group: '', version: 'v1', resource: 'nodes', namespaced: false, kind: 'Node' },
  namespaces: { group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' },
  serviceAccounts: { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true, kind: 'ServiceAccount' },
  limitRanges: { group: '', version: 'v1', resource: 'limitranges', namespaced: true, kind: 'LimitRange' },
  leases: { group: `coordination.${DOMAIN}`, version: 'v1', resource: 'leases', namespaced: true, kind: 'Lease' },
  roles: { group: `rbac.authorization.${DOMAIN}`, version: 'v1', resource: 'roles', namespaced: true, kind: 'Role' },
  roleBindings: { group: `rbac.authorization.${DOMAIN}`, version: 'v1', resource: 'rolebindings', namespaced: true, kind: 'RoleBinding' },
  clusterRoles: { group: `rbac.authorization.${DOMAIN}`, version: 'v1', resource: 'clusterroles', namespaced: false, kind: 'ClusterRole' },
  events: { group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' },
} satisfies Record<string, ResourceRef>;

export const rbacGroup = `rbac.authorization.${DOMAIN}`;

/** Polls `probe` until it holds, or fails after `timeoutMs`. */
export async function eventually(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await Promise.resolve()
      .then(probe)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether get() answers 404. */
export async function isGone(client: Client, ref: ResourceRef, namespace: string, name: string): Promise<boolean> {
  const resource = ref.namespaced ? client.resource(ref).namespace(namespace) : client.resource(ref);
  try {
    await resource.get(name);
    return false;
  } catch (error) {
    return (error as { code?: number }).code === 404;
  }
}

/** An owner reference to `owner` of kind `kind`. */
export const ownerRef = (owner: KubeObject, apiVersion: string, kind: string, blockOwnerDeletion?: boolean) => ({
  apiVersion,
  kind,
  name: owner.metadata.name!,
  uid: owner.metadata.uid!,
  ...(blockOwnerDeletion && { blockOwnerDeletion: true }),
});
