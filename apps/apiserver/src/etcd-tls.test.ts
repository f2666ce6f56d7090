import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSelfSignedCert } from '@plat/serving';
import { loadEtcdTls } from './etcd-tls.js';

test('etcd TLS files: read and checked, each mistake named by its flag and file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-etcd-tls-'));
  const one = await ensureSelfSignedCert({ certDir: join(dir, 'one'), bindAddress: '127.0.0.1', hostname: 'one' });
  const two = await ensureSelfSignedCert({ certDir: join(dir, 'two'), bindAddress: '127.0.0.1', hostname: 'two' });
  const files: Record<string, string> = {
    'ca.crt': one.ca,
    'client.crt': one.cert,
    'client.key': one.key,
    'other.key': two.key,
    'leaf-only.crt': one.cert.slice(0, one.cert.indexOf('-----END CERTIFICATE-----') + 25),
    'empty.crt': '',
    'garbage.key': 'not a key',
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  const path = (name: string): string => join(dir, name);

  const material = await loadEtcdTls({ caFile: path('ca.crt'), certFile: path('client.crt'), keyFile: path('client.key') });
  assert.equal(material.ca, one.ca);
  assert.equal(material.key, one.key);
  assert.deepEqual(await loadEtcdTls({ caFile: path('ca.crt') }), { ca: one.ca });

  const cases: Array<[string, Parameters<typeof loadEtcdTls>[0], string]> = [
    ['a missing CA file', { caFile: path('missing.crt') }, `--etcd-cafile: cannot read ${path('missing.crt')}: ENOENT`],
    ['a CA file without certificates', { caFile: path('empty.crt') }, `--etcd-cafile: no PEM certificate in ${path('empty.crt')}`],
    ['a CA file holding a leaf certificate', { caFile: path('leaf-only.crt') }, `--etcd-cafile: ${path('leaf-only.crt')}: `],
    ['a missing key file', { certFile: path('client.crt'), keyFile: path('missing.key') }, `--etcd-keyfile: cannot read ${path('missing.key')}: ENOENT`],
    ['a missing certificate file', { certFile: path('missing.crt'), keyFile: path('client.key') }, `--etcd-certfile: cannot read ${path('missing.crt')}: ENOENT`],
    ['a key file that is no key', { certFile: path('client.crt'), keyFile: path('garbage.key') }, `--etcd-keyfile: ${path('garbage.key')}: not a PEM private key`],
    [
      'a key of another certificate',
      { certFile: path('client.crt'), keyFile: path('other.key') },
      `--etcd-keyfile: ${path('other.key')} does not match the certificate in --etcd-certfile ${path('client.crt')}`,
    ],
  ];
  for (const [name, given, message] of cases) {
    await assert.rejects(loadEtcdTls(given), (error: Error) => {
      assert.ok(error.message.startsWith(message), `${name}: ${error.message}`);
      return true;
    });
  }
  await assert.rejects(loadEtcdTls({ certFile: path('client.crt'), keyFile: path('client.key') }, Date.now() + 400 * 24 * 3600_000), /--etcd-certfile: .* expired on /);
});
