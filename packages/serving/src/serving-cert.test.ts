import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSelfSignedCert, generateSelfSignedCert, loadServingCert, servingNames } from './serving-cert.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function newDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-cert-'));
  dirs.push(dir);
  return dir;
}

/** Runs openssl; undefined when the binary is absent (the assertion is then left out). */
function openssl(args: string[]): { status: number | null; stdout: string; stderr: string } | undefined {
  const result = spawnSync('openssl', args, { encoding: 'utf8' });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return undefined;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('serving names: fixed names, host name, and a specific bind address', () => {
  assert.deepEqual(servingNames('0.0.0.0', 'Node-1'), {
    dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'node-1'],
    ips: ['127.0.0.1', '::1'],
  });
  assert.deepEqual(servingNames('10.0.0.5', 'localhost').ips, ['127.0.0.1', '::1', '10.0.0.5']);
  assert.deepEqual(servingNames('::', 'h').ips, ['127.0.0.1', '::1']);
});

test('self-signed: generates a CA and a serving certificate that kubectl-style clients accept', async () => {
  const certDir = await newDir();
  const result = await ensureSelfSignedCert({ certDir, bindAddress: '10.1.2.3', hostname: 'plat-host' });
  assert.equal(result.generated, true);
  assert.equal(result.certFile, join(certDir, 'apiserver.crt'));

  const certPem = await readFile(result.certFile, 'utf8');
  assert.equal(certPem.match(/BEGIN CERTIFICATE/g)?.length, 2, 'apiserver.crt holds the leaf then the CA');
  assert.equal(await readFile(result.caFile, 'utf8'), result.ca);
  assert.ok(certPem.endsWith(result.ca));
  assert.equal((await stat(result.keyFile)).mode & 0o777, 0o600);

  const leaf = new X509Certificate(certPem);
  const ca = new X509Certificate(result.ca);
  assert.ok(ca.ca, 'CA has basicConstraints CA:true');
  assert.ok(!leaf.ca);
  assert.ok(leaf.verify(ca.publicKey));
  for (const name of ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'plat-host']) {
    assert.equal(leaf.checkHost(name), name);
  }
  for (const ip of ['127.0.0.1', '::1', '10.1.2.3']) assert.ok(leaf.checkIP(ip), ip);
  assert.equal(leaf.checkIP('10.9.9.9'), undefined);
  assert.ok(leaf.keyUsage?.includes('1.3.6.1.5.5.7.3.1'), 'serverAuth extended key usage');
  assert.ok(Date.parse(leaf.validTo) > Date.now() + 300 * 24 * 3600 * 1000);

  const verified = openssl(['verify', '-CAfile', result.caFile, result.certFile]);
  if (verified) assert.equal(verified.status, 0, verified.stderr + verified.stdout);
  const caText = openssl(['x509', '-in', result.caFile, '-noout', '-text']);
  if (caText) {
    assert.match(caText.stdout, /CA:TRUE/);
    assert.match(caText.stdout, /Certificate Sign/);
  }
});

test('self-signed: valid files are reused', async () => {
  const certDir = await newDir();
  const first = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' });
  const second = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' });
  assert.equal(second.generated, false);
  assert.equal(second.cert, first.cert);
  assert.equal(second.key, first.key);
});

test('self-signed: replaced when a name is no longer covered', async () => {
  const certDir = await newDir();
  const first = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' });
  const second = await ensureSelfSignedCert({ certDir, bindAddress: '10.4.4.4', hostname: 'h' });
  assert.equal(second.generated, true);
  assert.notEqual(second.cert, first.cert);
  assert.match(second.replacedBecause ?? '', /10\.4\.4\.4/);
  assert.ok(new X509Certificate(second.cert).checkIP('10.4.4.4'));
});

test('self-signed: replaced when the key does not match', async () => {
  const certDir = await newDir();
  await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' });
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  await writeFile(join(certDir, 'apiserver.key'), other);
  const again = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' });
  assert.equal(again.generated, true);
  assert.match(again.replacedBecause ?? '', /key does not match/);
});

test('serving cert: given files are used as they are; one without the other is an error', async () => {
  const certDir = await newDir();
  const generated = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1' });
  const loaded = await loadServingCert({ tlsCertFile: generated.certFile, tlsPrivateKeyFile: generated.keyFile, certDir: '/nonexistent', bindAddress: '0.0.0.0' });
  assert.equal(loaded.cert, generated.cert);
  assert.equal(loaded.key, generated.key);
  await assert.rejects(loadServingCert({ tlsCertFile: generated.certFile, certDir, bindAddress: '0.0.0.0' }), /must be given together/);
});

test('self-signed: another component keeps its own files (pairName, caFileName) and names beside the apiserver\'s', async () => {
  const certDir = await newDir();
  const apiserver = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' });
  const manager = await ensureSelfSignedCert({
    certDir,
    bindAddress: '127.0.0.1',
    hostname: 'h',
    pairName: 'plat-controller-manager',
    caFileName: 'plat-controller-manager-ca.crt',
    dnsNames: ['localhost'],
  });
  assert.equal(manager.certFile, join(certDir, 'plat-controller-manager.crt'));
  assert.equal(manager.keyFile, join(certDir, 'plat-controller-manager.key'));
  assert.equal(manager.caFile, join(certDir, 'plat-controller-manager-ca.crt'));
  // The apiserver's files are untouched, and reused as they were.
  assert.equal(await readFile(join(certDir, 'ca.crt'), 'utf8'), apiserver.ca);
  assert.equal((await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1', hostname: 'h' })).generated, false);
  const leaf = new X509Certificate(manager.cert);
  assert.equal(leaf.checkHost('localhost'), 'localhost');
  assert.equal(leaf.checkHost('kubernetes.default.svc'), undefined, 'the apiserver\'s service names are not the controller-manager\'s');
  assert.ok(leaf.verify(new X509Certificate(manager.ca).publicKey));
});

test('serving cert: an empty certDir generates one in memory, writing nothing', async () => {
  const names = { bindAddress: '127.0.0.1', hostname: 'h', dnsNames: ['localhost'] };
  const loaded = await loadServingCert({ ...names, certDir: '' });
  assert.equal(loaded.source, 'self-signed, in memory');
  const leaf = new X509Certificate(loaded.cert);
  assert.ok(leaf.checkIP('127.0.0.1'));
  assert.equal(loaded.cert.match(/BEGIN CERTIFICATE/g)?.length, 2, 'leaf then CA');
  const fresh = await generateSelfSignedCert(names);
  assert.ok(new X509Certificate(fresh.cert).verify(new X509Certificate(fresh.ca).publicKey));
  assert.notEqual(fresh.cert, loaded.cert, 'a new one every time');
});
