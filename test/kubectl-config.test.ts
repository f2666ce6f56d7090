// kubectl's generators for ConfigMaps and Secrets, unchanged, against a replica serving
// Kubernetes' names: create configmap --from-file/--from-literal, create secret generic, tls and
// docker-registry, and what get prints of them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeEtcdCertificates } from '@plat/storage/testing';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

interface Secret {
  type: string;
  data: Record<string, string>;
}

describe('kubectl create configmap and secret against --api-domain=k8s.io', () => {
  let server: ApiserverProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let dir: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await kubectlIn(kubeconfig.path, dir, args);
    return stdout;
  };
  const kubectlFails = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (error) {
      return (error as { stderr: string }).stderr;
    }
    assert.fail(`kubectl ${args.join(' ')} succeeded`);
  };
  const decoded = (secret: Secret, key: string): string => Buffer.from(secret.data[key]!, 'base64').toString();

  before(async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io']);
    kubeconfig = await writeKubeconfig(server, tokens.token);
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-kubectl-config-'));
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await tokens.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('create configmap --from-file (a file, a folder, a renamed key) and --from-literal', async () => {
    const files = join(dir, 'conf');
    await mkdir(files);
    await writeFile(join(files, 'app.properties'), 'color=blue\nsize=3\n');
    await writeFile(join(files, 'logo.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]));
    await writeFile(join(dir, 'nginx.conf'), 'server { listen 80; }\n');
    assert.match(await kubectl('create', 'configmap', 'app', `--from-file=${files}`, `--from-file=web.conf=${join(dir, 'nginx.conf')}`, '--from-literal=mode=prod'), /configmap\/app created/);
    const configMap = JSON.parse(await kubectl('get', 'configmap', 'app', '-o', 'json')) as { data: Record<string, string>; binaryData: Record<string, string> };
    assert.deepEqual(configMap.data, { 'app.properties': 'color=blue\nsize=3\n', 'web.conf': 'server { listen 80; }\n', mode: 'prod' });
    // Bytes that are not UTF-8 go to binaryData, as kubectl puts them.
    assert.deepEqual(Buffer.from(configMap.binaryData['logo.bin']!, 'base64'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]));
    assert.match(await kubectl('get', 'configmaps'), /^NAME\s+DATA\s+AGE\napp\s+4\s+\d+s\n/m);
    assert.match(await kubectlFails('create', 'configmap', 'bad', '--from-literal=a/b=c'), /"a\/b"|a\/b/);
  });

  it('create secret generic --from-literal and --from-file; get shows the type and the key count', async () => {
    await writeFile(join(dir, 'ssh-key'), 'PRIVATE KEY');
    assert.match(await kubectl('create', 'secret', 'generic', 'db', '--from-literal=username=admin', '--from-literal=password=hunter2', `--from-file=${join(dir, 'ssh-key')}`), /secret\/db created/);
    const secret = JSON.parse(await kubectl('get', 'secret', 'db', '-o', 'json')) as Secret;
    assert.equal(secret.type, 'Opaque');
    assert.deepEqual([decoded(secret, 'username'), decoded(secret, 'password'), decoded(secret, 'ssh-key')], ['admin', 'hunter2', 'PRIVATE KEY']);
    assert.match(await kubectl('get', 'secrets'), /^NAME\s+TYPE\s+DATA\s+AGE\ndb\s+Opaque\s+3\s+\d+s\n/m);
    assert.equal(await kubectl('get', 'secret', 'db', '-o', 'jsonpath={.data.password}'), Buffer.from('hunter2').toString('base64'));
  });

  it('create secret tls from a certificate and key; the type is immutable', async () => {
    // Any certificate and its key will do: deploy/etcd-certs.sh's client pair.
    const certs = await makeEtcdCertificates(join(dir, 'tls'));
    assert.match(await kubectl('create', 'secret', 'tls', 'web-tls', `--cert=${join(certs.dir, 'client.crt')}`, `--key=${join(certs.dir, 'client.key')}`), /secret\/web-tls created/);
    const secret = JSON.parse(await kubectl('get', 'secret', 'web-tls', '-o', 'json')) as Secret;
    assert.equal(secret.type, 'kubernetes.io/tls');
    assert.match(decoded(secret, 'tls.crt'), /BEGIN CERTIFICATE/);
    assert.match(decoded(secret, 'tls.key'), /PRIVATE KEY/);
    // A key that is not the certificate's (kubectl's generator refuses it; a manifest does not):
    // accepted, with upstream's warning.
    const [cert, otherKey] = await Promise.all([readFile(join(certs.dir, 'client.crt')), readFile(join(certs.dir, 'server.key'))]);
    const manifest = join(dir, 'odd-tls.json');
    await writeFile(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'odd-tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': cert.toString('base64'), 'tls.key': otherKey.toString('base64') } }));
    const mismatched = await kubectlIn(kubeconfig.path, dir, ['create', '-f', manifest]);
    assert.match(mismatched.stdout, /secret\/odd-tls created/);
    assert.match(mismatched.stderr, /Warning: tls: private key does not match public key/);
    const patched = await kubectlFails('patch', 'secret', 'web-tls', '--type=merge', '-p', '{"type":"Opaque"}');
    assert.match(patched, /type: Invalid value: "Opaque": field is immutable/);
  });

  it('create secret docker-registry: a dockerconfigjson the server checks', async () => {
    assert.match(
      await kubectl('create', 'secret', 'docker-registry', 'regcred', '--docker-server=registry.example.com', '--docker-username=ci', '--docker-password=s3cret', '--docker-email=ci@example.com'),
      /secret\/regcred created/,
    );
    const secret = JSON.parse(await kubectl('get', 'secret', 'regcred', '-o', 'json')) as Secret;
    assert.equal(secret.type, 'kubernetes.io/dockerconfigjson');
    const config = JSON.parse(decoded(secret, '.dockerconfigjson')) as { auths: Record<string, { username: string; password: string; auth: string }> };
    assert.equal(config.auths['registry.example.com']!.username, 'ci');
    // The field selector upstream offers on secrets.
    assert.match(await kubectl('get', 'secrets', '--field-selector=type=kubernetes.io/dockerconfigjson', '-o', 'name'), /^secret\/regcred\n$/);
    const broken = await kubectlFails('create', 'secret', 'generic', 'broken', '--type=kubernetes.io/dockerconfigjson', '--from-literal=.dockerconfigjson=not json');
    assert.match(broken, /data\[\.dockerconfigjson\]: Invalid value: "<secret contents redacted>": invalid character/);
  });
});
