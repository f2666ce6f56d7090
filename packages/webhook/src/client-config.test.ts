import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionFor, type WebhookClientConfig } from './client-config.js';
import type { WebhookConnection } from './connection.js';
import type { ServiceResolver } from './service-resolver.js';
import { certificateFor } from './test-support.js';

/** Says which Service it was asked for, and sends it to loopback. */
const asked: string[] = [];
const loopback: ServiceResolver = {
  resolve(namespace, name, port) {
    asked.push(`${namespace}/${name}:${port}`);
    return new URL('https://127.0.0.1:9443');
  },
};

let ca = '';
before(async () => {
  ({ ca } = await certificateFor(['hook.ns.svc']));
});

type Want = Partial<Omit<WebhookConnection, 'dial'>> & { dialed?: { host: string; port: number }; asked?: string };

// Thunks: the CA is made before the tests run, after the table is.
const made: { name: string; config: () => WebhookClientConfig; want: () => Want }[] = [
  {
    name: 'a service: its DNS name in the URL and as the TLS name, the connection where the resolver says',
    config: () => ({ service: { namespace: 'ns', name: 'hook', path: '/admit', port: 8443 } }),
    want: () => ({ url: 'https://hook.ns.svc:8443/admit', serverName: 'hook.ns.svc', verifyServer: true, userAgent: 'plat-apiserver-admission', dialed: { host: '127.0.0.1', port: 9443 }, asked: 'ns/hook:8443' }),
  },
  {
    name: 'a service without a port or path: 443 and /, as upstream',
    config: () => ({ service: { namespace: 'ns', name: 'hook' } }),
    want: () => ({ url: 'https://hook.ns.svc:443/', serverName: 'hook.ns.svc', asked: 'ns/hook:443' }),
  },
  { name: 'a service path cleaned as Go joins it', config: () => ({ service: { namespace: 'ns', name: 'hook', path: '/a//b/' } }), want: () => ({ url: 'https://hook.ns.svc:443/a/b' }) },
  { name: 'both a service and a URL: the service', config: () => ({ url: 'https://elsewhere.example/', service: { namespace: 'ns', name: 'hook' } }), want: () => ({ url: 'https://hook.ns.svc:443/' }) },
  { name: 'a URL: posted to as written', config: () => ({ url: 'https://hook.example.com:8443/admit' }), want: () => ({ url: 'https://hook.example.com:8443/admit', verifyServer: true, userAgent: 'plat-apiserver-admission' }) },
  { name: 'a URL without a path', config: () => ({ url: 'https://hook.example.com' }), want: () => ({ url: 'https://hook.example.com/' }) },
  { name: 'the caBundle: the authorities trusted', config: () => ({ url: 'https://hook.example.com/', caBundle: ca }), want: () => ({ ca }) },
  {
    name: 'a kubeconfig: its connection as read',
    config: () => ({ kubeconfig: { url: 'https://authz.example/authorize', verifyServer: false, authorization: 'Bearer t', ca } }),
    want: () => ({ url: 'https://authz.example/authorize', verifyServer: false, authorization: 'Bearer t', ca, userAgent: undefined, serverName: undefined }),
  },
];

for (const { name, config, want } of made) {
  test(`client config: ${name}`, () => {
    asked.length = 0;
    const { dial, ...connection } = connectionFor(config(), loopback);
    const { dialed, asked: askedFor, ...fields } = want();
    for (const [field, value] of Object.entries(fields)) assert.deepEqual(connection[field as keyof typeof connection], value, field);
    if (dialed) assert.deepEqual(dial?.(), dialed);
    else if (!('service' in config())) assert.equal(dial, undefined, 'a URL is dialled as it is');
    if (askedFor) {
      dial?.();
      assert.equal(asked[0], askedFor, 'asked of the resolver when dialling, not before');
    }
  });
}

const refused: { name: string; config: WebhookClientConfig; want: string }[] = [
  { name: 'neither a URL nor a service', config: { name: 'pods.hooks.example.com' }, want: 'failed calling webhook "pods.hooks.example.com": webhook configuration must have either service or URL' },
  { name: 'a URL Go cannot parse', config: { name: 'h', url: ':foo' }, want: 'failed calling webhook "h": Unparsable URL: parse ":foo": missing protocol scheme' },
  { name: 'a URL without a host', config: { url: 'https:///admit' }, want: 'Post "https:///admit": http: no Host in request URL' },
  { name: 'a caBundle with no certificate', config: { url: 'https://hook.example.com/', caBundle: 'not PEM' }, want: 'unable to load root certificates: unable to parse bytes as PEM block' },
  {
    name: 'a kubeconfig whose CA has no certificate',
    config: { kubeconfig: { url: 'https://authz.example/', verifyServer: true, ca: 'CA' } },
    want: 'unable to load root certificates: unable to parse bytes as PEM block',
  },
];

for (const { name, config, want } of refused) {
  test(`client config refused: ${name}`, () => {
    assert.throws(() => connectionFor(config, loopback), { message: want });
  });
}

test('client config: a resolver that cannot resolve fails the dial, not the client', () => {
  const connection = connectionFor({ service: { namespace: 'ns', name: 'gone' } }, {
    resolve: () => {
      throw new Error('no endpoints available for service "gone"');
    },
  });
  assert.throws(() => connection.dial?.(), /no endpoints available for service "gone"/);
});
