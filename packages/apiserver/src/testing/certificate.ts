// The serving certificate of every test server in a process: self-signed for 127.0.0.1, made once in
// a temporary folder that goes when the process exits.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSelfSignedCert, type SelfSignedCertificate } from '@plat/serving';

let certificate: Promise<SelfSignedCertificate> | undefined;

/** One self-signed certificate per test process. */
export function testCert(): Promise<SelfSignedCertificate> {
  certificate ??= mkdtemp(join(tmpdir(), 'plat-test-cert-')).then((certDir) => {
    process.once('exit', () => rmSync(certDir, { recursive: true, force: true }));
    return ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1' });
  });
  return certificate;
}
