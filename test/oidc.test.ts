// OIDC end to end: a small OpenID issuer in the test (discovery and JWKS over HTTPS on loopback,
// tokens signed with jose), a replica with --oidc-*, and kubectl with an ID token: it lists what
// RBAC grants the token's groups, and is refused once the issuer's key has rotated away.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { ensureSelfSignedCert } from '@plat/serving';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { authFiles, type AuthFiles } from './support/auth.js';
import { runKubectl, writeKubeconfig } from './support/kubeconfig.js';

describe('OIDC: kubectl with an ID token from an issuer on loopback', () => {
  let issuer: Server;
  let issuerURL = '';
  let jwks: JWK[] = [];
  let server: ApiserverProcess;
  let files: AuthFiles;
  let workDir: string;
  let admin: Awaited<ReturnType<typeof writeKubeconfig>>;

  const newKey = async (kid: string): Promise<CryptoKey> => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    jwks = [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }];
    return privateKey;
  };
  const idToken = (key: CryptoKey, kid: string): Promise<string> =>
    new SignJWT({ email: 'jane@example.com', email_verified: true, groups: ['platform-readers'] })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(issuerURL)
      .setSubject('jane-id')
      .setAudience('plat-cli')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);

  /** kubectl with a bearer token (or the admin's kubeconfig); stdout and stderr together, and the exit code. */
  const kubectl = async (token: string | undefined, ...args: string[]): Promise<{ out: string; code: number }> => {
    const config = token ? await writeKubeconfig(server, token) : admin;
    try {
      return await runKubectl(config.path, workDir, args);
    } finally {
      if (token) await config.cleanup();
    }
  };

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-oidc-'));
    const cert = await ensureSelfSignedCert({ certDir: workDir, bindAddress: '127.0.0.1', pairName: 'issuer', caFileName: 'issuer-ca.crt' });
    issuer = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: issuerURL, jwks_uri: `${issuerURL}/keys` }));
      else if (req.url === '/keys') res.end(JSON.stringify({ keys: jwks }));
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve));
    issuerURL = `https://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
    const caFile = join(workDir, 'issuer-ca.crt');
    files = await authFiles([]);
    server = await startApiserver([
      '--storage-backend=memory',
      // kubectl's auth and RBAC commands speak Kubernetes' group names.
      '--api-domain=k8s.io',
      `--token-auth-file=${files.tokenFile}`,
      `--oidc-issuer-url=${issuerURL}`,
      '--oidc-client-id=plat-cli',
      `--oidc-ca-file=${caFile}`,
      '--oidc-username-claim=email',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
    ]);
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
    admin = await writeKubeconfig(server, files.admin);
  });
  after(async () => {
    await server?.stop();
    issuer?.close();
    await admin?.cleanup();
    await files?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('lists what RBAC grants the token\'s groups, nothing more; refused once the key rotates away', async () => {
    const first = await newKey('first');
    const token = await idToken(first, 'first');
    const whoami = await kubectl(token, 'auth', 'whoami', '-o', 'json');
    assert.equal(whoami.code, 0, whoami.out);
    assert.deepEqual(JSON.parse(whoami.out).status.userInfo, { username: 'jane@example.com', groups: ['oidc:platform-readers', 'system:authenticated'] });

    assert.notEqual((await kubectl(token, 'get', 'namespaces')).code, 0, 'nothing granted yet');
    assert.equal((await kubectl(undefined, 'create', 'clusterrole', 'ns-reader', '--verb=get,list,watch', '--resource=namespaces')).code, 0);
    assert.equal((await kubectl(undefined, 'create', 'clusterrolebinding', 'oidc-readers', '--clusterrole=ns-reader', '--group=oidc:platform-readers')).code, 0);
    await eventually('the grant', async () => (await kubectl(token, 'get', 'namespaces')).code === 0, 5000);
    const listed = await kubectl(token, 'get', 'namespaces', '-o', 'name');
    assert.match(listed.out, /^namespace\/default$/m);
    const secrets = await kubectl(token, 'get', 'serviceaccounts', '-n', 'default');
    assert.notEqual(secrets.code, 0);
    assert.match(secrets.out, /User "jane@example.com" cannot list resource "serviceaccounts"/);

    // The issuer rotates: the new key verifies (the set is fetched again for its kid), the old one no longer.
    const second = await newKey('second');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await kubectl(await idToken(second, 'second'), 'get', 'namespaces', '-o', 'name')).code, 0);
    const stale = await kubectl(token, 'get', 'namespaces');
    assert.notEqual(stale.code, 0);
    assert.match(stale.out, /Unauthorized|must be logged in/);
  });
});
