import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import { testCert } from '@plat/apiserver/testing';
import { OidcAuthenticator, type OidcOptions } from './oidc.js';

/** A small OpenID issuer on loopback: discovery and JWKS over HTTPS, its keys replaceable. */
class TestIssuer {
  url = '';
  jwks: JWK[] = [];
  jwksFetches = 0;
  private server?: Server;

  async start(): Promise<string> {
    const { cert, key, ca } = await testCert();
    this.server = createServer({ cert, key }, (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/keys` }));
      else if (req.url === '/keys') {
        this.jwksFetches++;
        res.end(JSON.stringify({ keys: this.jwks }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return ca;
  }

  async newKey(kid: string): Promise<CryptoKey> {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    this.jwks = [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }];
    return privateKey;
  }

  stop(): void {
    this.server?.close();
  }
}

const issuer = new TestIssuer();
let ca = '';
let key1: CryptoKey;

function token(key: CryptoKey, kid: string, claims: JWTPayload = {}, expires = '5m'): Promise<string> {
  return new SignJWT({ sub: 'alice-id', email: 'alice@example.com', groups: ['dev', 'ops'], ...claims })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setIssuer(claims.iss ?? issuer.url)
    .setAudience((claims.aud as string) ?? 'plat')
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(key);
}

const authenticator = (options: Partial<OidcOptions> = {}): OidcAuthenticator =>
  new OidcAuthenticator({ issuerURL: issuer.url, clientID: 'plat', ca, groupsClaim: 'groups', ...options });

before(async () => {
  ca = await issuer.start();
  key1 = await issuer.newKey('one');
});
after(() => issuer.stop());

describe('OIDC: claims to a user, as upstream', () => {
  const rows: Array<{ name: string; options?: Partial<OidcOptions>; claims?: JWTPayload; user?: { name: string; groups: string[] }; error?: RegExp }> = [
    { name: 'sub, prefixed with the issuer by default; groups as given', user: { name: '', groups: ['dev', 'ops'] } },
    { name: 'the email claim is not prefixed', options: { usernameClaim: 'email' }, user: { name: 'alice@example.com', groups: ['dev', 'ops'] } },
    { name: '- asks for no prefix', options: { usernamePrefix: '-' }, user: { name: 'alice-id', groups: ['dev', 'ops'] } },
    { name: 'prefixes for both', options: { usernamePrefix: 'oidc:', groupsPrefix: 'oidc:' }, user: { name: 'oidc:alice-id', groups: ['oidc:dev', 'oidc:ops'] } },
    { name: 'a group claim that is one string', claims: { groups: 'dev' }, options: { usernamePrefix: '-' }, user: { name: 'alice-id', groups: ['dev'] } },
    { name: 'an unverified email is refused', options: { usernameClaim: 'email' }, claims: { email_verified: false }, error: /oidc: email not verified/ },
    { name: 'a missing username claim', options: { usernameClaim: 'preferred_username' }, error: /claim not present/ },
    { name: 'a required claim present', options: { usernamePrefix: '-', requiredClaims: { hd: 'example.com' } }, claims: { hd: 'example.com' }, user: { name: 'alice-id', groups: ['dev', 'ops'] } },
    { name: 'a required claim missing', options: { requiredClaims: { hd: 'example.com' } }, error: /oidc: required claim hd not present in ID token/ },
    {
      name: 'a required claim with another value',
      options: { requiredClaims: { hd: 'example.com' } },
      claims: { hd: 'evil.com' },
      error: /oidc: required claim hd's value did not match\. Expected: example\.com, Got: evil\.com/,
    },
    { name: 'another client\'s token', claims: { aud: 'someone-else' }, error: /oidc: verify token: .*aud/ },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const result = authenticator(row.options).authenticateToken(await token(key1, 'one', row.claims), []);
      if (row.error) return assert.rejects(result, row.error);
      const user = (await result)!.user;
      assert.deepEqual({ name: user.name, groups: user.groups }, { ...row.user!, name: row.user!.name || `${issuer.url}#alice-id` });
    });
  }

  test('an expired token', async () => {
    await assert.rejects(authenticator().authenticateToken(await token(key1, 'one', {}, '-1m'), []), /oidc: verify token: oidc: token is expired/);
  });

  test('a token of another issuer is not this authenticator\'s, nor is a string that is no JWT', async () => {
    assert.equal(await authenticator().authenticateToken(await token(key1, 'one', { iss: 'https://elsewhere' }), []), undefined);
    assert.equal(await authenticator().authenticateToken('opaque-token', []), undefined);
  });
});

test('OIDC: keys come from the issuer\'s JWKS; after a rotation the new key verifies and the old one is refused', async () => {
  const oidc = authenticator({ usernamePrefix: '-' });
  const old = await token(key1, 'one');
  assert.equal((await oidc.authenticateToken(old, []))?.user.name, 'alice-id');
  const key2 = await issuer.newKey('two');
  // A token naming a key not seen yet makes the authenticator fetch the set again (at most once a second).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal((await oidc.authenticateToken(await token(key2, 'two'), []))?.user.name, 'alice-id');
  await assert.rejects(oidc.authenticateToken(old, []), /oidc: verify token: /);
});

test('OIDC: an unreachable issuer fails the token (and is asked again next time)', async () => {
  const oidc = new OidcAuthenticator({ issuerURL: issuer.url, clientID: 'plat' });
  // Without --oidc-ca-file the test issuer's certificate is not trusted.
  await assert.rejects(oidc.authenticateToken(await token(key1, 'one'), []), /oidc: authenticator not initialized/);
});
