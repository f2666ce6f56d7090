// kubectl, unchanged, against a replica serving Kubernetes' names (--api-domain=k8s.io).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

describe('kubectl against --api-domain=k8s.io', () => {
  let server: ApiserverProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let workDir: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await kubectlIn(kubeconfig.path, workDir, args);
    return stdout;
  };

  before(async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io']);
    kubeconfig = await writeKubeconfig(server, tokens.token);
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-kubectl-'));
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await tokens.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('api-resources lists the served kinds', async () => {
    const out = await kubectl('api-resources', '--no-headers');
    for (const line of ['namespaces', 'serviceaccounts', 'limitranges', 'roles', 'clusterrolebindings']) {
      assert.match(out, new RegExp(`^${line}\\s`, 'm'));
    }
  });

  it('create, get, get with --chunk-size, and delete', async () => {
    await kubectl('create', 'namespace', 'kubectl-e2e');
    await kubectl('-n', 'kubectl-e2e', 'create', 'serviceaccount', 'robot');
    for (const name of ['r1', 'r2', 'r3']) {
      await kubectl('-n', 'kubectl-e2e', 'create', 'role', name, '--verb=get', '--resource=serviceaccounts');
    }
    const sa = JSON.parse(await kubectl('-n', 'kubectl-e2e', 'get', 'serviceaccount', 'robot', '-o', 'json')) as {
      metadata: { name: string; uid: string };
    };
    assert.equal(sa.metadata.name, 'robot');
    const chunked = await kubectl('-n', 'kubectl-e2e', 'get', 'roles', '--chunk-size=1', '-o', 'name');
    assert.deepEqual(chunked.trim().split('\n'), ['role.rbac.authorization.k8s.io/r1', 'role.rbac.authorization.k8s.io/r2', 'role.rbac.authorization.k8s.io/r3']);
    await kubectl('-n', 'kubectl-e2e', 'delete', 'role', 'r2');
    const left = await kubectl('-n', 'kubectl-e2e', 'get', 'roles', '-o', 'name');
    assert.doesNotMatch(left, /r2/);
  });

  it('get prints the columns the server\u2019s Table gives', async () => {
    const namespaces = await kubectl('get', 'namespaces');
    assert.match(namespaces, /^NAME\s+STATUS\s+AGE$/m);
    assert.match(namespaces, /^kube-system\s+Active\s+\S+$/m);
    const roles = await kubectl('get', 'roles', '-A');
    assert.match(roles, /^NAMESPACE\s+NAME\s+CREATED AT$/m);
  });

  it('apply creates an object that does not exist yet', async () => {
    const file = join(workDir, 'role.json');
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'applied', namespace: 'default' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      }),
    );
    assert.match(await kubectl('apply', '-f', file), /created/);
    const role = JSON.parse(await kubectl('-n', 'default', 'get', 'role', 'applied', '-o', 'json')) as {
      metadata: { annotations?: Record<string, string> };
    };
    assert.ok(role.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']);
  });

  it('apply updates with its last-applied annotation and a strategic merge patch', async () => {
    const file = join(workDir, 'sa.yaml');
    const manifest = (labels: string) =>
      `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: csa\n  namespace: default\n  labels: {${labels}}\nsecrets:\n- name: one\n`;
    await writeFile(file, manifest('a: "1", b: "2"'));
    assert.match(await kubectl('apply', '-f', file), /created/);
    await writeFile(file, manifest('a: "1"'));
    assert.match(await kubectl('apply', '-f', file), /configured/);
    const sa = JSON.parse(await kubectl('-n', 'default', 'get', 'sa', 'csa', '-o', 'json')) as { metadata: { labels: Record<string, string> } };
    assert.deepEqual(sa.metadata.labels, { a: '1' }, 'a label dropped from the manifest is removed');
    assert.match(await kubectl('apply', '-f', file), /unchanged/);
  });

  it('server-side apply from two managers: the conflict message and --force-conflicts', async () => {
    const file = join(workDir, 'ssa.yaml');
    const manifest = (team: string) => `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ssa\n  namespace: default\n  labels:\n    team: ${team}\n`;
    await writeFile(file, manifest('a'));
    assert.match(await kubectl('apply', '--server-side', '--field-manager=first', '-f', file), /serverside-applied/);
    await writeFile(file, manifest('b'));
    const refused = await kubectl('apply', '--server-side', '--field-manager=second', '-f', file).then(
      () => '',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    assert.match(refused, /conflict/i);
    assert.match(refused, /\.metadata\.labels\.team/);
    assert.match(await kubectl('apply', '--server-side', '--field-manager=second', '--force-conflicts', '-f', file), /serverside-applied/);
    const sa = JSON.parse(await kubectl('-n', 'default', 'get', 'sa', 'ssa', '-o', 'json')) as { metadata: { labels: Record<string, string> } };
    assert.equal(sa.metadata.labels.team, 'b');
  });

  it('patch --type=json, merge and strategic', async () => {
    await kubectl('-n', 'default', 'create', 'serviceaccount', 'patched');
    await kubectl('-n', 'default', 'patch', 'sa', 'patched', '--type=json', '-p', '[{"op":"add","path":"/metadata/labels","value":{"x":"1"}}]');
    await kubectl('-n', 'default', 'patch', 'sa', 'patched', '--type=merge', '-p', '{"metadata":{"labels":{"y":"2"}}}');
    await kubectl('-n', 'default', 'patch', 'sa', 'patched', '--type=strategic', '-p', '{"secrets":[{"name":"s"}]}');
    const sa = JSON.parse(await kubectl('-n', 'default', 'get', 'sa', 'patched', '-o', 'json')) as {
      metadata: { labels: Record<string, string> };
      secrets: Array<{ name: string }>;
    };
    assert.deepEqual(sa.metadata.labels, { x: '1', y: '2' });
    assert.deepEqual(sa.secrets, [{ name: 's' }]);
  });

  it('get -w streams changes', async () => {
    await kubectl('create', 'namespace', 'kubectl-watch');
    await kubectl('-n', 'kubectl-watch', 'create', 'role', 'listed', '--verb=get', '--resource=serviceaccounts');
    const watcher = spawn('kubectl', [`--kubeconfig=${kubeconfig.path}`, '-n', 'kubectl-watch', 'get', 'roles', '-w', '-o', 'name'], {
      env: { ...process.env, HOME: workDir, KUBECACHEDIR: join(workDir, 'cache') },
    });
    let output = '';
    watcher.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const lines = (): string[] => output.split('\n').filter(Boolean);
    const printed = async (count: number): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (lines().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(lines().length >= count, `waited for ${count} lines of kubectl get -w, got: ${output}`);
    };
    try {
      // The list first: what is created after it is printed can only come from the watch.
      await printed(1);
      await kubectl('-n', 'kubectl-watch', 'create', 'role', 'watched', '--verb=get', '--resource=serviceaccounts');
      await printed(2);
      await kubectl('-n', 'kubectl-watch', 'label', 'role', 'listed', 'changed=yes');
      await printed(3);
      assert.deepEqual(lines(), ['role.rbac.authorization.k8s.io/listed', 'role.rbac.authorization.k8s.io/watched', 'role.rbac.authorization.k8s.io/listed']);
    } finally {
      watcher.kill();
    }
  });
});
