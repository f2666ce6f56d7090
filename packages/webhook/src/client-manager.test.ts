import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { defaultWebhookBackoff } from './client.js';
import { WebhookClientManager } from './client-manager.js';
import type { ServiceResolver } from './service-resolver.js';
import { certificateFor, startLoopbackWebhook, type LoopbackWebhook } from './test-support.js';

describe('webhook client manager: the cache', () => {
  const manager = new WebhookClientManager();
  const service = { namespace: 'ns', name: 'hook', path: '/admit', port: 443 };

  test('one client per configuration; the webhook\'s name is not part of it', () => {
    const first = manager.client({ name: 'a.hooks.example.com', service });
    assert.equal(manager.client({ name: 'b.hooks.example.com', service: { ...service } }), first);
    assert.notEqual(manager.client({ service: { ...service, path: '/other' } }), first);
    assert.notEqual(manager.client({ url: 'https://hook.example.com/' }), first);
    assert.equal(manager.client({ url: 'https://hook.example.com/' }), manager.client({ url: 'https://hook.example.com/' }));
  });

  test('a changed caBundle is another client', async () => {
    const [one, two] = await Promise.all([certificateFor(['a']), certificateFor(['b'])]);
    const first = manager.client({ url: 'https://hook.example.com/', caBundle: one.ca });
    assert.equal(manager.client({ url: 'https://hook.example.com/', caBundle: one.ca }), first);
    const second = manager.client({ url: 'https://hook.example.com/', caBundle: two.ca });
    assert.notEqual(second, first);
    assert.equal(second.connection.ca, two.ca);
  });

  test('another retry policy is another client', () => {
    const kubeconfig = { url: 'https://authz.example/authorize', verifyServer: true };
    const retrying = manager.client({ kubeconfig }, { backoff: defaultWebhookBackoff });
    assert.equal(manager.client({ kubeconfig: { ...kubeconfig } }, { backoff: defaultWebhookBackoff }), retrying);
    assert.notEqual(manager.client({ kubeconfig }), retrying);
  });

  test('a configuration that makes no client throws, and nothing is kept', () => {
    const before = manager.size;
    assert.throws(() => manager.client({ name: 'h', caBundle: 'x' }), /failed calling webhook "h": webhook configuration must have either service or URL/);
    assert.throws(() => manager.client({ url: 'https://hook.example.com/', caBundle: 'x' }), /unable to load root certificates/);
    assert.equal(manager.size, before);
  });

  test('the 200 most recently used are kept (upstream\'s LRU)', () => {
    const lru = new WebhookClientManager();
    const config = (i: number) => ({ url: `https://hook-${i}.example.com/` });
    const first = lru.client(config(0));
    const second = lru.client(config(1));
    for (let i = 2; i < 200; i++) lru.client(config(i));
    assert.equal(lru.size, 200);
    assert.equal(lru.client(config(0)), first, 'used again: now the most recent');
    lru.client(config(200));
    assert.equal(lru.size, 200, 'the bound holds');
    assert.equal(lru.client(config(0)), first, 'kept');
    assert.notEqual(lru.client(config(1)), second, 'the least recently used went, and is made again');
  });
});

describe('webhook client manager: TLS to a Service, verified against its caBundle', () => {
  let webhook: LoopbackWebhook;
  let stranger: LoopbackWebhook;
  const resolved: string[] = [];
  /** Every Service is on loopback: the webhook, or the stranger (a certificate for another name). */
  const loopback: ServiceResolver = {
    resolve(namespace, name, port) {
      resolved.push(`${namespace}/${name}:${port}`);
      return new URL(`https://127.0.0.1:${name === 'stranger' ? stranger.port : webhook.port}`);
    },
  };
  const manager = new WebhookClientManager({ serviceResolver: loopback });

  before(async () => {
    [webhook, stranger] = await Promise.all([startLoopbackWebhook({ dnsNames: ['hook.ns.svc'] }), startLoopbackWebhook({ dnsNames: ['other.ns.svc'] })]);
    webhook.answer = () => ({ body: { kind: 'AdmissionReview', response: { allowed: true } } });
  });
  after(() => Promise.all([webhook.close(), stranger.close()]));

  test('the certificate names name.namespace.svc: the call goes through, by SNI and Host as upstream', async () => {
    webhook.received = [];
    resolved.length = 0;
    const client = manager.client({ service: { namespace: 'ns', name: 'hook', path: '/admit', port: 8443 }, caBundle: webhook.ca });
    assert.deepEqual(await client.post({ kind: 'AdmissionReview' }, { timeoutMs: 10_000 }), { kind: 'AdmissionReview', response: { allowed: true } });
    const [sent] = webhook.received;
    assert.equal(sent?.servername, 'hook.ns.svc');
    assert.equal(sent?.headers.host, 'hook.ns.svc:8443');
    assert.equal(sent?.path, '/admit?timeout=10s');
    assert.equal(sent?.headers['user-agent'], 'plat-apiserver-admission');
    assert.deepEqual(resolved, ['ns/hook:8443']);
    await client.post({});
    assert.deepEqual(resolved, ['ns/hook:8443', 'ns/hook:8443'], 'resolved at each call: the endpoints may have moved');
  });

  test('no caBundle: the system\'s authorities, which do not know this one', async () => {
    const client = manager.client({ service: { namespace: 'ns', name: 'hook' } });
    await assert.rejects(client.post({}), /^Error: Post "https:\/\/hook\.ns\.svc:443\/": (self-signed certificate|unable to verify|unable to get local issuer)/);
  });

  test('another CA\'s caBundle: refused', async () => {
    const client = manager.client({ service: { namespace: 'ns', name: 'hook' }, caBundle: stranger.ca });
    await assert.rejects(client.post({}), /^Error: Post "https:\/\/hook\.ns\.svc:443\/": (self-signed certificate|unable to verify|unable to get local issuer)/);
  });

  test('a certificate for another name: refused, whoever signed it', async () => {
    const client = manager.client({ service: { namespace: 'ns', name: 'stranger' }, caBundle: stranger.ca });
    await assert.rejects(client.post({}), /^Error: Post "https:\/\/stranger\.ns\.svc:443\/": Hostname\/IP does not match certificate's altnames: Host: stranger\.ns\.svc/);
  });

  test('a Service that cannot be resolved: the call fails with the resolver\'s reason', async () => {
    const failing = new WebhookClientManager({
      serviceResolver: {
        resolve: () => {
          throw new Error('no endpoints available for service "hook"');
        },
      },
    });
    await assert.rejects(failing.client({ service: { namespace: 'ns', name: 'hook' } }).post({}), { message: 'Post "https://hook.ns.svc:443/": no endpoints available for service "hook"' });
  });

  test('a URL with its caBundle', async () => {
    webhook.received = [];
    const client = manager.client({ url: `https://127.0.0.1:${webhook.port}/admit`, caBundle: webhook.ca });
    await client.post({});
    assert.equal(webhook.received[0]?.path, '/admit');
    assert.equal(webhook.received[0]?.servername, false, 'no SNI for an IP address');
  });
});

test('webhook client manager: a kubeconfig\'s client certificate is presented', async () => {
  const webhook = await startLoopbackWebhook({ dnsNames: ['localhost'], requestCert: true });
  try {
    const client = await certificateFor(['apiserver-webhook-client']);
    const manager = new WebhookClientManager();
    const kubeconfig = { url: `https://127.0.0.1:${webhook.port}/authorize`, ca: webhook.ca, verifyServer: true, cert: client.cert, key: client.key, authorization: 'Bearer t' };
    await manager.client({ kubeconfig }).post({});
    assert.equal(webhook.received[0]?.clientFingerprint, new X509Certificate(client.cert).fingerprint256);
    assert.equal(webhook.received[0]?.headers.authorization, 'Bearer t');
  } finally {
    await webhook.close();
  }
});
