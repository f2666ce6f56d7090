// Encryption at rest end to end: a replica on etcd with --encryption-provider-config, the values
// read straight from etcd, key rotation the upstream way (a new key first, restart, every Secret
// replaced, the old key removed), and a wrong key failing with an error that names the provider.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEtcd, type EtcdProcess } from '@plat/storage/testing';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig } from './support/kubeconfig.js';
import { etcdReader, type EtcdReader } from './support/etcd-raw.js';

const run = promisify(execFile);
const key1 = randomBytes(32).toString('base64');
const key2 = randomBytes(32).toString('base64');

/** An EncryptionConfiguration: secrets, configmaps and widgets.example.com through aesgcm with `keys`, first writing. */
const encryptionConfig = (keys: [string, string][]): string =>
  [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: EncryptionConfiguration',
    'resources:',
    '  - resources: [secrets, configmaps, widgets.example.com]',
    '    providers:',
    '      - aesgcm:',
    '          keys:',
    ...keys.flatMap(([name, secret]) => [`            - name: ${name}`, `              secret: ${secret}`]),
    '',
  ].join('\n');

const widgetsCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } } }],
  },
};

describe('encryption at rest on etcd (--encryption-provider-config)', () => {
  let etcd: EtcdProcess;
  let reader: EtcdReader;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let dir: string;
  let server: ApiserverProcess | undefined;

  /** The bytes etcd holds at `key`. */
  async function rawValue(key: string): Promise<Buffer> {
    const value = await reader.value(key);
    assert.ok(value, `etcd has ${key}`);
    return value;
  }

  /** (Re)starts the one replica with `config` as its encryption configuration. */
  async function restartWith(config: string): Promise<ApiserverProcess> {
    await server?.stop();
    const file = join(dir, `encryption-${Date.now()}.yaml`);
    await writeFile(file, config);
    server = await startApiserver([
      `--etcd-servers=${etcd.endpoint}`,
      `--token-auth-file=${tokens.file}`,
      '--api-domain=k8s.io',
      '--etcd-compaction-interval=0',
      `--encryption-provider-config=${file}`,
    ]);
    return server;
  }

  const api = (path: string, options: { method?: string; body?: unknown } = {}) => server!.request(path, { token: tokens.token, ...options });

  before(async () => {
    etcd = await startEtcd();
    reader = etcdReader(etcd.endpoint);
    tokens = await adminTokenFile();
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-encryption-'));
    await restartWith(encryptionConfig([['key1', key1]]));
  });
  after(async () => {
    await server?.stop();
    reader.close();
    await etcd.stop();
    await tokens.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('a Secret read straight from etcd has the provider prefix and no clear value; the API reads it in clear', async () => {
    const created = await api('/api/v1/namespaces/default/secrets', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { password: 'hunter2' } },
    });
    assert.equal(created.status, 201, created.body);
    const stored = await rawValue('/registry/core/secrets/default/s1');
    assert.equal(stored.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key1:');
    for (const clear of ['hunter2', Buffer.from('hunter2').toString('base64'), '"s1"']) assert.equal(stored.indexOf(clear), -1, `no ${clear} in etcd`);
    const read = JSON.parse((await api('/api/v1/namespaces/default/secrets/s1')).body) as { data: Record<string, string>; type: string };
    assert.deepEqual(read.data, { password: Buffer.from('hunter2').toString('base64') });
    assert.equal(read.type, 'Opaque');
    const list = JSON.parse((await api('/api/v1/secrets')).body) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(list.items.map((item) => item.metadata.name), ['s1']);
  });

  it('ConfigMaps and custom resources are encrypted when listed; other kinds are not', async () => {
    assert.equal((await api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'c1' }, data: { color: 'blue' } } })).status, 201);
    assert.match((await rawValue('/registry/core/configmaps/default/c1')).subarray(0, 23).toString(), /^k8s:enc:aesgcm:v1:key1:/);
    assert.equal((await api('/api/v1/namespaces/default/serviceaccounts', { method: 'POST', body: { metadata: { name: 'sa1' } } })).status, 201);
    assert.match((await rawValue('/registry/core/serviceaccounts/default/sa1')).toString(), /^\{"metadata":\{"name":"sa1"/);

    assert.equal((await api('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: widgetsCrd })).status, 201);
    await eventually('the widgets are served', async () => {
      const created = await api('/apis/example.com/v1/namespaces/default/widgets', {
        method: 'POST',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { color: 'turquoise' } },
      });
      return created.status === 201;
    });
    const stored = await rawValue('/registry/example.com/widgets/default/w1');
    assert.equal(stored.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key1:');
    assert.equal(stored.indexOf('turquoise'), -1);
    const widget = JSON.parse((await api('/apis/example.com/v1/namespaces/default/widgets/w1')).body) as { spec: { color: string } };
    assert.equal(widget.spec.color, 'turquoise');
  });

  it('counts the transformations in apiserver_storage_transformation_operations_total', async () => {
    const metrics = (await api('/metrics')).body;
    assert.match(metrics, /apiserver_storage_transformation_operations_total\{transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"\} [1-9]/);
    assert.match(metrics, /apiserver_storage_transformation_duration_seconds_count\{transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:"\} [1-9]/);
  });

  it('rotation: a new key first, restart, every Secret replaced, then the old key removed', async () => {
    await restartWith(encryptionConfig([['key2', key2], ['key1', key1]]));
    // Still readable with the old key, and still stored with it until written again.
    assert.equal((await api('/api/v1/namespaces/default/secrets/s1')).status, 200);
    assert.equal((await rawValue('/registry/core/secrets/default/s1')).subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key1:');
    const kubeconfig = await writeKubeconfig(server!, tokens.token);
    try {
      const env = { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') };
      const { stdout } = await run('kubectl', [`--kubeconfig=${kubeconfig.path}`, 'get', 'secrets', '--all-namespaces', '-o', 'json'], { env });
      // Upstream's recipe: kubectl get secrets --all-namespaces -o json | kubectl replace -f -
      const replaced = await new Promise<string>((resolve, reject) => {
        const child = spawn('kubectl', [`--kubeconfig=${kubeconfig.path}`, 'replace', '-f', '-'], { env });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl replace exited ${code}: ${out}`))));
        child.stdin.end(stdout);
      });
      assert.match(replaced, /secret\/s1 replaced/);
    } finally {
      await kubeconfig.cleanup();
    }
    assert.equal((await rawValue('/registry/core/secrets/default/s1')).subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key2:');

    await restartWith(encryptionConfig([['key2', key2]]));
    const read = JSON.parse((await api('/api/v1/namespaces/default/secrets/s1')).body) as { data: Record<string, string> };
    assert.equal(Buffer.from(read.data.password!, 'base64').toString(), 'hunter2');
  });

  it('a wrong key fails with a clear error naming the provider, never with other data', async () => {
    await restartWith(encryptionConfig([['key2', randomBytes(32).toString('base64')]]));
    for (const path of ['/api/v1/namespaces/default/secrets/s1', '/api/v1/namespaces/default/secrets']) {
      const response = await api(path);
      assert.equal(response.status, 500, response.body);
      const status = JSON.parse(response.body) as { message: string; reason: string };
      assert.equal(status.reason, 'InternalError');
      assert.match(status.message, /unable to transform key "\/registry\/core\/secrets\/default\/s1": provider aesgcm: key "key2": cipher: message authentication failed/);
      assert.equal(response.body.indexOf('hunter2'), -1);
    }
  });

  // Hostile input round 2: this refusal printed the aesgcm key on stderr and in the log.
  it('a configuration refused at start: the replica exits saying why, and nothing it printed holds the key', async () => {
    const file = join(dir, 'two-providers.yaml');
    await writeFile(file, encryptionConfig([['key1', key1]]).replace('      - aesgcm:', '      - identity: {}\n        aesgcm:'));
    await assert.rejects(
      startApiserver([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokens.file}`, `--encryption-provider-config=${file}`]),
      (error: Error) => {
        assert.match(error.message, /more than one provider specified in a single element/);
        assert.equal(error.message.indexOf(key1), -1, error.message);
        assert.equal(error.message.indexOf(Buffer.from(key1, 'base64').toString('hex')), -1);
        return true;
      },
    );
  });
});
