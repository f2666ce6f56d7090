// For this package's tests only (not exported): the in-process harness's API server (as a replica is)
// with a Client of its admin, resource references, a relay whose connections can be cut.
import { createServer as createTcpServer, connect, type AddressInfo, type Socket } from 'node:net';
import type { Server } from '@plat/apiserver';
import { startInProcessApiServer, testCert } from '@plat/apiserver/testing';
import type { Storage } from '@plat/storage';
import { Client } from './client.js';
import type { ClientConfig } from './kubeconfig.js';

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

/** The harness's server as a replica is (@plat/apiserver/testing), and a Client of its admin. */
export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const api = await startInProcessApiServer({
    domain: DOMAIN,
    api: { ...(options.bookmarkIntervalMs !== undefined && { bookmarkIntervalMs: options.bookmarkIntervalMs }) },
  });
  const config: ClientConfig = { server: api.url, ca: api.ca, token: api.adminToken };
  const client = new Client(config);
  const { cert, key } = await testCert();
  let stopped = false;
  return {
    server: api.server,
    storage: api.storage,
    config,
    client,
    tls: { cert, key },
    async stop() {
      stopped = true;
      await api.stop();
    },
    async close() {
      client.close();
      if (!stopped) await api.stop();
    },
  };
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
