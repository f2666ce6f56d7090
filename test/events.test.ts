// Events end to end, on etcd and on the embedded SQLite backend: the controller-manager (each
// controller as its service account) fails to delete a namespace because an administrator narrowed
// the namespace controller's role, as upstream's NamespaceDeletionContentFailure arises from a 403;
// `kubectl get events` shows the Warning it records, counted while the failure repeats; once the
// role is restored and the controller stops failing, the event expires --event-ttl after its last
// write (an etcd lease on etcd, the embedded backend's expiry on SQLite).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { authFiles, type AuthFiles } from './support/auth.js';
import { startControllerManager, type ControllerManagerProcess } from './support/controller-manager-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

const TTL_SECONDS = 8;
const ROLE = 'system:controller:namespace-controller';
const MANAGER_TOKEN = 'e2e-events-controller-manager';

for (const backend of ['etcd3', 'sqlite'] as const) {
  describe(`events on ${backend}: a namespace deletion failure in kubectl get events, then its expiry`, () => {
    let etcd: TestEtcd | undefined;
    let auth: AuthFiles;
    let server: ApiserverProcess;
    let manager: ControllerManagerProcess;
    let workDir: string;
    let adminKubeconfig: string;
    const cleanups: (() => Promise<void>)[] = [];
    const kubectl = async (...args: string[]): Promise<string> => {
      const { stdout } = await kubectlIn(adminKubeconfig, workDir, args);
      return stdout;
    };

    before(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-events-'));
      auth = await authFiles([{ token: MANAGER_TOKEN, name: 'system:kube-controller-manager' }]);
      const storage = backend === 'etcd3' ? [...(etcd = await sharedEtcd()).flags] : ['--storage-backend=sqlite', `--storage-dir=${join(workDir, 'data')}`];
      server = await startApiserver([
        ...storage,
        '--api-domain=k8s.io',
        `--event-ttl=${TTL_SECONDS}s`,
        `--token-auth-file=${auth.tokenFile}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-signing-key-file=${auth.signingKeyFile}`,
      ]);
      await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
      const admin = await writeKubeconfig(server, auth.admin);
      const own = await writeKubeconfig(server, MANAGER_TOKEN);
      cleanups.push(admin.cleanup, own.cleanup);
      adminKubeconfig = admin.path;
      manager = await startControllerManager([`--kubeconfig=${own.path}`, '--use-service-account-credentials', '--leader-elect=false', '--api-domain=k8s.io']);
    });
    after(async () => {
      await manager?.stop();
      await server?.stop();
      await etcd?.stop();
      for (const cleanup of cleanups) await cleanup();
      await auth?.cleanup();
      await rm(workDir, { recursive: true, force: true });
    });

    it('kubectl get events shows the namespace controller\'s Warning, counted while it fails; it expires once the failure stops', async () => {
      // An administrator narrows the namespace controller's role: it may no longer delete ServiceAccounts.
      const original = JSON.parse(await kubectl('get', 'clusterrole', ROLE, '-o', 'json')) as { metadata: Record<string, unknown> };
      const groups = (await kubectl('api-versions')).trim().split('\n').map((gv) => (gv.includes('/') ? gv.split('/')[0]! : '')).filter((g) => g !== '');
      const coreButServiceAccounts = (await kubectl('api-resources', '--api-group=', '--namespaced=true', '-o', 'name')).trim().split('\n').filter((name) => name !== 'serviceaccounts');
      const narrowed = {
        ...original,
        rules: [
          { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'delete'] },
          { apiGroups: [''], resources: ['namespaces/finalize', 'namespaces/status'], verbs: ['update'] },
          { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list'] },
          { apiGroups: [''], resources: coreButServiceAccounts, verbs: ['delete', 'deletecollection'] },
          { apiGroups: [...new Set(groups)], resources: ['*'], verbs: ['delete', 'deletecollection'] },
          { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'update', 'patch'] },
        ],
      };
      await writeFile(join(workDir, 'narrowed.json'), JSON.stringify(narrowed));
      await kubectl('replace', '-f', join(workDir, 'narrowed.json'));

      await kubectl('create', 'namespace', 'e2e-stuck');
      await kubectl('-n', 'e2e-stuck', 'create', 'serviceaccount', 'keeper');
      await kubectl('delete', 'namespace', 'e2e-stuck', '--wait=false');

      let listed = '';
      await eventually('the namespace deletion failure in kubectl get events', async () => {
        listed = await kubectl('get', 'events', '-n', 'default');
        return /ContentDeletionFailed/.test(listed);
      }, 60_000);
      assert.match(listed, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
      assert.match(listed, /^\S+\s+Warning\s+ContentDeletionFailed\s+namespace\/e2e-stuck\s+Failed to delete all resource types, 1 remaining: serviceaccounts: serviceaccounts is forbidden: User "system:serviceaccount:kube-system:namespace-controller" cannot deletecollection resource "serviceaccounts" in API group "" in the namespace "e2e-stuck"$/m);
      // The same event again and again: one object, its count growing (the recorder's PATCH).
      await eventually('the failure counted', async () => {
        const events = JSON.parse(await kubectl('get', 'events', '-n', 'default', '--field-selector=reason=ContentDeletionFailed', '-o', 'json')) as { items: { count?: number }[] };
        return events.items.length === 1 && (events.items[0]!.count ?? 0) >= 2;
      }, 60_000);
      // Through events.k8s.io/v1 too, in that group's shape.
      const viaEvents = JSON.parse(await kubectl('get', 'events.v1.events.k8s.io', '-n', 'default', '--field-selector=reason=ContentDeletionFailed', '-o', 'json')) as { items: Record<string, any>[] };
      assert.deepEqual([viaEvents.items[0]!.regarding.name, viaEvents.items[0]!.deprecatedSource], ['e2e-stuck', { component: 'namespace-controller' }]);

      // The role restored: the next pass succeeds, no more writes renew the event, and it expires.
      const { resourceVersion: _stale, ...metadata } = original.metadata;
      await writeFile(join(workDir, 'original.json'), JSON.stringify({ ...original, metadata }));
      await kubectl('replace', '-f', join(workDir, 'original.json'));
      await eventually('the namespace gone', async () => !(await kubectl('get', 'namespaces', '-o', 'name')).includes('namespace/e2e-stuck'), 90_000);
      // Its last write came at the latest with the last failed pass, before the namespace went.
      await eventually('the event expired', async () => !/ContentDeletionFailed/.test(await kubectl('get', 'events', '-n', 'default')), (TTL_SECONDS + 10) * 1000);
    });
  });
}
