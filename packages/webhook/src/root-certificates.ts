// The authorities a webhook's certificate is verified against, read as client-go reads them
// (transport.rootCertPool): every CERTIFICATE block of the PEM that parses is kept, anything else
// in the text is skipped; PEM that yields no certificate at all is refused, with client-go's
// words, when the client is made rather than failing every call later.
import { X509Certificate } from 'node:crypto';

const block = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----[ \t\r]*(?:\n|$)/g;

/** The certificates of `pem` as PEM, or an Error saying why there are none. */
export function rootCertificates(pem: string): string {
  const kept: string[] = [];
  let firstProblem: string | undefined;
  let end = 0;
  for (const match of pem.matchAll(block)) {
    end = match.index + match[0].length;
    const [text, type, body] = match as unknown as [string, string, string];
    // Go's pool takes CERTIFICATE blocks without headers only.
    if (type !== 'CERTIFICATE' || body.includes(':')) continue;
    try {
      new X509Certificate(text);
      kept.push(text.endsWith('\n') ? text : `${text}\n`);
    } catch {
      firstProblem ??= 'failed to parse certificate: x509: malformed certificate';
    }
  }
  if (kept.length) return kept.join('');
  // client-go reports the first thing it could not use: a certificate that does not parse, text
  // after the last block (or all of it) that is no PEM block, or else that none was a certificate.
  const problem = firstProblem ?? (end < pem.length ? 'unable to parse bytes as PEM block' : 'no valid certificate authority data seen');
  throw new Error(`unable to load root certificates: ${problem}`);
}
