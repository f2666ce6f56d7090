// Custom resources end to end, in k8s.io mode with the real kubectl: two apiserver replicas on etcd
// and a controller-manager. A CRD applied through one replica is served by both; its objects go
// through the one generic store (printer columns, status, server-side apply, field validation,
// deprecation warnings); deleting the CRD deletes its objects.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CustomObjectsApi, KubeConfig, makeInformer, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { startControllerManager, type ControllerManagerProcess } from './support/controller-manager-process.js';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);

const CRD = 'crontabs.stable.example.com';
const GROUP = '/apis/stable.example.com';

const crontabSchema = {
  type: 'object',
  description: 'A CronTab runs an image on a schedule.',
  properties: {
    spec: {
      type: 'object',
      description: 'What to run and when.',
      properties: {
        cronSpec: { type: 'string', description: 'The schedule, in cron format.', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string', description: 'The image to run.' },
        replicas: { type: 'integer', minimum: 0, default: 1 },
      },
      required: ['cronSpec'],
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, labelSelector: { type: 'string' } } },
  },
};

const crontabVersion = (name: string, storage: boolean, deprecated = false) => ({
  name,
  served: true,
  storage,
  ...(deprecated && { deprecated: true }),
  schema: { openAPIV3Schema: crontabSchema },
  subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
  additionalPrinterColumns: [
    { name: 'Spec', type: 'string', description: 'The cron spec defining the interval a CronJob is run', jsonPath: '.spec.cronSpec' },
    { name: 'Replicas', type: 'integer', description: 'The number of jobs launched by the CronJob', jsonPath: '.spec.replicas' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});

const crontabsCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [crontabVersion('v1', true), crontabVersion('v1beta1', false, true)],
  },
};

describe('custom resources: kubectl against two replicas on etcd (k8s.io)', () => {
  let etcd: TestEtcd;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  const replicas: ApiserverProcess[] = [];
  let manager: ControllerManagerProcess;
  const kubeconfigs: { path: string; cleanup: () => Promise<void> }[] = [];
  let workDir: string;

  const kubectlOn = async (replica: number, ...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run('kubectl', [`--kubeconfig=${kubeconfigs[replica]!.path}`, ...args], {
      env: { ...process.env, HOME: workDir, KUBECACHEDIR: join(workDir, `cache-${replica}`) },
    });
  const kubectl = async (...args: string[]): Promise<string> => (await kubectlOn(0, ...args)).stdout;
  const file = async (name: string, content: unknown): Promise<string> => {
    const path = join(workDir, name);
    await writeFile(path, JSON.stringify(content));
    return path;
  };

  before(async () => {
    etcd = await sharedEtcd();
    tokens = await adminTokenFile();
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-crd-'));
    const args = [...etcd.flags, `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io'];
    replicas.push(...(await Promise.all([0, 1].map(() => startApiserver(args)))));
    for (const replica of replicas) {
      await eventually('readyz', async () => (await replica.request('/readyz')).status === 200);
      kubeconfigs.push(await writeKubeconfig(replica, tokens.token));
    }
    manager = await startControllerManager([`--kubeconfig=${kubeconfigs[0]!.path}`, '--api-domain=k8s.io']);
  });
  after(async () => {
    await manager?.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await etcd?.stop();
    await Promise.all(kubeconfigs.map((k) => k.cleanup()));
    await tokens?.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('a CRD applied through one replica is Established and served by both within a second', async () => {
    await kubectl('apply', '-f', await file('crd.json', crontabsCRD));
    await kubectl('wait', '--for=condition=Established', `crd/${CRD}`, '--timeout=10s');
    const established = Date.now();
    for (const replica of replicas) {
      await eventually('discovery', async () => (await replica.request(`${GROUP}/v1`, { token: tokens.token })).status === 200, 1000);
    }
    assert.ok(Date.now() - established < 1000);
    const crd = JSON.parse(await kubectl('get', 'crd', CRD, '-o', 'json')) as { status: { acceptedNames: { kind: string; listKind: string }; storedVersions: string[]; conditions: { type: string; status: string; reason: string }[] } };
    assert.equal(crd.status.acceptedNames.kind, 'CronTab');
    assert.equal(crd.status.acceptedNames.listKind, 'CronTabList');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    const conditions = Object.fromEntries(crd.status.conditions.map((c) => [c.type, `${c.status}/${c.reason}`]));
    assert.deepEqual(conditions, { NamesAccepted: 'True/NoConflicts', Established: 'True/InitialNamesAccepted' });
    for (const i of [0, 1]) {
      const resources = (await kubectlOn(i, 'api-resources', '--api-group=stable.example.com', '--no-headers')).stdout;
      assert.match(resources, /^crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab$/m);
    }
  });

  it('kubectl get prints the printer columns; defaults are applied', async () => {
    await kubectl('create', 'namespace', 'crons');
    await kubectl('apply', '-f', await file('ct.json', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'nightly', namespace: 'crons' }, spec: { cronSpec: '* * * * */5', image: 'cron:1' } }));
    const table = await kubectlOn(1, '-n', 'crons', 'get', 'ct');
    assert.match(table.stdout, /^NAME\s+SPEC\s+REPLICAS\s+AGE$/m);
    assert.match(table.stdout, /^nightly\s+\* \* \* \* \*\/5\s+1\s+\d+s$/m);
  });

  it('kubectl explain shows the schema, through either replica', async () => {
    for (const i of [0, 1]) {
      const { stdout } = await kubectlOn(i, 'explain', 'crontabs.spec');
      assert.match(stdout, /^KIND:\s+CronTab$/m);
      assert.match(stdout, /What to run and when\./);
      assert.match(stdout, /^\s+cronSpec\s+<string> -required-$/m);
      assert.match(stdout, /The schedule, in cron format\./);
    }
  });

  it('validation answers 422 with the schema\u2019s message; strict field validation names the unknown field', async () => {
    const bad = await file('bad.json', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'bad', namespace: 'crons' }, spec: { cronSpec: 'never' } });
    await assert.rejects(kubectl('create', '-f', bad), (error: { stderr: string }) => /spec\.cronSpec: Invalid value: "never": spec\.cronSpec in body should match/.test(error.stderr));
    const unknown = await file('unknown.json', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'odd', namespace: 'crons' }, spec: { cronSpec: '* * * * *', colour: 'red' } });
    await assert.rejects(kubectl('create', '--validate=strict', '-f', unknown), (error: { stderr: string }) => /unknown field "spec\.colour"/.test(error.stderr));
  });

  it('a deprecated version warns', async () => {
    const { stderr } = await kubectlOn(0, 'get', 'crontabs.v1beta1.stable.example.com', '-n', 'crons');
    assert.match(stderr, /Warning: stable\.example\.com\/v1beta1 CronTab is deprecated; use stable\.example\.com\/v1 CronTab/);
  });

  it('server-side apply from two managers conflicts on a shared field', async () => {
    const applied = (image: string) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'shared', namespace: 'crons' }, spec: { cronSpec: '* * * * *', image } });
    await kubectl('apply', '--server-side', '--field-manager=alice', '-f', await file('alice.json', applied('a:1')));
    await assert.rejects(
      kubectl('apply', '--server-side', '--field-manager=bob', '-f', await file('bob.json', applied('b:1'))),
      (error: { stderr: string }) => /conflict with "alice"/.test(error.stderr) && /\.spec\.image/.test(error.stderr),
    );
    await kubectl('apply', '--server-side', '--force-conflicts', '--field-manager=bob', '-f', await file('bob.json', applied('b:1')));
    const object = JSON.parse(await kubectl('-n', 'crons', 'get', 'ct', 'shared', '-o', 'json')) as { spec: { image: string } };
    assert.equal(object.spec.image, 'b:1');
  });

  it('kubectl scale and get --subresource=scale work on the scale subresource, through either replica', async () => {
    assert.match((await kubectlOn(1, '-n', 'crons', 'scale', 'ct', 'nightly', '--replicas=3')).stdout, /crontab.stable.example.com\/nightly scaled/);
    const scaled = JSON.parse(await kubectl('-n', 'crons', 'get', 'ct', 'nightly', '-o', 'json')) as { spec: { replicas: number; cronSpec: string }; metadata: { generation: number } };
    assert.deepEqual([scaled.spec.replicas, scaled.spec.cronSpec, scaled.metadata.generation], [3, '* * * * */5', 2]);
    const table = await kubectl('-n', 'crons', 'get', 'ct', 'nightly', '--subresource=scale');
    assert.match(table, /^NAME\s+DESIRED\s+AVAILABLE\s+AGE$/m);
    assert.match(table, /^nightly\s+3\s+0\s+\S+$/m);
    // The schema's minimum is the custom resource's rule, and holds through the Scale too.
    await assert.rejects(
      kubectl('-n', 'crons', 'patch', 'ct', 'nightly', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":-2}}'),
      (error: { stderr: string }) => /should be a non-negative integer/.test(error.stderr),
    );
    // Served as autoscaling/v1 Scale, with its Protobuf form (the custom resource itself has none).
    const scale = await replicas[0]!.request(`${GROUP}/v1/namespaces/crons/crontabs/nightly/scale`, { token: tokens.token, headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(scale.status, 200);
    assert.equal(scale.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  });

  it('Protobuf is 406 and a strategic merge patch 415, as upstream answers for custom resources', async () => {
    const path = `${GROUP}/v1/namespaces/crons/crontabs/nightly`;
    const protobuf = await replicas[0]!.request(path, { token: tokens.token, headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(protobuf.status, 406);
    const smp = await replicas[0]!.request(path, { method: 'PATCH', token: tokens.token, rawBody: '{"spec":{"image":"x"}}', headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 415);
    assert.match(JSON.parse(smp.body).message, /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/);
    // Its scale subresource too, as upstream's custom resource handler offers every path the same types.
    const scaleSmp = await replicas[0]!.request(`${path}/scale`, { method: 'PATCH', token: tokens.token, rawBody: '{"spec":{"replicas":1}}', headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(scaleSmp.status, 415);
  });

  it('a @kubernetes/client-node informer on one replica sees what is written through the other', async () => {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigs[1]!.path);
    const objects = config.makeApiClient(CustomObjectsApi);
    const informer = makeInformer<KubernetesObject & { spec?: { image?: string } }>(
      config,
      '/apis/stable.example.com/v1/namespaces/crons/crontabs',
      () => objects.listNamespacedCustomObject({ group: 'stable.example.com', version: 'v1', namespace: 'crons', plural: 'crontabs' }) as Promise<KubernetesListObject<KubernetesObject>>,
    );
    const seen: string[] = [];
    informer.on('add', (object) => seen.push(`add ${object.metadata?.name}`));
    informer.on('update', (object) => seen.push(`update ${object.metadata?.name} ${object.spec?.image}`));
    informer.on('delete', (object) => seen.push(`delete ${object.metadata?.name}`));
    await informer.start();
    try {
      const writer = (body: unknown) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'informed', namespace: 'crons' }, ...(body as object) });
      const path = `${GROUP}/v1/namespaces/crons/crontabs`;
      assert.equal((await replicas[0]!.request(path, { method: 'POST', token: tokens.token, body: writer({ spec: { cronSpec: '* * * * *', image: 'one' } }) })).status, 201);
      await eventually('added', async () => seen.includes('add informed'), 5000);
      const patched = await replicas[0]!.request(`${path}/informed`, { method: 'PATCH', token: tokens.token, rawBody: '{"spec":{"image":"two"}}', headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(patched.status, 200);
      await eventually('updated', async () => seen.includes('update informed two'), 5000);
      assert.equal((await replicas[0]!.request(`${path}/informed`, { method: 'DELETE', token: tokens.token })).status, 200);
      await eventually('deleted', async () => seen.includes('delete informed'), 5000);
      assert.equal(informer.get('informed', 'crons'), undefined);
    } finally {
      await informer.stop();
    }
  });

  it('the garbage collector follows owner references to and from custom objects; namespace deletion takes them too', async () => {
    const request = (path: string, method: string, body?: unknown) => replicas[0]!.request(path, { method, token: tokens.token, ...(body !== undefined && { body }) });
    const crontabs = `${GROUP}/v1/namespaces/crons/crontabs`;
    const accounts = '/api/v1/namespaces/crons/serviceaccounts';
    const owner = JSON.parse((await request(crontabs, 'POST', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'owner' }, spec: { cronSpec: '* * * * *' } })).body) as { metadata: { uid: string } };
    const ownedAccount = { metadata: { name: 'owned-by-crontab', ownerReferences: [{ apiVersion: 'stable.example.com/v1', kind: 'CronTab', name: 'owner', uid: owner.metadata.uid }] } };
    assert.equal((await request(accounts, 'POST', ownedAccount)).status, 201);
    const account = JSON.parse((await request(accounts, 'POST', { metadata: { name: 'owns-a-crontab' } })).body) as { metadata: { uid: string } };
    const ownedCronTab = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'owns-a-crontab', uid: account.metadata.uid }] }, spec: { cronSpec: '* * * * *' } };
    assert.equal((await request(crontabs, 'POST', ownedCronTab)).status, 201);
    assert.equal((await request(`${crontabs}/owner`, 'DELETE')).status, 200);
    assert.equal((await request(`${accounts}/owns-a-crontab`, 'DELETE')).status, 200);
    // The collector learns of a new kind from discovery, which it reads every 30 s (upstream's period).
    await eventually('dependents collected', async () => (await request(`${accounts}/owned-by-crontab`, 'GET')).status === 404 && (await request(`${crontabs}/owned`, 'GET')).status === 404, 45_000);

    await kubectl('create', 'namespace', 'doomed');
    await kubectl('apply', '-f', await file('doomed.json', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'inside', namespace: 'doomed' }, spec: { cronSpec: '* * * * *' } }));
    await kubectl('delete', 'namespace', 'doomed', '--wait=false');
    await eventually('namespace gone with its custom objects', async () => (await request('/api/v1/namespaces/doomed', 'GET')).status === 404, 30_000);
  });

  it('deleting the CRD deletes its objects, then the CRD, and the resource leaves discovery', async () => {
    await kubectl('delete', 'crd', CRD, '--wait=false');
    await eventually('the CRD is gone', async () => (await replicas[1]!.request(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`, { token: tokens.token })).status === 404, 30_000);
    for (const replica of replicas) {
      await eventually('out of discovery', async () => (await replica.request(`${GROUP}/v1`, { token: tokens.token })).status === 404, 2000);
    }
    // Recreated, the kind starts empty: the objects went with their definition.
    await kubectl('apply', '-f', await file('crd.json', crontabsCRD));
    await kubectl('wait', '--for=condition=Established', `crd/${CRD}`, '--timeout=10s');
    await eventually('served again', async () => (await replicas[0]!.request(`${GROUP}/v1/crontabs`, { token: tokens.token })).status === 200, 2000);
    const list = JSON.parse((await replicas[0]!.request(`${GROUP}/v1/crontabs`, { token: tokens.token })).body) as { items: unknown[] };
    assert.deepEqual(list.items, []);
  });
});
