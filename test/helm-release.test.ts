// Helm 3 (make test puts it in .tools/helm) against a replica in k8s.io mode on etcd with Secrets
// encrypted at rest: install, upgrade, rollback and uninstall of a chart that holds a CRD, a custom
// object, a ConfigMap and a Secret; helm list and history read the release Secrets back.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startEtcd, type EtcdProcess } from '@plat/storage/testing';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig } from './support/kubeconfig.js';
import { etcdReader, type EtcdReader } from './support/etcd-raw.js';

const run = promisify(execFile);
const HELM = fileURLToPath(new URL('../../.tools/helm', import.meta.url));
const NAMESPACE = 'apps';

const chartFiles: Record<string, string> = {
  'Chart.yaml': 'apiVersion: v2\nname: widgets\ndescription: A CRD, a custom object, a ConfigMap and a Secret\ntype: application\nversion: 0.1.0\nappVersion: "1.0"\n',
  'values.yaml': 'color: blue\npassword: hunter2\n',
  'crds/widgets.yaml': [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  name: widgets.example.com',
    'spec:',
    '  group: example.com',
    '  scope: Namespaced',
    '  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}',
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    '      schema:',
    '        openAPIV3Schema:',
    '          type: object',
    '          properties:',
    '            spec:',
    '              type: object',
    '              properties:',
    '                color: {type: string}',
    '',
  ].join('\n'),
  'templates/configmap.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  color: {{ .Values.color | quote }}\n  revision: {{ .Release.Revision | quote }}\n',
  'templates/secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-credentials\ntype: Opaque\nstringData:\n  password: {{ .Values.password | quote }}\n',
  'templates/widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}-widget\nspec:\n  color: {{ .Values.color | quote }}\n',
};

interface Release {
  name: string;
  namespace: string;
  revision: string;
  status: string;
  chart: string;
}

describe('helm against a replica in k8s.io mode, release Secrets encrypted at rest', () => {
  let etcd: EtcdProcess;
  let reader: EtcdReader;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let server: ApiserverProcess;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let dir: string;
  let chart: string;

  const helm = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(HELM, [...args, `--kubeconfig=${kubeconfig.path}`, `--namespace=${NAMESPACE}`], {
      env: {
        ...process.env,
        HELM_CACHE_HOME: join(dir, 'helm-cache'),
        HELM_CONFIG_HOME: join(dir, 'helm-config'),
        HELM_DATA_HOME: join(dir, 'helm-data'),
        HOME: dir,
      },
    });
    return stdout;
  };
  const api = (path: string) => server.request(path, { token: tokens.token });
  const json = async <T>(path: string): Promise<T> => {
    const response = await api(path);
    assert.equal(response.status, 200, `${path}: ${response.body}`);
    return JSON.parse(response.body) as T;
  };
  const releases = async (): Promise<Release[]> => JSON.parse(await helm('list', '--all', '-o', 'json')) as Release[];
  const settings = () => json<{ data: Record<string, string> }>(`/api/v1/namespaces/${NAMESPACE}/configmaps/demo-settings`);
  const widget = () => json<{ spec: { color: string } }>(`/apis/example.com/v1/namespaces/${NAMESPACE}/widgets/demo-widget`);
  /** The names of the release Secrets Helm keeps, by its labels. */
  const releaseSecrets = async (): Promise<string[]> =>
    (await json<{ items: { metadata: { name: string } }[] }>(`/api/v1/namespaces/${NAMESPACE}/secrets?labelSelector=owner%3Dhelm`)).items.map((item) => item.metadata.name);
  const rawValue = (key: string): Promise<Buffer | undefined> => reader.value(key);

  before(async () => {
    assert.ok(existsSync(HELM), `no ${HELM}: make test fetches it (node scripts/fetch-helm.mjs .tools)`);
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-helm-release-'));
    chart = join(dir, 'widgets');
    for (const [name, text] of Object.entries(chartFiles)) {
      await mkdir(join(chart, name, '..'), { recursive: true });
      await writeFile(join(chart, name), text);
    }
    const encryption = join(dir, 'encryption.yaml');
    await writeFile(
      encryption,
      `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aesgcm:\n          keys: [{name: key1, secret: ${randomBytes(32).toString('base64')}}]\n      - identity: {}\n`,
    );
    etcd = await startEtcd();
    reader = etcdReader(etcd.endpoint);
    tokens = await adminTokenFile();
    server = await startApiserver([
      `--etcd-servers=${etcd.endpoint}`,
      `--token-auth-file=${tokens.file}`,
      '--api-domain=k8s.io',
      '--etcd-compaction-interval=0',
      `--encryption-provider-config=${encryption}`,
    ]);
    kubeconfig = await writeKubeconfig(server, tokens.token);
  });
  after(async () => {
    await server?.stop();
    reader?.close();
    await etcd?.stop();
    await kubeconfig?.cleanup();
    await tokens?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('install: the CRD first, then the ConfigMap, Secret and custom object; helm list shows the release', async () => {
    assert.match(await helm('install', 'demo', chart, '--create-namespace', '--wait', '--timeout=60s'), /STATUS: deployed/);
    assert.deepEqual(
      (await releases()).map(({ name, namespace, revision, status, chart: of }) => ({ name, namespace, revision, status, chart: of })),
      [{ name: 'demo', namespace: NAMESPACE, revision: '1', status: 'deployed', chart: 'widgets-0.1.0' }],
    );
    assert.deepEqual((await settings()).data, { color: 'blue', revision: '1' });
    assert.equal((await widget()).spec.color, 'blue');
    const secret = await json<{ data: Record<string, string> }>(`/api/v1/namespaces/${NAMESPACE}/secrets/demo-credentials`);
    assert.equal(Buffer.from(secret.data.password!, 'base64').toString(), 'hunter2');
    assert.deepEqual(await releaseSecrets(), ['sh.helm.release.v1.demo.v1']);
  });

  it('the release Secret and the chart\'s Secret are encrypted in etcd; the ConfigMap is not', async () => {
    for (const name of ['sh.helm.release.v1.demo.v1', 'demo-credentials']) {
      const stored = await rawValue(`/registry/core/secrets/${NAMESPACE}/${name}`);
      assert.ok(stored);
      assert.equal(stored.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key1:', name);
      assert.equal(stored.indexOf('hunter2'), -1);
      assert.equal(stored.indexOf(Buffer.from('hunter2').toString('base64')), -1);
    }
    assert.match((await rawValue(`/registry/core/configmaps/${NAMESPACE}/demo-settings`))!.toString(), /"color":"blue"/);
  });

  it('upgrade changes the objects and keeps both revisions', async () => {
    assert.match(await helm('upgrade', 'demo', chart, '--set', 'color=green', '--wait', '--timeout=60s'), /STATUS: deployed/);
    assert.deepEqual((await settings()).data, { color: 'green', revision: '2' });
    assert.equal((await widget()).spec.color, 'green');
    const [release] = await releases();
    assert.equal(release?.revision, '2');
    assert.deepEqual((await releaseSecrets()).sort(), ['sh.helm.release.v1.demo.v1', 'sh.helm.release.v1.demo.v2']);
  });

  it('rollback to revision 1 brings its values back as revision 3', async () => {
    assert.match(await helm('rollback', 'demo', '1', '--wait', '--timeout=60s'), /Rollback was a success/);
    assert.equal((await settings()).data.color, 'blue');
    assert.equal((await widget()).spec.color, 'blue');
    const history = JSON.parse(await helm('history', 'demo', '-o', 'json')) as { revision: number; status: string; description: string }[];
    assert.deepEqual(
      history.map(({ revision, status }) => ({ revision, status })),
      [
        { revision: 1, status: 'superseded' },
        { revision: 2, status: 'superseded' },
        { revision: 3, status: 'deployed' },
      ],
    );
  });

  it('uninstall removes the objects and the release; the CRD stays, as Helm keeps CRDs', async () => {
    assert.match(await helm('uninstall', 'demo', '--wait', '--timeout=60s'), /release "demo" uninstalled/);
    for (const path of [
      `/api/v1/namespaces/${NAMESPACE}/configmaps/demo-settings`,
      `/api/v1/namespaces/${NAMESPACE}/secrets/demo-credentials`,
      `/apis/example.com/v1/namespaces/${NAMESPACE}/widgets/demo-widget`,
    ]) {
      assert.equal((await api(path)).status, 404, path);
    }
    assert.deepEqual(await releaseSecrets(), []);
    assert.deepEqual(await releases(), []);
    assert.equal((await api('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status, 200);
  });
});
