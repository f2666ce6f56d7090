// @kubernetes/client-node, unchanged, against a replica serving Kubernetes' names.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, Watch } from '@kubernetes/client-node';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig } from './support/kubeconfig.js';

describe('@kubernetes/client-node against --api-domain=k8s.io', () => {
  let server: ApiserverProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  const config = new KubeConfig();

  before(async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io']);
    kubeconfig = await writeKubeconfig(server, tokens.token);
    config.loadFromFile(kubeconfig.path);
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await tokens.cleanup();
  });

  it('creates, reads and lists typed objects', async () => {
    const core = config.makeApiClient(CoreV1Api);
    const rbac = config.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespace({ body: { metadata: { name: 'client-node' } } });
    const sa = await core.createNamespacedServiceAccount({ namespace: 'client-node', body: { metadata: { name: 'robot' } } });
    assert.equal(sa.metadata?.namespace, 'client-node');
    await rbac.createNamespacedRole({
      namespace: 'client-node',
      body: { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    });
    const roles = await rbac.listNamespacedRole({ namespace: 'client-node' });
    assert.deepEqual(
      roles.items.map((role) => role.metadata?.name),
      ['reader'],
    );
    const namespaces = await core.listNamespace();
    assert.ok(namespaces.items.some((ns) => ns.metadata?.name === 'kube-system'));
  });

  it('watches', async () => {
    const rbac = config.makeApiClient(RbacAuthorizationV1Api);
    const seen: string[] = [];
    const watch = new Watch(config);
    const request = await watch.watch(
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
      {},
      (type, object: { metadata?: { name?: string } }) => seen.push(`${type} ${object.metadata?.name}`),
      () => {},
    );
    try {
      await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: 'watched' }, rules: [] } });
      const deadline = Date.now() + 10_000;
      while (!seen.includes('ADDED watched') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(seen.includes('ADDED watched'), seen.join());
    } finally {
      request.abort();
    }
  });
});
