// kubectl explain of a custom resource. The server runs in this process, serving Kubernetes' names
// (k8s.io), so that its definitions can include a hand-written custom resource (an unstructured
// definition with a CRD schema, as the CustomResourceDefinition controller makes one): it is then
// published in /openapi/v3/apis/stable.example.com/v1 and in /openapi/v2, and kubectl, unchanged,
// explains it from them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectMetaSchema } from '@plat/api';
import { startInProcessApiServer, type InProcessApiServer, type InProcessOptions } from '@plat/apiserver/testing';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

type Definition = NonNullable<InProcessOptions['definitions']>[number];

/** The CronTab of Kubernetes' CRD walkthrough, with a field of each kind a CRD schema may have. */
const cronTabSchema = {
  type: 'object',
  description: 'A CronTab runs an image on a schedule.',
  properties: {
    spec: {
      type: 'object',
      description: 'What to run, and when.',
      required: ['cronSpec', 'image'],
      properties: {
        cronSpec: { type: 'string', description: 'The schedule, in cron format.', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string', description: 'The container image to run.' },
        replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 10, default: 1, description: 'How many copies run at once.' },
        port: { 'x-kubernetes-int-or-string': true, description: 'The port to probe, by number or by name.' },
        suspend: { type: 'boolean', nullable: true, description: 'Stops the schedule while true.' },
        concurrencyPolicy: { type: 'string', enum: ['Allow', 'Forbid', 'Replace'], description: 'What to do when a run is still going.' },
        env: {
          type: 'array',
          description: 'Environment variables of the runs.',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', description: 'The variable.' }, value: { type: 'string', description: 'Its value.' } },
          },
        },
        labels: { type: 'object', description: 'Labels of the runs.', additionalProperties: { type: 'string' } },
        config: { type: 'object', description: 'Free-form settings of the image.', 'x-kubernetes-preserve-unknown-fields': true },
        template: {
          type: 'object',
          description: 'The object each run creates.',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    },
    status: {
      type: 'object',
      description: 'What the runs did.',
      properties: { lastScheduleTime: { type: 'string', format: 'date-time', description: 'When the last run started.' } },
    },
  },
};

const cronTabs: Definition = {
  group: 'stable.example.com',
  version: 'v1',
  kind: 'CronTab',
  resource: 'crontabs',
  singularName: 'crontab',
  shortNames: ['ct'],
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
  // What decoding checks of a custom resource: type meta and ObjectMeta.
  schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema } },
  strategy: { validate: () => [], validateUpdate: () => [] },
  allowCreateOnUpdate: false,
  subresources: {
    status: {
      merge: (object, old) => ({ ...old, status: (object as { status?: unknown }).status } as typeof old),
      validateUpdate: () => [],
    },
  },
  unstructured: {
    storageVersion: 'v1',
    // explain reads only the published schema; pruning and defaults are the CRD builder's business.
    prune: () => [],
    default: () => false,
    openAPIV3Schema: cronTabSchema,
  },
};


describe('kubectl explain of a custom resource, --api-domain=k8s.io', () => {
  let server: InProcessApiServer;
  let workDir: string;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await kubectlIn(kubeconfig.path, workDir, args);
    return stdout;
  };

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-custom-openapi-'));
    server = await startInProcessApiServer({ domain: 'k8s.io', definitions: [cronTabs] });
    kubeconfig = await writeKubeconfig(server, server.adminToken);
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('explain crontabs: the kind, its group and description, and its fields', async () => {
    const out = await kubectl('explain', 'crontabs');
    assert.match(out, /^GROUP:\s+stable\.example\.com$/m);
    assert.match(out, /^KIND:\s+CronTab$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    assert.match(out, /A CronTab runs an image on a schedule\./);
    assert.match(out, /^\s+apiVersion\s+<string>$/m);
    assert.match(out, /APIVersion defines the versioned schema of this representation of an object/);
    assert.match(out, /^\s+metadata\s+<ObjectMeta>$/m);
    assert.match(out, /^\s+spec\s+<Object>$/m);
    assert.match(out, /What to run, and when\./);
    assert.match(out, /^\s+status\s+<Object>$/m);
  });

  it('explain ct.spec.port: an int-or-string field, by its short name', async () => {
    const out = await kubectl('explain', 'ct.spec.port');
    // Untyped (its type is the anyOf), so kubectl calls it an Object, as against kube-apiserver
    // (kubernetes/kubernetes#130946).
    assert.match(out, /^FIELD:\s+port <Object>$/m);
    assert.match(out, /The port to probe, by number or by name\./);
  });

  it('explain crontabs.spec --recursive: every field with its type', async () => {
    const out = await kubectl('explain', 'crontabs.spec', '--recursive');
    assert.match(out, /^FIELD:\s+spec <Object>$/m);
    const fields: [string, string][] = [
      ['cronSpec', '<string> -required-'],
      ['image', '<string> -required-'],
      ['replicas', '<integer>'],
      ['port', '<Object>'],
      ['suspend', '<boolean>'],
      ['concurrencyPolicy', '<string>'],
      ['env', '<\\[\\]Object>'],
      ['name', '<string> -required-'],
      ['value', '<string>'],
      ['labels', '<map\\[string\\]string>'],
      ['config', '<Object>'],
      ['template', '<Object>'],
      // The embedded resource's type meta and ObjectMeta, as upstream publishes them.
      ['metadata', '<ObjectMeta>'],
    ];
    for (const [field, type] of fields) assert.match(out, new RegExp(`^\\s+${field}\\s+${type}$`, 'm'), field);
  });

  it('explain crontabs.spec.env: a list of objects, its description and its fields', async () => {
    const out = await kubectl('explain', 'crontabs.spec.env');
    assert.match(out, /^FIELD:\s+env <\[\]Object>$/m);
    assert.match(out, /Environment variables of the runs\./);
    assert.match(out, /^\s+name\s+<string> -required-$/m);
    assert.match(out, /The variable\./);
  });

  it('the group version\u2019s document is in the /openapi/v3 index, as upstream\u2019s CRD builder makes it', async () => {
    const index = JSON.parse(await kubectl('get', '--raw', '/openapi/v3')) as { paths: Record<string, { serverRelativeURL: string }> };
    const entry = index.paths['apis/stable.example.com/v1'];
    assert.ok(entry, 'apis/stable.example.com/v1 is not in the index');
    const document = JSON.parse(await kubectl('get', '--raw', entry.serverRelativeURL)) as {
      info: { title: string };
      components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
    };
    assert.equal(document.info.title, 'Kubernetes CRD Swagger');
    const spec = document.components.schemas['com.example.stable.v1.CronTab']!.properties!.spec as { properties: Record<string, unknown> };
    assert.deepEqual(spec.properties.concurrencyPolicy, { description: 'What to do when a run is still going.', type: 'string', enum: ['Allow', 'Forbid', 'Replace'] });
  });

  it('explain --output=plaintext-openapiv2 reads the Protobuf form of /openapi/v2, with the v2 conversions', async () => {
    const out = await kubectl('explain', 'crontabs.spec', '--output=plaintext-openapiv2');
    assert.match(out, /^KIND:\s+CronTab$/m);
    assert.match(out, /^\s+cronSpec\s+<string> -required-$/m);
    assert.match(out, /The schedule, in cron format\./);
    assert.match(out, /^\s+env\s+<\[\]Object>$/m);
    // v2's conversions: a nullable field and one that keeps unknown fields have no type there.
    assert.match(out, /^\s+suspend\s+<>$/m);
    assert.match(out, /^\s+config\s+<>$/m);
  });
});
