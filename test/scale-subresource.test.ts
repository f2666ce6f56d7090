// kubectl 1.28, unchanged, against a custom resource's scale subresource (--api-domain=k8s.io): a
// CRD's versions with status and scale, as the custom resource builder makes them, given to an
// apiserver in this process (the binary serves custom resources only through the
// CustomResourceDefinition kind).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { customResourceDefinitions } from '@plat/api';
import { startInProcessApiServer, type InProcessApiServer } from '@plat/apiserver/testing';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);

/** kubectl 1.28 where the machine has it (the version we serve), else the kubectl on the PATH. */
const KUBECTL_128 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.28';
const KUBECTL = existsSync(KUBECTL_128) ? KUBECTL_128 : 'kubectl';

/**
 * The served versions of a CRD with status and scale, as the custom resource builder makes them
 * (the CustomResourceDefinition kind itself need not be served for that).
 */
const widgets = customResourceDefinitions({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      },
    ],
  },
  status: { acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, storedVersions: ['v1'] },
});

interface Widget {
  spec: { replicas?: number; color?: string };
  metadata: { generation?: number; managedFields?: { manager: string; operation: string; subresource?: string; fieldsV1: unknown }[] };
}

describe('kubectl 1.28 and a scale subresource', () => {
  let server: InProcessApiServer;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let workDir: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(KUBECTL, [`--kubeconfig=${kubeconfig.path}`, '-n', 'default', ...args], {
      env: { ...process.env, HOME: workDir, KUBECACHEDIR: join(workDir, 'cache') },
    });
    return stdout;
  };
  const refused = (...args: string[]): Promise<string> =>
    kubectl(...args).then(
      (out) => assert.fail(`kubectl ${args.join(' ')} succeeded: ${out}`),
      (error: { stderr?: string }) => error.stderr ?? '',
    );
  const widget = async (): Promise<Widget> => JSON.parse(await kubectl('get', 'widget', 'w', '-o', 'json', '--show-managed-fields')) as Widget;

  before(async () => {
    server = await startInProcessApiServer({ domain: 'k8s.io', definitions: widgets });
    kubeconfig = await writeKubeconfig(server, server.adminToken);
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-scale-'));
    const manifest = join(workDir, 'widget.yaml');
    await writeFile(manifest, 'apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: 1\n  color: blue\n');
    await kubectl('create', '-f', manifest);
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('kubectl scale --replicas=3 patches the Scale, and the parent’s replicas follow', async () => {
    assert.match(await kubectl('scale', 'widget', 'w', '--replicas=3'), /^widget.stable.example.com\/w scaled$/m);
    const scaled = await widget();
    assert.deepEqual(scaled.spec, { replicas: 3, color: 'blue' });
    assert.equal(scaled.metadata.generation, 2);
    const owner = scaled.metadata.managedFields!.find((entry) => entry.subresource === 'scale');
    // kubectl scale names no field manager: it is the user agent's program, as upstream takes it.
    assert.deepEqual(owner && [owner.manager, owner.operation, owner.fieldsV1], [basename(KUBECTL), 'Update', { 'f:spec': { 'f:replicas': {} } }]);
    const creator = scaled.metadata.managedFields!.find((entry) => entry.manager === 'kubectl-create');
    assert.deepEqual(creator?.fieldsV1, { 'f:spec': { '.': {}, 'f:color': {} } }, 'the creator no longer owns the replicas');
  });

  it('kubectl scale with --current-replicas reads the Scale and writes it back, its precondition held', async () => {
    assert.match(await kubectl('scale', 'widget', 'w', '--current-replicas=3', '--replicas=4'), /scaled/);
    assert.equal((await widget()).spec.replicas, 4);
    assert.match(await refused('scale', 'widget', 'w', '--current-replicas=9', '--replicas=5'), /[Ee]xpected replicas to be 9, was 4/);
    assert.equal((await widget()).spec.replicas, 4);
  });

  it('kubectl scale --dry-run=server changes nothing', async () => {
    assert.match(await kubectl('scale', 'widget', 'w', '--replicas=7', '--dry-run=server'), /scaled \(server dry run\)/);
    assert.equal((await widget()).spec.replicas, 4);
  });

  it('kubectl get --subresource=scale prints the Scale’s columns, and -o json the Scale', async () => {
    const table = await kubectl('get', 'widget', 'w', '--subresource=scale');
    assert.match(table, /^NAME\s+DESIRED\s+AVAILABLE\s+AGE$/m);
    assert.match(table, /^w\s+4\s+0\s+\S+$/m);
    const scale = JSON.parse(await kubectl('get', 'widget', 'w', '--subresource=scale', '-o', 'json')) as Record<string, any>;
    assert.deepEqual([scale.apiVersion, scale.kind, scale.metadata.name, scale.spec, scale.status], ['autoscaling/v1', 'Scale', 'w', { replicas: 4 }, { replicas: 0 }]);
  });

  it('kubectl patch --subresource=scale, merge and json; a negative count is the custom resource’s 422', async () => {
    assert.match(await kubectl('patch', 'widget', 'w', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":5}}'), /patched/);
    assert.equal((await widget()).spec.replicas, 5);
    assert.match(await kubectl('patch', 'widget', 'w', '--subresource=scale', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":6}]'), /patched/);
    const patched = await widget();
    assert.deepEqual(patched.spec, { replicas: 6, color: 'blue' });
    assert.match(
      await refused('patch', 'widget', 'w', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":-1}}'),
      // kubectl words a 422 in its own way; the cause is the server's.
      /The Widget "w" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer/,
    );
    assert.equal((await widget()).spec.replicas, 6);
  });
});
