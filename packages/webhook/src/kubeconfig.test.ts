import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { WebhookConnection } from './connection.js';
import { loadWebhookKubeconfig, parseWebhookKubeconfig } from './kubeconfig.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plat-webhook-kubeconfig-'));
  await writeFile(join(dir, 'ca.pem'), 'CA FROM FILE');
  await writeFile(join(dir, 'token'), 'file-token\n');
  await writeFile(join(dir, 'client.crt'), 'CERT');
  await writeFile(join(dir, 'client.key'), 'KEY');
});
after(() => rm(dir, { recursive: true, force: true }));

/** A kubeconfig of one cluster, user and context, with these fields. */
const kubeconfig = (cluster: Record<string, unknown>, user?: Record<string, unknown>): string =>
  stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'authz', cluster: { server: 'https://authz.example:8443/authorize', ...cluster } }],
    ...(user && { users: [{ name: 'apiserver', user }] }),
    contexts: [{ name: 'webhook', context: { cluster: 'authz', ...(user && { user: 'apiserver' }) } }],
    'current-context': 'webhook',
  });

const b64 = (text: string): string => Buffer.from(text).toString('base64');

const accepted: { name: string; cluster: Record<string, unknown>; user?: Record<string, unknown>; want: Partial<WebhookConnection> }[] = [
  { name: 'a server alone, its path kept', cluster: {}, want: { url: 'https://authz.example:8443/authorize', verifyServer: true } },
  { name: 'the CA inline', cluster: { 'certificate-authority-data': b64('CA INLINE') }, want: { ca: 'CA INLINE' } },
  { name: 'the CA from a file relative to the kubeconfig', cluster: { 'certificate-authority': 'ca.pem' }, want: { ca: 'CA FROM FILE' } },
  { name: 'insecure-skip-tls-verify', cluster: { 'insecure-skip-tls-verify': true }, want: { verifyServer: false } },
  { name: 'tls-server-name', cluster: { 'tls-server-name': 'authz.internal' }, want: { serverName: 'authz.internal' } },
  { name: 'a bearer token', cluster: {}, user: { token: 'abc' }, want: { authorization: 'Bearer abc' } },
  { name: 'a token file, trimmed', cluster: {}, user: { tokenFile: 'token' }, want: { authorization: 'Bearer file-token' } },
  { name: 'basic credentials', cluster: {}, user: { username: 'api', password: 'secret' }, want: { authorization: `Basic ${b64('api:secret')}` } },
  { name: 'a client certificate from files', cluster: {}, user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' }, want: { cert: 'CERT', key: 'KEY' } },
  { name: 'a client certificate inline', cluster: {}, user: { 'client-certificate-data': b64('C'), 'client-key-data': b64('K') }, want: { cert: 'C', key: 'K' } },
];

for (const { name, cluster, user, want } of accepted) {
  test(`webhook kubeconfig: ${name}`, async () => {
    const connection = await parseWebhookKubeconfig(kubeconfig(cluster, user), dir);
    for (const [field, value] of Object.entries(want)) assert.deepEqual(connection[field as keyof WebhookConnection], value, field);
  });
}

const refused: { name: string; text: string | (() => string); want: RegExp }[] = [
  { name: 'not YAML', text: 'clusters: [', want: /not a kubeconfig/ },
  { name: 'no current context', text: stringify({ clusters: [] }), want: /no current-context/ },
  { name: 'the current context missing', text: stringify({ 'current-context': 'x', contexts: [] }), want: /context "x" not found/ },
  { name: 'no server', text: () => kubeconfig({ server: '' }), want: /no server found for cluster "authz"/ },
  { name: 'a server that is no URL', text: () => kubeconfig({ server: 'authz.example' }), want: /is not an http:\/\/ or https:\/\/ URL/ },
  {
    name: 'the user missing',
    text: stringify({ clusters: [{ name: 'a', cluster: { server: 'https://a' } }], contexts: [{ name: 'c', context: { cluster: 'a', user: 'nobody' } }], 'current-context': 'c' }),
    want: /user "nobody" not found/,
  },
  { name: 'a CA with insecure-skip-tls-verify', text: () => kubeconfig({ 'insecure-skip-tls-verify': true, 'certificate-authority-data': b64('CA') }), want: /root certificates file with the insecure flag is not allowed/ },
  { name: 'an exec plugin', text: () => kubeconfig({}, { exec: { command: 'get-token' } }), want: /exec credential plugins are not supported/ },
  { name: 'an auth provider', text: () => kubeconfig({}, { 'auth-provider': { name: 'gcp' } }), want: /auth providers are not supported/ },
  { name: 'impersonation', text: () => kubeconfig({}, { as: 'admin' }), want: /impersonation \(as\) are not supported/ },
  { name: 'a proxy', text: () => kubeconfig({ 'proxy-url': 'http://proxy:3128' }), want: /proxies \(proxy-url\) are not supported/ },
  { name: 'a certificate without its key', text: () => kubeconfig({}, { 'client-certificate-data': b64('C') }), want: /client-certificate and client-key must be given together/ },
  { name: 'a token and basic credentials', text: () => kubeconfig({}, { token: 't', username: 'u' }), want: /not both/ },
  { name: 'a file that is missing', text: () => kubeconfig({ 'certificate-authority': 'missing.pem' }), want: /cannot read .*missing\.pem/ },
];

for (const { name, text, want } of refused) {
  test(`webhook kubeconfig refused: ${name}`, async () => {
    await assert.rejects(parseWebhookKubeconfig(typeof text === 'string' ? text : text(), dir), want);
  });
}

test('webhook kubeconfig: errors name the file', async () => {
  const path = join(dir, 'broken.yaml');
  await writeFile(path, stringify({ 'current-context': 'x' }));
  await assert.rejects(loadWebhookKubeconfig(path), (error: Error) => error.message.startsWith(`${path}: `));
  await assert.rejects(loadWebhookKubeconfig(join(dir, 'absent.yaml')), /cannot read .*absent\.yaml/);
});
