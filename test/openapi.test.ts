// kubectl reads the OpenAPI documents of a replica serving Kubernetes' names (--api-domain=k8s.io):
// explain (which loads the Protobuf form of /openapi/v2 first, then reads the v3 document), and
// apply --validate=strict, which finds the fieldValidation parameter in the v3 document and then
// has the server refuse unknown fields.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

interface Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

describe('OpenAPI documents with kubectl, --api-domain=k8s.io', () => {
  let server: ApiserverProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let workDir: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await kubectlIn(kubeconfig.path, workDir, args);
    return stdout;
  };
  /** kubectl that is expected to fail: its stderr. */
  const kubectlFails = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (error) {
      return (error as { stderr: string }).stderr;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };

  before(async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io']);
    kubeconfig = await writeKubeconfig(server, tokens.token);
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-openapi-'));
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await tokens.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('every kind discovery lists is in /openapi/v2 and in its /openapi/v3 document, with its GVK', async () => {
    const v2 = JSON.parse((await server.request('/openapi/v2', { token: tokens.token })).body) as { definitions: Record<string, Record<string, unknown>> };
    const index = JSON.parse((await server.request('/openapi/v3', { token: tokens.token })).body) as Index;
    const groupVersions = ['v1'];
    const groups = JSON.parse((await server.request('/apis', { token: tokens.token })).body) as { groups: { versions: { groupVersion: string }[] }[] };
    for (const group of groups.groups) groupVersions.push(...group.versions.map((version) => version.groupVersion));
    for (const groupVersion of groupVersions) {
      const key = groupVersion === 'v1' ? 'api/v1' : `apis/${groupVersion}`;
      const list = JSON.parse((await server.request(`/${key}`, { token: tokens.token })).body) as { resources: { name: string; kind: string }[] };
      const entry = index.paths[key];
      assert.ok(entry, `${key} is not in the v3 index`);
      const v3 = JSON.parse((await server.request(entry.serverRelativeURL, { token: tokens.token })).body) as {
        components: { schemas: Record<string, Record<string, unknown>> };
      };
      const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
      for (const { kind } of list.resources.filter((resource) => !resource.name.includes('/'))) {
        const gvk = { group, kind, version };
        const has = (schemas: Record<string, Record<string, unknown>>): boolean =>
          Object.values(schemas).some((schema) => JSON.stringify(schema['x-kubernetes-group-version-kind']) === JSON.stringify([gvk]));
        assert.ok(has(v2.definitions), `${groupVersion} ${kind} is not in /openapi/v2`);
        assert.ok(has(v3.components.schemas), `${groupVersion} ${kind} is not in /openapi/v3/${key}`);
      }
    }
  });

  it('explain serviceaccount.secrets', async () => {
    const out = await kubectl('explain', 'serviceaccount.secrets');
    assert.match(out, /^KIND:\s+ServiceAccount$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    assert.match(out, /^FIELD:\s+secrets <\[\]Object>$/m);
    assert.match(out, /Secrets in the same namespace that pods running as this account may use/);
    for (const field of ['apiVersion', 'fieldPath', 'kind', 'name', 'namespace', 'resourceVersion', 'uid']) {
      assert.match(out, new RegExp(`^\\s+${field}\\s+<string>$`, 'm'), field);
    }
  });

  it('explain role.rules --recursive', async () => {
    const out = await kubectl('explain', 'role.rules', '--recursive');
    assert.match(out, /^GROUP:\s+rbac\.authorization\.k8s\.io$/m);
    assert.match(out, /^KIND:\s+Role$/m);
    assert.match(out, /^FIELD:\s+rules <\[\]Object>$/m);
    assert.match(out, /^\s+verbs\s+<\[\]string> -required-$/m);
    for (const field of ['apiGroups', 'nonResourceURLs', 'resourceNames', 'resources']) {
      assert.match(out, new RegExp(`^\\s+${field}\\s+<\\[\\]string>$`, 'm'), field);
    }
  });

  it('explain role shows ObjectMeta, referenced', async () => {
    const out = await kubectl('explain', 'role.metadata');
    assert.match(out, /^FIELD:\s+metadata <ObjectMeta>$/m);
    assert.match(out, /^\s+ownerReferences\s+<\[\]OwnerReference>$/m);
  });

  it('explain --output=plaintext-openapiv2 reads the Protobuf form of /openapi/v2', async () => {
    const out = await kubectl('explain', 'role.rules', '--output=plaintext-openapiv2');
    assert.match(out, /^KIND:\s+Role$/m);
    assert.match(out, /^\s+verbs\s+<\[\]string> -required-$/m);
  });

  it('apply --validate=strict refuses a manifest with an unknown field, naming it', async () => {
    const file = join(workDir, 'role-with-unknown-field.json');
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'strict', namespace: 'default' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'], verbz: ['get'] }],
      }),
    );
    const stderr = await kubectlFails('apply', '--validate=strict', '-f', file);
    assert.match(stderr, /unknown field "rules\[0\]\.verbz"/);
    assert.match(await kubectlFails('-n', 'default', 'get', 'role', 'strict'), /NotFound|not found/);
  });
});
