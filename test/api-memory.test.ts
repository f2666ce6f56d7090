// The resource API on the embedded backend, under the plat.io domain.
import { runApiCases } from './api-cases.js';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

let server: ApiserverProcess | undefined;
let tokens: Awaited<ReturnType<typeof adminTokenFile>> | undefined;

runApiCases(
  'resource API: memory backend, --api-domain=plat.io',
  async () => {
    tokens = await adminTokenFile();
    server = await startApiserver([
      '--storage-backend=memory',
      `--token-auth-file=${tokens.file}`,
      '--etcd-compaction-interval=0',
      // The cases stream lists (sendInitialEvents), which needs the alpha WatchList gate.
      '--feature-gates=WatchList=true',
      // IPAddress is alpha, off by default; the k8s.io form of the group name works with any --api-domain.
      '--runtime-config=networking.k8s.io/v1alpha1=true',
    ]);
    return { server, token: tokens.token, domain: 'plat.io' };
  },
  async () => {
    await server?.stop();
    await tokens?.cleanup();
  },
);
