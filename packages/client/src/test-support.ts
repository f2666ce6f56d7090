// For this package's tests only (not exported): an in-process API server on memory storage with the
// built-in kinds, an admin token, and a Client configured for it.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createTcpServer, connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinDefinitions, immortalNamespaces, systemNamespaceObjects } from '@plat/api';
import { createLogger, createServer, ensureSelfSignedCert, type Server, type UserInfo } from '@plat/apiserver';
import { createStorage, type Storage } from '@plat/storage';
import { Client } from './client.js';
import type { ClientConfig } from './kubeconfig.js';

export const ADMIN_TOKEN = 'client-test-admin';
const DOMAIN = 'plat.io';

export interface TestApi {
  server: Server;
  storage: Storage;
  config: ClientConfig;
  client: Client;
  /** The server's certificate and key (PEM), for a stand-in server that clients trust alike. */
  tls: { cert: string; key: string };
  /** Shuts the server down (graceful: watches are ended cleanly). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  bookmarkIntervalMs?: number;
}

let certDir: Promise<string> | undefined;

export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  certDir ??= mkdtemp(join(tmpdir(), 'plat-client-test-'));
  const dir = await certDir;
  const tls = await ensureSelfSignedCert({ certDir: dir, bindAddress: '127.0.0.1' });
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const tokens = new Map<string, UserInfo>([[ADMIN_TOKEN, { name: 'admin', uid: 'admin', groups: ['system:masters'] }]]);
  const server = createServer({
    storage,
    logger: createLogger({ level: 'error' }),
    tls,
    bindAddress: '127.0.0.1',
    port: 0,
    authentication: { tokens, anonymous: false },
    shutdownTimeoutMs: 1000,
    api: {
      definitions: builtinDefinitions,
      domain: DOMAIN,
      bootstrap: systemNamespaceObjects(DOMAIN).map((object) => ({ group: '', version: 'v1', resource: 'namespaces', object })),
      immortalNamespaces: immortalNamespaces(DOMAIN),
      ...(options.bookmarkIntervalMs !== undefined && { bookmarkIntervalMs: options.bookmarkIntervalMs }),
    },
  });
  const { port } = await server.listen();
  const config: ClientConfig = { server: `https://127.0.0.1:${port}`, ca: tls.ca, token: ADMIN_TOKEN };
  const client = new Client(config);
  // The system namespaces are created in the background at start-up.
  for (let i = 0; i < 100; i++) {
    const namespaces = await client.resource({ group: '', version: 'v1', resource: 'namespaces', namespaced: false }).list().catch(() => undefined);
    if (namespaces?.items.some((n) => n.metadata.name === 'default')) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let stopped = false;
  return {
    server,
    storage,
    config,
    client,
    tls: { cert: String(tls.cert), key: String(tls.key) },
    async stop() {
      stopped = true;
      await server.shutdown();
    },
    async close() {
      client.close();
      if (!stopped) await server.shutdown();
    },
  };
}

/** Removes the certificate folder; call once after the tests of a file. */
export async function cleanupTestApi(): Promise<void> {
  if (certDir) await rm(await certDir, { recursive: true, force: true });
  certDir = undefined;
}

export const namespacesRef = { group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' } as const;
export const serviceAccountsRef = { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true, kind: 'ServiceAccount' } as const;
export const clusterRolesRef = {
  group: `rbac.authorization.${DOMAIN}`,
  version: 'v1',
  resource: 'clusterroles',
  namespaced: false,
  kind: 'ClusterRole',
} as const;

/** Polls `probe` until it holds, or fails after `timeoutMs`. */
export async function eventually(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A TCP relay to the server whose connections can be cut, to break streams as a network would. */
export interface Relay {
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Cuts every open connection; while `down`, new ones are cut at once. */
  cut(down?: boolean): void;
  /** Accepts connections again after cut(true). */
  up(): void;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let down = false;
  let connections = 0;
  const relay = createTcpServer((client) => {
    if (down) return void client.destroy();
    connections++;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const cutAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (relay.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    cut(keepDown = false) {
      down = keepDown;
      cutAll();
    },
    up() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cutAll();
        relay.close(() => resolve());
      }),
  };
}
