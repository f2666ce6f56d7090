import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { builtinDefinitions } from '@plat/api';
import { createStorage } from '@plat/storage';
import { ResourceCatalog } from '@plat/endpoints';
import { algorithmOf, keyId, parsePublicKeys, parseSigningKey, ServiceAccountKeyError, ServiceAccountTokens } from './service-account-tokens.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const pem = (key: { export(options: { type: 'pkcs8' | 'spki'; format: 'pem' }): string | Buffer }, type: 'pkcs8' | 'spki'): string =>
  String(key.export({ type, format: 'pem' }));

test('keys: public, private and several per file; the algorithm by key type', () => {
  const keys = parsePublicKeys(`${pem(rsa.publicKey, 'spki')}\n${pem(ec.privateKey, 'pkcs8')}`);
  assert.deepEqual(keys.map((key) => [key.type, algorithmOf(key)]), [['public', 'RS256'], ['public', 'ES384']]);
  assert.equal(algorithmOf(parseSigningKey(pem(rsa.privateKey, 'pkcs8'))), 'RS256');
  assert.throws(() => parsePublicKeys('nothing here', 'sa.pub'), ServiceAccountKeyError);
  assert.throws(() => parseSigningKey(pem(rsa.publicKey, 'spki'), 'sa.key'), /sa\.key: not a PEM private key/);
  const ed = generateKeyPairSync('ed25519');
  assert.throws(() => parseSigningKey(pem(ed.privateKey, 'pkcs8'), 'ed.key'), /unsupported key type ed25519/);
});

test('keys: the key id is the same for a private key and its public half', () => {
  assert.equal(keyId(rsa.privateKey), keyId(createPublicKey(rsa.privateKey)));
  assert.match(keyId(rsa.publicKey), /^[A-Za-z0-9_-]{43}$/);
});

test('tokens: issued for an account, verified for it, refused for another audience or issuer', async (t) => {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  t.after(() => storage.close());
  const catalog = new ResourceCatalog(builtinDefinitions, { storage, domain: 'k8s.io' });
  await catalog.store('', 'v1', 'namespaces').create('', { metadata: { name: 'ns' } });
  const account = await catalog.store('', 'v1', 'serviceaccounts').create('ns', { metadata: { name: 'robot' } });
  const options = { issuers: ['https://a', 'https://b'], keys: [ec.publicKey, rsa.privateKey], signingKey: rsa.privateKey };
  const tokens = new ServiceAccountTokens(options, catalog, 'k8s.io');
  assert.deepEqual(tokens.apiAudiences, ['https://a', 'https://b']);
  const issued = await tokens.issue({ namespace: 'ns', name: 'robot', audiences: [], expirationSeconds: 600 });
  assert.deepEqual(issued.audiences, ['https://a', 'https://b']);
  const verified = await tokens.authenticateToken(issued.token, []);
  assert.deepEqual(verified, {
    user: { name: 'system:serviceaccount:ns:robot', uid: account.metadata.uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'] },
    audiences: ['https://a', 'https://b'],
  });
  await assert.rejects(tokens.authenticateToken(issued.token, ['vault']), /token audiences \["https:\/\/a" "https:\/\/b"\] is invalid for the target audiences \["vault"\]/);
  assert.equal(await tokens.authenticateToken('not.a.jwt', []), undefined);
  const elsewhere = new ServiceAccountTokens({ ...options, issuers: ['https://c'] }, catalog, 'k8s.io');
  assert.equal(await elsewhere.authenticateToken(issued.token, []), undefined);
  const otherKey = new ServiceAccountTokens({ ...options, keys: [ec.publicKey] }, catalog, 'k8s.io');
  await assert.rejects(otherKey.authenticateToken(issued.token, []), /Algorithm|signature/);
  const verifyOnly = new ServiceAccountTokens({ issuers: options.issuers, keys: options.keys }, catalog, 'k8s.io');
  assert.equal(verifyOnly.canIssue, false);
  await assert.rejects(verifyOnly.issue({ namespace: 'ns', name: 'robot', audiences: [], expirationSeconds: 600 }), (error: { code?: number }) => error.code === 404);
  // --api-audiences replaces the issuers as the default audiences; --service-account-max-token-expiration bounds the validity.
  const bounded = new ServiceAccountTokens({ ...options, apiAudiences: ['api'], maxExpirationSeconds: 3600 }, catalog, 'k8s.io');
  const long = await bounded.issue({ namespace: 'ns', name: 'robot', audiences: [], expirationSeconds: 86_400 });
  assert.deepEqual(long.audiences, ['api']);
  assert.equal(Date.parse(long.expirationTimestamp) - Date.parse(long.issuedAt), 3_600_000);
  const short = await bounded.issue({ namespace: 'ns', name: 'robot', audiences: [], expirationSeconds: 600 });
  assert.equal(Date.parse(short.expirationTimestamp) - Date.parse(short.issuedAt), 600_000);
});
