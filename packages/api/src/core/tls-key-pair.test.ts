import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPairProblem } from './tls-key-pair.js';

describe('TLS key pairs, in Go\'s tls.X509KeyPair words', () => {
  let dir: string;
  const pair = (name: string, algorithm: string[]): { cert: string; key: string } => {
    execFileSync('openssl', ['req', '-x509', '-newkey', ...algorithm, '-nodes', '-days', '1', '-subj', `/CN=${name}`, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)], { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, `${name}.crt`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
  };
  let a: { cert: string; key: string };
  let b: { cert: string; key: string };
  let ec: { cert: string; key: string };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'plat-tls-pair-'));
    a = pair('a', ['rsa:2048']);
    b = pair('b', ['rsa:2048']);
    ec = pair('ec', ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a matching pair has no problem', () => {
    assert.equal(keyPairProblem(a.cert, a.key), undefined);
    assert.equal(keyPairProblem(ec.cert, ec.key), undefined);
  });
  it('each kind of mismatch', () => {
    const cases: [string, string, string][] = [
      [a.cert, b.key, 'tls: private key does not match public key'],
      [a.cert, ec.key, 'tls: private key type does not match public key type'],
      ['', a.key, 'tls: failed to find any PEM data in certificate input'],
      [a.key, a.cert, 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched'],
      [a.cert, '', 'tls: failed to find any PEM data in key input'],
      [a.cert, a.cert, 'tls: found a certificate rather than a key in the PEM for the private key'],
      [a.cert, '-----BEGIN KEY-----\nAAAA\n-----END KEY-----\n', 'tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [KEY]'],
      [a.cert, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', 'tls: failed to parse private key'],
    ];
    for (const [cert, key, want] of cases) assert.equal(keyPairProblem(cert, key), want);
  });
});
