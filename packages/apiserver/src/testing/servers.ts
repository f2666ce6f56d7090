// The API server in the test's own process, on 127.0.0.1 and a free port, for every in-process test:
// a bare server (health, version, metrics; fake storage) or one serving the resource API (the
// built-in kinds, memory storage), optionally with users, the system namespaces and an admin.
import { randomBytes } from 'node:crypto';
import { builtinKinds, immortalNamespaces, systemNamespaceObjects } from '@plat/api';
import type { ResourceDefinition } from '@plat/registry';
import { createStorage, type Storage } from '@plat/storage';
import { createServer, type ApiOptions, type Server, type ServerOptions } from '../server.js';
import type { UserInfo } from '@plat/authn';
import { testCert } from './certificate.js';
import { fakeStorage } from './fake-storage.js';
import { captureLogger, type LogLine } from './logs.js';
import { requestTo, type RequestOptions, type Response } from './requests.js';

export interface TestServer {
  server: Server;
  port: number;
  /** The server's log, decoded. */
  lines: LogLine[];
  /** A GET (or `options.method`) without a body, through node's global agent unless told. */
  get(path: string, options?: RequestOptions): Promise<Response>;
}

/** A server on fake storage unless `options` says otherwise: the non-resource endpoints. */
export async function startServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const { logger, lines } = captureLogger();
  const tls = await testCert();
  const server = createServer({ storage: fakeStorage(), logger, tls, bindAddress: '127.0.0.1', port: 0, ...options });
  const { port } = await server.listen();
  return { server, port, lines, get: (path, opts) => requestTo(port, tls.ca, path, opts) };
}

export interface ApiTestServer extends TestServer {
  /** A request on a new connection; a body is sent as JSON unless it is a string or bytes. */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** The built-in API over memory storage under plat.io, with `options` and `api` over those defaults. */
export async function startApiServer(options: Partial<ServerOptions> = {}, api: Partial<ApiOptions> = {}): Promise<ApiTestServer> {
  const started = await startServer({
    storage: createStorage({ backend: 'memory' }),
    ...options,
    api: { definitions: builtinKinds, domain: 'plat.io', ...api },
  });
  const { ca } = await testCert();
  const send: ApiTestServer['send'] = (method, path, body, headers = {}) => requestTo(started.port, ca, path, { method, body, headers, agent: false });
  return { ...started, send };
}

export interface InProcessOptions {
  /** --api-domain; default plat.io. */
  domain?: string;
  /** Kinds served besides the built-in ones (a CRD's versions as the builder makes them, test-only kinds). */
  definitions?: readonly ResourceDefinition[];
  /** Bearer tokens and their users, beside the admin's (system:masters). */
  users?: ReadonlyMap<string, UserInfo>;
  /** The server's storage; default memory, without compaction. */
  storage?: Storage;
  /** Anything else of the server's options. */
  server?: Partial<Omit<ServerOptions, 'api' | 'storage'>>;
  /** Anything else of the API's options. */
  api?: Partial<Omit<ApiOptions, 'definitions' | 'domain'>>;
}

export interface InProcessApiServer extends ApiTestServer {
  readonly url: string;
  /** The CA that signed the serving certificate (PEM). */
  readonly ca: string;
  /** A bearer token of system:masters. */
  readonly adminToken: string;
  readonly domain: string;
  readonly storage: Storage;
  /** Graceful shutdown (watches are ended cleanly). */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/**
 * A server as a cluster's replica is: the built-in kinds and `definitions`, the system namespaces
 * (immortal), token authentication with an admin, no anonymous requests; resolved once /readyz
 * passes, so the namespaces and every cache are there.
 */
export async function startInProcessApiServer(options: InProcessOptions = {}): Promise<InProcessApiServer> {
  const domain = options.domain ?? 'plat.io';
  const adminToken = randomBytes(16).toString('hex');
  const tokens = new Map<string, UserInfo>([[adminToken, { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] }], ...(options.users ?? [])]);
  const storage = options.storage ?? createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const started = await startApiServer(
    { storage, authentication: { tokens, anonymous: false }, shutdownTimeoutMs: 1000, ...options.server },
    {
      definitions: [...builtinKinds, ...(options.definitions ?? [])],
      domain,
      bootstrap: systemNamespaceObjects(domain).map((object) => ({ group: '', version: 'v1', resource: 'namespaces', object })),
      immortalNamespaces: immortalNamespaces(domain),
      ...options.api,
    },
  );
  const { ca } = await testCert();
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while ((await started.get('/readyz', { headers: { Authorization: `Bearer ${adminToken}` }, agent: false }).catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline) {
      await started.server.shutdown();
      throw new Error('the in-process apiserver did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { ...started, url: `https://127.0.0.1:${started.port}`, ca, adminToken, domain, storage, stop: () => started.server.shutdown() };
}
