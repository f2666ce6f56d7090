// The resource API on the persistent embedded backend (SQLite in a temporary folder), under the
// plat.io domain: the same cases as on etcd and in memory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runApiCases } from './api-cases.js';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

let server: ApiserverProcess | undefined;
let tokens: Awaited<ReturnType<typeof adminTokenFile>> | undefined;
let dataDir: string | undefined;

runApiCases(
  'resource API: sqlite backend, --api-domain=plat.io',
  async () => {
    tokens = await adminTokenFile();
    dataDir = await mkdtemp(join(tmpdir(), 'plat-e2e-sqlite-'));
    server = await startApiserver([
      '--storage-backend=sqlite',
      `--storage-dir=${join(dataDir, 'data')}`,
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
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  },
);
