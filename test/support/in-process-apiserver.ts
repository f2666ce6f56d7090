// A plat-apiserver in the test's own process, for end-to-end tests that serve definitions the binary
// is not given at start (ApiOptions.definitions: a CRD's versions as the custom resource builder
// makes them, test-only kinds): the built-in API and the system namespaces, memory storage, a
// self-signed certificate in a temporary folder, an admin token.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinDefinitions, builtinSubresourceDefinitions, systemNamespaceObjects } from '@plat/api';
import { createLogger, createServer, ensureSelfSignedCert, type ServerOptions } from '@plat/apiserver';
import { createStorage } from '@plat/storage';

export interface InProcessApiserver {
  readonly url: string;
  /** The CA that signed the serving certificate (PEM). */
  readonly ca: string;
  /** A bearer token of system:masters. */
  readonly token: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** The definitions the server's API is given (ApiOptions.definitions). */
export type Definitions = NonNullable<ServerOptions['api']>['definitions'];

/** Serves the built-in kinds and `definitions` under `domain` on 127.0.0.1; resolves once /readyz passes. */
export async function startInProcessApiserver(definitions: Definitions, domain = 'k8s.io'): Promise<InProcessApiserver> {
  const certDir = await mkdtemp(join(tmpdir(), 'plat-e2e-inproc-'));
  const tls = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1' });
  const token = randomBytes(16).toString('hex');
  const server = createServer({
    storage: createStorage({ backend: 'memory' }),
    logger: createLogger({ level: 'warn' }),
    tls,
    bindAddress: '127.0.0.1',
    port: 0,
    authentication: { tokens: new Map([[token, { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] }]]) },
    api: {
      definitions: [...builtinDefinitions, ...definitions],
      subresourceDefinitions: builtinSubresourceDefinitions,
      domain,
      bootstrap: systemNamespaceObjects(domain).map((object) => ({ group: '', version: 'v1', resource: 'namespaces', object })),
    },
  });
  const { port } = await server.listen();
  const stop = async (): Promise<void> => {
    await server.shutdown();
    await rm(certDir, { recursive: true, force: true });
  };
  const ready = (): Promise<number> =>
    new Promise((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/readyz', ca: tls.ca, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end();
    });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while ((await ready()) !== 200) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error('the in-process apiserver did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `https://127.0.0.1:${port}`, ca: tls.ca, token, stop };
}
