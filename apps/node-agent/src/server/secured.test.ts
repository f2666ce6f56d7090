import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { Registry } from 'prom-client';
import { generateSelfSignedCert, pingCheck } from '@plat/serving';
import { silentLogger } from '@plat/client';
import { RequestAuthenticator, type TokenReviewResult } from './authentication.js';
import { RequestAuthorizer, type AccessReviewSpec } from './authorization.js';
import { nodeHandlers } from './handlers.js';
import { startSecured, type Listener } from './servers.js';

interface Answer {
  status: number;
  body: string;
}

function get(port: number, ca: string, path: string, token?: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, ca, servername: 'localhost', headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the secured server: authentication, authorization and their caches', () => {
  let server: Listener;
  let ca: string;
  const tokenReviews: string[] = [];
  const accessReviews: AccessReviewSpec[] = [];
  // Who may read the node's logs, as the API would answer.
  const granted = new Set<string>();

  before(async () => {
    const tls = await generateSelfSignedCert({ bindAddress: '127.0.0.1', dnsNames: ['localhost'] });
    ca = tls.ca;
    const authenticator = new RequestAuthenticator({
      x509: false,
      anonymous: false,
      webhook: {
        cacheTTLMs: 300,
        review: async (token): Promise<TokenReviewResult> => {
          tokenReviews.push(token);
          return token === 'alice-token' ? { authenticated: true, user: { username: 'alice', groups: ['devs'] } } : { authenticated: false, error: 'unknown token' };
        },
      },
    });
    const authorizer = new RequestAuthorizer({
      mode: 'Webhook',
      authorizedTTLMs: 400,
      unauthorizedTTLMs: 200,
      review: async (spec) => {
        accessReviews.push(spec);
        return { allowed: granted.has(`${spec.user}/${spec.resourceAttributes.subresource}`) };
      },
    });
    const handler = nodeHandlers({ checks: [pingCheck], configz: () => ({ port: 10250 }), registry: new Registry(), logDir: '/var/log/', debuggingHandlers: true });
    server = await startSecured({ host: '127.0.0.1', port: 0, tls: { cert: tls.cert, key: tls.key }, nodeName: 'worker-1', authenticator, authorizer, handler, logger: silentLogger });
  });
  after(() => server.close());

  it('without credentials: 401, and nothing is asked of the API', async () => {
    assert.deepEqual(await get(server.port, ca, '/pods'), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(tokenReviews, []);
  });

  it('a token the API does not know: 401', async () => {
    assert.deepEqual(await get(server.port, ca, '/pods', 'stolen'), { status: 401, body: 'Unauthorized' });
  });

  it('a user without the grant: 403 on /logs/, naming nodes/log; allowed once granted and the denial has expired', async () => {
    const denied = await get(server.port, ca, '/logs/', 'alice-token');
    assert.deepEqual(denied, { status: 403, body: 'Forbidden (user=alice, verb=get, resource=nodes, subresource=log)' });
    assert.deepEqual(accessReviews.at(-1), {
      user: 'alice',
      groups: ['devs', 'system:authenticated'],
      resourceAttributes: { namespace: '', verb: 'get', group: '', version: 'v1', resource: 'nodes', subresource: 'log', name: 'worker-1' },
    });
    granted.add('alice/log');
    // The denial is cached for cacheUnauthorizedTTL (200 ms): still 403, and no new review.
    const reviews = accessReviews.length;
    assert.equal((await get(server.port, ca, '/logs/', 'alice-token')).status, 403);
    assert.equal(accessReviews.length, reviews);
    await sleep(250);
    const allowed = await get(server.port, ca, '/logs/', 'alice-token');
    assert.equal(allowed.status, 200);
    assert.match(allowed.body, /^<pre>/);
    // The grant is cached for cacheAuthorizedTTL (400 ms): revoking it takes that long to show.
    granted.delete('alice/log');
    assert.equal((await get(server.port, ca, '/logs/', 'alice-token')).status, 200);
    await sleep(450);
    assert.equal((await get(server.port, ca, '/logs/', 'alice-token')).status, 403);
  });

  it('the token review is cached for cacheTTL', async () => {
    // The previous test's review of the same token expires first.
    await sleep(350);
    tokenReviews.length = 0;
    await get(server.port, ca, '/pods', 'alice-token');
    await get(server.port, ca, '/pods', 'alice-token');
    assert.deepEqual(tokenReviews, ['alice-token']);
    await sleep(350);
    await get(server.port, ca, '/pods', 'alice-token');
    assert.deepEqual(tokenReviews, ['alice-token', 'alice-token']);
  });

  it('nodes/proxy covers the rest: the streaming endpoints answer 501 once allowed', async () => {
    assert.equal((await get(server.port, ca, '/exec/ns/pod/c', 'alice-token', 'POST')).body, 'Forbidden (user=alice, verb=create, resource=nodes, subresource=proxy)');
    granted.add('alice/proxy');
    await sleep(250);
    const exec = await get(server.port, ca, '/exec/ns/pod/c', 'alice-token', 'POST');
    assert.equal(exec.status, 501);
    assert.match(exec.body, /^exec is not implemented: this agent's container runtime is simulated/);
    assert.deepEqual(JSON.parse((await get(server.port, ca, '/pods', 'alice-token')).body), { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] });
    assert.deepEqual(JSON.parse((await get(server.port, ca, '/configz', 'alice-token')).body), { kubeletconfig: { port: 10250 } });
    assert.equal((await get(server.port, ca, '/nothing', 'alice-token')).status, 404);
  });
});

describe('anonymous requests', () => {
  it('are system:anonymous when enabled, and a bad token is still a 401', async () => {
    const tls = await generateSelfSignedCert({ bindAddress: '127.0.0.1', dnsNames: ['localhost'] });
    const seen: string[] = [];
    const server = await startSecured({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: tls.cert, key: tls.key },
      nodeName: 'n',
      authenticator: new RequestAuthenticator({ x509: false, anonymous: true, webhook: { cacheTTLMs: 0, review: async () => ({ authenticated: false }) } }),
      authorizer: new RequestAuthorizer({ mode: 'Webhook', authorizedTTLMs: 0, unauthorizedTTLMs: 0, review: async (spec) => (seen.push(`${spec.user} ${spec.groups.join(',')}`), { allowed: true }) }),
      handler: nodeHandlers({ checks: [pingCheck], configz: () => ({}), registry: new Registry(), debuggingHandlers: false }),
      logger: silentLogger,
    });
    try {
      assert.equal((await get(server.port, tls.ca, '/healthz')).body, 'ok');
      assert.deepEqual(seen, ['system:anonymous system:unauthenticated']);
      assert.equal((await get(server.port, tls.ca, '/healthz', 'bad')).status, 401);
      // Without enableDebuggingHandlers the streaming endpoints are not routed, and /logs/ is off.
      assert.equal((await get(server.port, tls.ca, '/exec/a/b/c', undefined, 'POST')).status, 404);
      assert.equal((await get(server.port, tls.ca, '/logs/')).status, 404);
    } finally {
      await server.close();
    }
  });
});
