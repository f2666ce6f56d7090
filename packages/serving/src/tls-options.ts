// The TLS settings of every secure port: what Go's crypto/tls, which serves kube-apiserver, chooses.
import { DEFAULT_CIPHERS } from 'node:tls';

const AES_128_GCM = 'TLS_AES_128_GCM_SHA256';

/**
 * Node's defaults with TLS 1.3's AES-128-GCM first, and the server's order deciding. Go's servers
 * pick AES-128-GCM on hardware with AES instructions whatever the client prefers; node's clients
 * list AES-256 first. The cipher is paid on every byte a watch sends: with 1,000 watchers on one
 * replica (bench/api) a 7 KB write costs 17 µs of CPU instead of 21.
 */
export const serverCiphers = [AES_128_GCM, ...DEFAULT_CIPHERS.split(':').filter((suite) => suite !== AES_128_GCM)].join(':');

const TLS13_SUITES = [AES_128_GCM, 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/**
 * Go's names of the TLS 1.0-1.2 suites --tls-cipher-suites takes (crypto/tls's secure and insecure
 * lists, the ChaCha20 ones under both names), with OpenSSL's name of each; undefined where node's
 * OpenSSL has no such suite (RC4 and 3DES are compiled out).
 */
const goSuites: Record<string, string | undefined> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: undefined,
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: undefined,
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: undefined,
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: undefined,
  TLS_RSA_WITH_RC4_128_SHA: undefined,
};

/** Go's TLS versions as --tls-min-version names them. */
const goVersions = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;

export interface TlsPolicy {
  /** The lowest version served: TLS 1.2 (the default) or 1.3. */
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL's names of the TLS 1.2 suites, in order; absent: node's defaults. TLS 1.3's are not configurable, as in Go. */
  tls12Suites?: string[];
}

/** --tls-min-version; throws the reason a value is refused. */
export function parseTlsMinVersion(name: string): TlsPolicy['minVersion'] {
  if (!name || name === 'VersionTLS12') return 'TLSv1.2';
  if (name === 'VersionTLS13') return 'TLSv1.3';
  if ((goVersions as readonly string[]).includes(name)) {
    throw new Error(`${name} is not supported by this server: node's OpenSSL refuses TLS 1.0 and 1.1 (use VersionTLS12 or VersionTLS13)`);
  }
  throw new Error(`unknown tls version ${JSON.stringify(name)}`);
}

/** --tls-cipher-suites (Go's names) as OpenSSL's; the TLS 1.3 suites are accepted and left as they are, as Go does. */
export function parseTlsCipherSuites(names: readonly string[]): string[] | undefined {
  if (!names.length) return undefined;
  const suites: string[] = [];
  for (const name of names) {
    if (TLS13_SUITES.includes(name)) continue;
    if (!Object.hasOwn(goSuites, name)) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
    const openssl = goSuites[name];
    if (!openssl) throw new Error(`Cipher suite ${name} is not available in this server's TLS library (RC4 and 3DES are not built in)`);
    if (!suites.includes(openssl)) suites.push(openssl);
  }
  return suites;
}

export interface ServingTlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface SecureServingOptions {
  cert: string | Buffer;
  key: string | Buffer;
  minVersion: TlsPolicy['minVersion'];
  ciphers: string;
  honorCipherOrder: true;
}

/** The options for node's TLS or HTTPS server on a secure port. */
export function secureServingOptions(tls: ServingTlsOptions, policy: TlsPolicy = { minVersion: 'TLSv1.2' }): SecureServingOptions {
  // A list of TLS 1.2 suites replaces node's, after TLS 1.3's (which it cannot turn off, as in Go).
  const ciphers = policy.tls12Suites ? [...TLS13_SUITES, ...policy.tls12Suites].join(':') : serverCiphers;
  return { cert: tls.cert, key: tls.key, minVersion: policy.minVersion, ciphers, honorCipherOrder: true };
}
