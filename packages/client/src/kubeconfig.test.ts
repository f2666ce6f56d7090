import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeconfigError, loadKubeconfig, parseKubeconfig } from './kubeconfig.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plat-kubeconfig-test-'));
  await writeFile(join(dir, 'ca.crt'), 'CA FROM FILE');
  await writeFile(join(dir, 'token'), 'file-token\n');
});
after(() => rm(dir, { recursive: true, force: true }));

const b64 = (text: string): string => Buffer.from(text).toString('base64');

const kubeconfig = (cluster: string, user: string, extra = ''): string => `apiVersion: v1
kind: Config
clusters:
- name: plat
  cluster:
${cluster}
users:
- name: admin
  user:
${user}
contexts:
- name: plat
  context: {cluster: plat, user: admin}
- name: other
  context: {cluster: plat}
current-context: plat
${extra}`;

const cases: { name: string; text: string; context?: string; want: Record<string, unknown> }[] = [
  {
    name: 'inline CA data and token',
    text: kubeconfig(`    server: https://127.0.0.1:6443\n    certificate-authority-data: ${b64('INLINE CA')}`, '    token: abc'),
    want: { server: 'https://127.0.0.1:6443', ca: 'INLINE CA', token: 'abc' },
  },
  {
    name: 'CA and token from files relative to the kubeconfig',
    text: kubeconfig('    server: https://h:1\n    certificate-authority: ca.crt', '    tokenFile: token'),
    want: { server: 'https://h:1', ca: 'CA FROM FILE', token: 'file-token' },
  },
  {
    name: 'client certificate data and insecure TLS',
    text: kubeconfig(
      '    server: https://h:1\n    insecure-skip-tls-verify: true\n    tls-server-name: api',
      `    client-certificate-data: ${b64('CERT')}\n    client-key-data: ${b64('KEY')}`,
    ),
    want: { server: 'https://h:1', insecureSkipTLSVerify: true, tlsServerName: 'api', cert: 'CERT', key: 'KEY' },
  },
  {
    name: 'another context, without a user',
    text: kubeconfig('    server: https://h:1', '    token: abc'),
    context: 'other',
    want: { server: 'https://h:1' },
  },
];
for (const c of cases) {
  test(`kubeconfig: ${c.name}`, async () => {
    assert.deepEqual(await parseKubeconfig(c.text, { dir, ...(c.context && { context: c.context }) }), c.want);
  });
}

const errorCases: { name: string; text: string; context?: string; message: RegExp }[] = [
  { name: 'no current context', text: 'clusters: []\n', message: /no current-context/ },
  { name: 'an unknown context', text: kubeconfig('    server: https://h:1', '    token: a'), context: 'nope', message: /context "nope" not found/ },
  { name: 'a cluster without a server', text: kubeconfig('    certificate-authority-data: eA==', '    token: a'), message: /has no server/ },
  { name: 'a missing CA file', text: kubeconfig('    server: https://h:1\n    certificate-authority: missing.crt', '    token: a'), message: /cannot read .*missing.crt/ },
  { name: 'not YAML', text: 'clusters: [', message: /not valid YAML/ },
];
for (const c of errorCases) {
  test(`kubeconfig error: ${c.name}`, async () => {
    await assert.rejects(parseKubeconfig(c.text, { dir, ...(c.context && { context: c.context }) }), (error: Error) => {
      assert.ok(error instanceof KubeconfigError);
      assert.match(error.message, c.message);
      return true;
    });
  });
}

test('kubeconfig: loaded from a file; a missing file is a KubeconfigError', async () => {
  const path = join(dir, 'config');
  await writeFile(path, kubeconfig('    server: https://h:1\n    certificate-authority: ca.crt', '    token: t'));
  assert.deepEqual(await loadKubeconfig(path), { server: 'https://h:1', ca: 'CA FROM FILE', token: 't' });
  await assert.rejects(loadKubeconfig(join(dir, 'absent')), KubeconfigError);
});
