import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { rootCertificates } from './root-certificates.js';
import { certificateFor } from './test-support.js';

let ca = '';
let key = '';
before(async () => {
  ({ ca, key } = await certificateFor(['hook.ns.svc']));
});

const malformed = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';

// What client-go's rootCertPool keeps and how it refuses PEM with no certificate in it.
const cases: { name: string; pem: () => string; want: 'the CA' | string }[] = [
  { name: 'a certificate', pem: () => ca, want: 'the CA' },
  { name: 'a certificate among other text and blocks', pem: () => `garbage\n${key}${ca}trailing words`, want: 'the CA' },
  { name: 'no PEM at all', pem: () => 'not PEM', want: 'unable to load root certificates: unable to parse bytes as PEM block' },
  { name: 'a key and no certificate', pem: () => key, want: 'unable to load root certificates: no valid certificate authority data seen' },
  { name: 'a key, then text', pem: () => `${key}\n`, want: 'unable to load root certificates: unable to parse bytes as PEM block' },
  { name: 'a certificate that does not parse', pem: () => malformed, want: 'unable to load root certificates: failed to parse certificate: x509: malformed certificate' },
];

for (const { name, pem, want } of cases) {
  test(`root certificates: ${name}`, () => {
    if (want !== 'the CA') return void assert.throws(() => rootCertificates(pem()), { message: want });
    const kept = rootCertificates(pem());
    assert.equal(new X509Certificate(kept).fingerprint256, new X509Certificate(ca).fingerprint256);
    assert.doesNotMatch(kept, /PRIVATE KEY|garbage|trailing/);
  });
}
