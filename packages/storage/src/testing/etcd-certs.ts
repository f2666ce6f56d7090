// Test certificates for a TLS etcd cluster, made by the same script as `make cluster`'s and
// docker-compose's (deploy/etcd-certs.sh).
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EtcdCertificates } from './etcd-process.js';

const SCRIPT = fileURLToPath(new URL('../../../../deploy/etcd-certs.sh', import.meta.url));

/** A CA, a member certificate and a client certificate in a new temporary folder (or `dir`). */
export async function makeEtcdCertificates(dir?: string): Promise<EtcdCertificates> {
  const folder = dir ?? (await mkdtemp(join(tmpdir(), 'plat-etcd-certs-')));
  const result = spawnSync('sh', [SCRIPT, folder], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${SCRIPT} failed (${result.status}): ${result.stderr}${result.error ?? ''}`);
  return { dir: folder };
}

/** The client's side of `certificates`: the CA to trust, the client certificate and key (PEM). */
export async function clientTls(certificates: EtcdCertificates): Promise<{ ca: string; cert: string; key: string }> {
  const [ca, cert, key] = await Promise.all(['ca.crt', 'client.crt', 'client.key'].map((name) => readFile(join(certificates.dir, name), 'utf8')));
  return { ca: ca!, cert: cert!, key: key! };
}
