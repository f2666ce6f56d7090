// Webhook authentication and authorization end to end: a webhook in the test (HTTPS on loopback)
// answers TokenReviews and SubjectAccessReviews; a replica runs with
// --authentication-token-webhook-config-file and --authorization-mode=RBAC,Webhook, each webhook
// named by a kubeconfig-format file. kubectl with a token only the webhook knows: the webhook's
// user, the webhook's decisions where RBAC has none, RBAC's where it has one, and the caches seen
// from both sides (reviews the webhook received, and authentication_token_cache_* on /metrics).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSelfSignedCert } from '@plat/serving';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { authFiles, type AuthFiles } from './support/auth.js';
import { runKubectl, writeKubeconfig } from './support/kubeconfig.js';

/** Cache TTLs: long enough for a few kubectl runs under load to fall inside them. */
const TOKEN_TTL_MS = 3_000;
const UNAUTHORIZED_TTL_MS = 2_000;
/** The API server caches an answer a moment after the webhook gives it. */
const CACHE_STORE_SLACK_MS = 100;

/** Waits until the TTL measured from the webhook's last answer has passed: no longer. */
async function untilExpired(answeredAt: number, ttlMs: number): Promise<void> {
  const wait = answeredAt + ttlMs + CACHE_STORE_SLACK_MS - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** What the webhook was asked: TokenReviews by token, SubjectAccessReviews by "<user> <verb> <resource>". */
class Reviews {
  tokens = new Map<string, number>();
  access = new Map<string, number>();
  /** When each token or question was last answered (ms since the epoch). */
  answeredAt = new Map<string, number>();
  /** While set, access reviews are answered 500. */
  authorizerDown = false;
  rejectedCredentials = 0;

  tokenReviews(token: string): number {
    return this.tokens.get(token) ?? 0;
  }
  accessReviews(question: string): number {
    return this.access.get(question) ?? 0;
  }
}

const WEBHOOK_CREDENTIAL = 'apiserver-to-webhook';

describe('webhook authentication and authorization: kubectl with a token only the webhook knows', () => {
  const reviews = new Reviews();
  let webhook: Server;
  let server: ApiserverProcess;
  let files: AuthFiles;
  let workDir: string;
  let admin: Awaited<ReturnType<typeof writeKubeconfig>>;
  let jane: Awaited<ReturnType<typeof writeKubeconfig>>;

  const kubectl = (config: { path: string }, ...args: string[]) => runKubectl(config.path, workDir, args);

  /** The webhook: one URL path per review kind, as the two kubeconfigs name them. */
  function answer(path: string, review: { apiVersion?: string; spec?: Record<string, unknown> }): unknown {
    const spec = review.spec ?? {};
    if (path === '/authenticate') {
      const token = String(spec.token);
      reviews.tokens.set(token, reviews.tokenReviews(token) + 1);
      reviews.answeredAt.set(token, Date.now());
      const status =
        token === 'jane-webhook-token'
          ? { authenticated: true, user: { username: 'jane', uid: 'jane-uid', groups: ['webhook:devs'], extra: { 'example.com/team': ['platform'] } } }
          : token === 'revoked-token'
            ? { authenticated: false, error: 'token revoked' }
            : { authenticated: false };
      return { apiVersion: review.apiVersion, kind: 'TokenReview', status };
    }
    const attributes = (spec.resourceAttributes ?? spec.nonResourceAttributes ?? {}) as Record<string, string>;
    const question = `${String(spec.user)} ${attributes.verb} ${attributes.resource ?? attributes.path}`;
    reviews.access.set(question, reviews.accessReviews(question) + 1);
    reviews.answeredAt.set(question, Date.now());
    const status =
      question === 'jane list namespaces' || question === 'jane get namespaces'
        ? { allowed: true, reason: 'platform team reads namespaces' }
        : question === 'jane delete namespaces'
          ? { allowed: false, denied: true, reason: 'namespaces are not deleted during the freeze' }
          : { allowed: false };
    return { apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status };
  }

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-webhook-'));
    const cert = await ensureSelfSignedCert({ certDir: workDir, bindAddress: '127.0.0.1', pairName: 'webhook', caFileName: 'webhook-ca.crt' });
    webhook = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        // The API server presents the kubeconfig's user.
        if (req.headers.authorization !== `Bearer ${WEBHOOK_CREDENTIAL}`) {
          reviews.rejectedCredentials++;
          res.statusCode = 401;
          return void res.end('{}');
        }
        if (req.url === '/authorize' && reviews.authorizerDown) {
          res.statusCode = 500;
          return void res.end('authorizer down');
        }
        res.end(JSON.stringify(answer(req.url ?? '', JSON.parse(Buffer.concat(chunks).toString('utf8')))));
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const base = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
    const webhookConfig = async (name: string, path: string): Promise<string> => {
      const file = join(workDir, `${name}.kubeconfig`);
      await writeFile(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `- name: ${name}`,
          '  cluster:',
          `    server: ${base}${path}`,
          // Relative to the kubeconfig, as kubectl reads it.
          '    certificate-authority: webhook-ca.crt',
          'users:',
          '- name: apiserver',
          `  user: {token: ${WEBHOOK_CREDENTIAL}}`,
          'contexts:',
          `- name: ${name}`,
          `  context: {cluster: ${name}, user: apiserver}`,
          `current-context: ${name}`,
          '',
        ].join('\n'),
      );
      return file;
    };
    files = await authFiles([]);
    server = await startApiserver([
      '--storage-backend=memory',
      // kubectl's auth commands speak Kubernetes' group names, and so do the reviews.
      '--api-domain=k8s.io',
      `--token-auth-file=${files.tokenFile}`,
      `--authentication-token-webhook-config-file=${await webhookConfig('authn', '/authenticate')}`,
      `--authentication-token-webhook-cache-ttl=${TOKEN_TTL_MS}ms`,
      '--authorization-mode=RBAC,Webhook',
      `--authorization-webhook-config-file=${await webhookConfig('authz', '/authorize')}`,
      '--authorization-webhook-cache-authorized-ttl=5m',
      `--authorization-webhook-cache-unauthorized-ttl=${UNAUTHORIZED_TTL_MS}ms`,
    ]);
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
    admin = await writeKubeconfig(server, files.admin);
    jane = await writeKubeconfig(server, 'jane-webhook-token');
  });
  after(async () => {
    await server?.stop();
    webhook?.close();
    await admin?.cleanup();
    await jane?.cleanup();
    await files?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('authenticates through TokenReview: the webhook\'s user, reviewed once while cached, again after the TTL', async () => {
    const whoami = await kubectl(jane, 'auth', 'whoami', '-o', 'json');
    assert.equal(whoami.code, 0, whoami.out);
    assert.deepEqual(JSON.parse(whoami.out).status.userInfo, {
      username: 'jane',
      uid: 'jane-uid',
      groups: ['webhook:devs', 'system:authenticated'],
      extra: { 'example.com/team': ['platform'] },
    });
    const reviewed = reviews.tokenReviews('jane-webhook-token');
    assert.equal(reviewed, 1, 'kubectl made several requests; the token was reviewed once');
    for (let i = 0; i < 3; i++) assert.equal((await server.request('/version', { token: 'jane-webhook-token' })).status, 200);
    assert.equal(reviews.tokenReviews('jane-webhook-token'), 1);
    // The admin's token is the token file's: the webhook never hears of it.
    assert.equal((await kubectl(admin, 'get', 'namespaces')).code, 0);
    assert.equal(reviews.tokenReviews(files.admin), 0);
    await untilExpired(reviews.answeredAt.get('jane-webhook-token')!, TOKEN_TTL_MS);
    assert.equal((await server.request('/version', { token: 'jane-webhook-token' })).status, 200);
    assert.equal(reviews.tokenReviews('jane-webhook-token'), 2, 'reviewed again once the cache TTL passed');

    const metrics = (await server.request('/metrics', { token: files.admin })).body;
    const hits = Number(/^authentication_token_cache_request_total\{status="hit"\} (\d+)$/m.exec(metrics)?.[1]);
    const misses = Number(/^authentication_token_cache_request_total\{status="miss"\} (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(hits >= 3, `hits: ${hits}`);
    assert.equal(misses, 2);
    assert.equal(reviews.rejectedCredentials, 0, 'the API server presented the kubeconfig\'s token');
  });

  it('refuses tokens the webhook does not accept (401), its error reported by TokenReview', async () => {
    for (const token of ['unknown-token', 'revoked-token']) {
      const res = await server.request('/api', { token });
      assert.equal(res.status, 401, token);
    }
    const review = await server.request('/apis/authentication.k8s.io/v1/tokenreviews', {
      method: 'POST',
      token: files.admin,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'revoked-token' } },
    });
    assert.equal(review.status, 201, review.body);
    // Go leaves out the false `authenticated`.
    assert.deepEqual(JSON.parse(review.body).status, { user: {}, error: 'token revoked' });
  });

  it('authorizes through SubjectAccessReview where RBAC has no opinion; answers cached by their TTLs', async () => {
    const listed = await kubectl(jane, 'get', 'namespaces', '-o', 'name');
    assert.equal(listed.code, 0, listed.out);
    assert.match(listed.out, /^namespace\/default$/m);
    assert.equal(reviews.accessReviews('jane list namespaces'), 1);
    assert.equal((await kubectl(jane, 'get', 'namespaces')).code, 0);
    assert.equal(reviews.accessReviews('jane list namespaces'), 1, 'the allowance is cached (5m)');
    // Discovery is RBAC's (system:discovery): the webhook is never asked about it.
    assert.equal([...reviews.access.keys()].filter((question) => question.includes('/api')).length, 0, [...reviews.access.keys()].join(', '));

    const refused = await kubectl(jane, 'delete', 'namespace', 'default');
    assert.notEqual(refused.code, 0);
    assert.match(refused.out, /namespaces "default" is forbidden: User "jane" cannot delete resource "namespaces" in API group "" in the namespace "default": namespaces are not deleted during the freeze/);
    await kubectl(jane, 'delete', 'namespace', 'default');
    assert.equal(reviews.accessReviews('jane delete namespaces'), 1, 'the refusal is cached (2s)');
    await untilExpired(reviews.answeredAt.get('jane delete namespaces')!, UNAUTHORIZED_TTL_MS);
    await kubectl(jane, 'delete', 'namespace', 'default');
    assert.equal(reviews.accessReviews('jane delete namespaces'), 2, 'asked again after the unauthorized TTL');

    const secrets = await kubectl(jane, 'get', 'serviceaccounts', '-n', 'default');
    assert.notEqual(secrets.code, 0, 'neither RBAC nor the webhook allows it');
    assert.equal(reviews.accessReviews('jane list serviceaccounts'), 1);
  });

  it('RBAC, first in --authorization-mode, decides before the webhook is asked', async () => {
    assert.equal((await kubectl(admin, 'create', 'role', 'sa-reader', '-n', 'default', '--verb=list', '--resource=serviceaccounts')).code, 0);
    assert.equal((await kubectl(admin, 'create', 'rolebinding', 'devs-read-sa', '-n', 'default', '--role=sa-reader', '--group=webhook:devs')).code, 0);
    await eventually('the binding', async () => (await kubectl(jane, 'get', 'serviceaccounts', '-n', 'default')).code === 0, 5000);
    const before = reviews.accessReviews('jane list serviceaccounts');
    assert.equal((await kubectl(jane, 'get', 'serviceaccounts', '-n', 'default')).code, 0);
    assert.equal(reviews.accessReviews('jane list serviceaccounts'), before, 'RBAC allowed: no review');
  });

  it('a webhook that fails: a 500 where RBAC does not allow, RBAC\'s allowances unaffected', async () => {
    reviews.authorizerDown = true;
    try {
      const failed = await server.request('/api/v1/namespaces/default/configmaps', { token: 'jane-webhook-token' });
      assert.equal(failed.status, 500, failed.body);
      assert.equal(JSON.parse(failed.body).reason, 'InternalError');
      assert.match(JSON.parse(failed.body).message, /^Internal error occurred: an error on the server \("authorizer down"\)/);
      assert.equal((await server.request('/api/v1/namespaces/default/serviceaccounts', { token: 'jane-webhook-token' })).status, 200);
      // A review of the access reports the failure as its evaluation error.
      const review = await server.request('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        method: 'POST',
        token: files.admin,
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'jane', resourceAttributes: { verb: 'watch', resource: 'pods', namespace: 'default' } } },
      });
      assert.equal(review.status, 201, review.body);
      const status = JSON.parse(review.body).status;
      assert.equal(status.allowed, false);
      assert.match(status.evaluationError, /an error on the server \("authorizer down"\)/);
    } finally {
      reviews.authorizerDown = false;
    }
  });
});
