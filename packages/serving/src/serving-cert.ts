// The serving certificate of a secure port (the apiserver's, the controller-manager's): the files
// given by --tls-cert-file/--tls-private-key-file, or else a self-signed CA and a certificate it
// signed, kept in --cert-dir and reused while still valid, or kept in memory when --cert-dir is empty.
import { KeyObject, X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
// @peculiar/x509 (through tsyringe) needs the Reflect metadata API, which Node lacks; it must load first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface ServingCertificate {
  /** PEM: the serving certificate, possibly followed by the chain up to its CA. */
  cert: string;
  /** PEM private key. */
  key: string;
}

export interface SelfSignedCertificate extends ServingCertificate {
  /** PEM of the CA that signed `cert`, for clients' kubeconfig (certificate-authority-data). */
  ca: string;
  certFile: string;
  keyFile: string;
  caFile: string;
  /** False when valid files from an earlier run were reused. */
  generated: boolean;
}

export interface CertificateNames {
  /** The --bind-address; a specific IP is added to the certificate's names. */
  bindAddress: string;
  /** Defaults to the machine's host name. */
  hostname?: string;
  /** The DNS names always covered, besides the host name; default the apiserver's (`apiserverDNSNames`). */
  dnsNames?: readonly string[];
}

export interface SelfSignedOptions extends CertificateNames {
  certDir: string;
  /** The files' stem, as upstream's PairName: `<pairName>.crt` and `<pairName>.key`; default "apiserver". */
  pairName?: string;
  /** The CA's file in certDir; default "ca.crt". Components sharing a directory each need their own. */
  caFileName?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const VALIDITY_MS = 365 * DAY_MS;
/** A certificate closer than this to its expiry is replaced at startup rather than reused. */
const RENEW_BEFORE_MS = 30 * DAY_MS;
const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/** The apiserver's names: localhost and the names of the in-cluster service. */
export const apiserverDNSNames: readonly string[] = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];

/** The DNS names and IPs the serving certificate must cover. */
export function servingNames(bindAddress: string, host = osHostname(), fixed: readonly string[] = apiserverDNSNames): { dns: string[]; ips: string[] } {
  const dns = [...fixed];
  const hostName = host.toLowerCase();
  if (hostName && !isIP(hostName) && !dns.includes(hostName)) dns.push(hostName);
  const ips = ['127.0.0.1', '::1'];
  const unspecified = bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '';
  if (isIP(bindAddress) && !unspecified && !ips.includes(bindAddress)) ips.push(bindAddress);
  if (isIP(hostName) && !ips.includes(hostName)) ips.push(hostName);
  return { dns, ips };
}

/** Go's x509 rejects negative serial numbers: 16 random bytes with the high bit clear. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function generate(names: { dns: string[]; ips: string[] }, host: string): Promise<{ cert: string; key: string; ca: string }> {
  // @peculiar/x509 takes a WebCrypto provider; Node's is one.
  const crypto = webcrypto;
  const now = Date.now();
  // Backdated an hour so that a client whose clock is a little behind still accepts it.
  const notBefore = new Date(now - 60 * 60 * 1000);
  const notAfter = new Date(now + VALIDITY_MS);
  const stamp = Math.floor(now / 1000);
  const caKeys = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialNumber(),
      name: `CN=${host}-ca@${stamp}`,
      notBefore,
      notAfter,
      keys: caKeys,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const leafKeys = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: `CN=${host}@${stamp}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: leafKeys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...names.dns.map((value) => ({ type: 'dns' as const, value })),
          ...names.ips.map((value) => ({ type: 'ip' as const, value })),
        ]),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const key = KeyObject.from(leafKeys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { cert: leaf.toString('pem') + '\n', key, ca: ca.toString('pem') + '\n' };
}

/** Why the files in certDir cannot be reused, or '' when they can. */
function unusableReason(cert: string, key: string, caPem: string, names: { dns: string[]; ips: string[] }): string {
  try {
    const leaf = new X509Certificate(cert);
    const ca = new X509Certificate(caPem);
    const now = Date.now();
    if (Date.parse(leaf.validFrom) > now || Date.parse(leaf.validTo) - RENEW_BEFORE_MS < now) return 'expired or expiring soon';
    if (!leaf.checkPrivateKey(createPrivateKey(key))) return 'the key does not match the certificate';
    if (!ca.ca || !leaf.verify(ca.publicKey)) return 'the certificate is not signed by ca.crt';
    const missing = [
      ...names.dns.filter((name) => leaf.checkHost(name) === undefined),
      ...names.ips.filter((ip) => leaf.checkIP(ip) === undefined),
    ];
    return missing.length ? `the certificate does not cover ${missing.join(', ')}` : '';
  } catch (error) {
    return (error as Error).message;
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// Written to a temporary name then renamed, so that a crash never leaves half a file behind.
async function writeAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode });
  await rename(tmp, path);
}

/** A fresh self-signed CA and serving certificate (leaf then CA in `cert`), written nowhere. */
export async function generateSelfSignedCert(options: CertificateNames): Promise<{ cert: string; key: string; ca: string }> {
  const host = options.hostname ?? osHostname();
  const fresh = await generate(servingNames(options.bindAddress, host, options.dnsNames), host.toLowerCase() || 'localhost');
  return { cert: fresh.cert + fresh.ca, key: fresh.key, ca: fresh.ca };
}

/**
 * Reuses apiserver.crt (leaf then CA), apiserver.key and ca.crt (or the pairName's files) from certDir when they are valid
 * and cover today's names; otherwise generates new ones (ECDSA P-256, one year) and writes them.
 */
export async function ensureSelfSignedCert(options: SelfSignedOptions): Promise<SelfSignedCertificate & { replacedBecause?: string }> {
  const host = options.hostname ?? osHostname();
  const names = servingNames(options.bindAddress, host, options.dnsNames);
  const pairName = options.pairName ?? 'apiserver';
  const certFile = join(options.certDir, `${pairName}.crt`);
  const keyFile = join(options.certDir, `${pairName}.key`);
  const caFile = join(options.certDir, options.caFileName ?? 'ca.crt');
  const [cert, key, ca] = await Promise.all([readIfExists(certFile), readIfExists(keyFile), readIfExists(caFile)]);
  let replacedBecause: string | undefined;
  if (cert !== undefined && key !== undefined && ca !== undefined) {
    replacedBecause = unusableReason(cert, key, ca, names);
    if (!replacedBecause) return { cert, key, ca, certFile, keyFile, caFile, generated: false };
  }
  const fresh = await generate(names, host.toLowerCase() || 'localhost');
  await mkdir(options.certDir, { recursive: true, mode: 0o755 });
  await writeAtomic(keyFile, fresh.key, 0o600);
  await writeAtomic(caFile, fresh.ca, 0o644);
  await writeAtomic(certFile, fresh.cert + fresh.ca, 0o644);
  return {
    cert: fresh.cert + fresh.ca,
    key: fresh.key,
    ca: fresh.ca,
    certFile,
    keyFile,
    caFile,
    generated: true,
    ...(replacedBecause ? { replacedBecause } : {}),
  };
}

export interface ServingCertOptions extends SelfSignedOptions {
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
}

/**
 * The serving certificate from the given files, or else self-signed: in certDir, or (as upstream
 * does for an empty --cert-dir) generated afresh in memory at every start.
 */
export async function loadServingCert(options: ServingCertOptions): Promise<ServingCertificate & { source: string; replacedBecause?: string }> {
  const { tlsCertFile, tlsPrivateKeyFile } = options;
  if (tlsCertFile || tlsPrivateKeyFile) {
    if (!tlsCertFile || !tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    const [cert, key] = await Promise.all([readFile(tlsCertFile, 'utf8'), readFile(tlsPrivateKeyFile, 'utf8')]);
    return { cert, key, source: tlsCertFile };
  }
  if (!options.certDir) {
    const { cert, key } = await generateSelfSignedCert(options);
    return { cert, key, source: 'self-signed, in memory' };
  }
  const selfSigned = await ensureSelfSignedCert(options);
  return {
    cert: selfSigned.cert,
    key: selfSigned.key,
    source: `${selfSigned.certFile} (self-signed, ${selfSigned.generated ? 'generated' : 'reused'}; CA in ${selfSigned.caFile})`,
    ...(selfSigned.replacedBecause ? { replacedBecause: selfSigned.replacedBecause } : {}),
  };
}
