// The resource API over HTTP/2 (ALPN h2, as client-go and kubectl speak it): the same cases as over
// HTTP/1.1, each request a stream of one connection, watches included.
import { runApiCases } from './api-cases.js';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

let server: ApiserverProcess | undefined;
let tokens: Awaited<ReturnType<typeof adminTokenFile>> | undefined;

runApiCases(
  'resource API over HTTP/2: memory backend, --api-domain=plat.io',
  async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(
      [
        '--storage-backend=memory',
        `--token-auth-file=${tokens.file}`,
        '--etcd-compaction-interval=0',
        '--feature-gates=WatchList=true',
        '--runtime-config=networking.k8s.io/v1alpha1=true',
      ],
      { http2: true },
    );
    return { server, token: tokens.token, domain: 'plat.io' };
  },
  async () => {
    await server?.stop();
    await tokens?.cleanup();
  },
);
