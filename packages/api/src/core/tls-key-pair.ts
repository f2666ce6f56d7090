// Whether a TLS Secret's certificate and key make a pair, in the words of Go's tls.X509KeyPair,
// which upstream's Secret strategy returns as a warning (never an error: such Secrets were always
// accepted).
import { X509Certificate, createPrivateKey } from 'node:crypto';

const PEM_BLOCK = /-----BEGIN ([^\n-]+)-----\r?\n[\s\S]*?-----END \1-----/g;

const blockTypes = (pem: string): string[] => [...pem.matchAll(PEM_BLOCK)].map((match) => match[1]!);

/** Go's %v of a []string: `[A B]`. */
const goList = (values: readonly string[]): string => `[${values.join(' ')}]`;

/** The problem with the pair, or undefined when the key belongs to the certificate. */
export function keyPairProblem(certPem: string, keyPem: string): string | undefined {
  const certTypes = blockTypes(certPem);
  const certBlocks = [...certPem.matchAll(PEM_BLOCK)].filter((match) => match[1] === 'CERTIFICATE');
  if (certBlocks.length === 0) {
    if (certTypes.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (certTypes.length === 1 && certTypes[0]!.endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${goList(certTypes)}`;
  }
  const keyTypes = blockTypes(keyPem);
  const keyIndex = keyTypes.findIndex((type) => type === 'PRIVATE KEY' || type.endsWith(' PRIVATE KEY'));
  if (keyIndex < 0) {
    if (keyTypes.length === 0) return 'tls: failed to find any PEM data in key input';
    if (keyTypes.length === 1 && keyTypes[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${goList(keyTypes)}`;
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certBlocks[0]![0]);
  } catch {
    return 'x509: malformed certificate';
  }
  let key;
  try {
    key = createPrivateKey([...keyPem.matchAll(PEM_BLOCK)][keyIndex]![0]);
  } catch {
    return 'tls: failed to parse private key';
  }
  if (certificate.publicKey.asymmetricKeyType !== key.asymmetricKeyType) return 'tls: private key type does not match public key type';
  return certificate.checkPrivateKey(key) ? undefined : 'tls: private key does not match public key';
}
