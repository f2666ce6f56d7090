// The resource API on etcd, under Kubernetes' names (--api-domain=k8s.io).
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { runApiCases } from './api-cases.js';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

let etcd: TestEtcd | undefined;
let server: ApiserverProcess | undefined;
let tokens: Awaited<ReturnType<typeof adminTokenFile>> | undefined;

runApiCases(
  'resource API: etcd backend, --api-domain=k8s.io',
  async () => {
    etcd = await sharedEtcd();
    tokens = await adminTokenFile();
    server = await startApiserver([
      ...etcd.flags,
      `--token-auth-file=${tokens.file}`,
      '--api-domain=k8s.io',
      '--etcd-compaction-interval=0',
      // The cases stream lists (sendInitialEvents), which needs the alpha WatchList gate.
      '--feature-gates=WatchList=true',
      // IPAddress is alpha, off by default.
      '--runtime-config=networking.k8s.io/v1alpha1',
    ]);
    return { server, token: tokens.token, domain: 'k8s.io' };
  },
  async () => {
    await server?.stop();
    await etcd?.stop();
    await tokens?.cleanup();
  },
);
