// kubectl's auth commands, unchanged, against a replica serving Kubernetes' names
// (--api-domain=k8s.io): auth can-i (yes/no, --list, --as), auth whoami and create token.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { authFiles, type AuthFiles } from './support/auth.js';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);

describe('kubectl auth against --api-domain=k8s.io', () => {
  let server: ApiserverProcess;
  let files: AuthFiles;
  let workDir: string;
  const kubeconfigs: Record<string, Awaited<ReturnType<typeof writeKubeconfig>>> = {};

  /** kubectl as `user` (admin or bob); resolves with stdout and the exit code (can-i exits 1 for "no"). */
  const kubectl = async (user: 'admin' | 'bob', ...args: string[]): Promise<{ stdout: string; code: number }> => {
    try {
      const { stdout } = await run('kubectl', [`--kubeconfig=${kubeconfigs[user]!.path}`, ...args], {
        env: { ...process.env, HOME: workDir, KUBECACHEDIR: join(workDir, `cache-${user}`) },
      });
      return { stdout, code: 0 };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw error;
      return { stdout: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, code: failed.code };
    }
  };
  const ok = async (user: 'admin' | 'bob', ...args: string[]): Promise<string> => {
    const { stdout, code } = await kubectl(user, ...args);
    assert.equal(code, 0, stdout);
    return stdout;
  };

  before(async () => {
    files = await authFiles([{ name: 'bob', token: 'bob-token', groups: ['devs'] }]);
    server = await startApiserver([
      '--storage-backend=memory',
      '--api-domain=k8s.io',
      `--token-auth-file=${files.tokenFile}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-signing-key-file=${files.signingKeyFile}`,
    ]);
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
    kubeconfigs.admin = await writeKubeconfig(server, files.admin);
    kubeconfigs.bob = await writeKubeconfig(server, 'bob-token');
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-kubectl-auth-'));
  });
  after(async () => {
    await server?.stop();
    for (const config of Object.values(kubeconfigs)) await config.cleanup();
    await files?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('auth whoami', async () => {
    const admin = JSON.parse(await ok('admin', 'auth', 'whoami', '-o', 'json')) as { kind: string; status: { userInfo: { username: string; groups: string[] } } };
    assert.equal(admin.kind, 'SelfSubjectReview');
    assert.deepEqual(admin.status.userInfo, { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] });
    const table = await ok('bob', 'auth', 'whoami');
    assert.match(table, /^Username\s+bob$/m);
    assert.match(table, /^Groups\s+\[devs system:authenticated\]$/m);
  });

  it('auth can-i: yes and no', async () => {
    assert.deepEqual(await kubectl('admin', 'auth', 'can-i', 'delete', 'namespaces'), { stdout: 'yes\n', code: 0 });
    assert.deepEqual(await kubectl('bob', 'auth', 'can-i', 'list', 'serviceaccounts', '-n', 'default'), { stdout: 'no\n', code: 1 });
    assert.deepEqual(await kubectl('bob', 'auth', 'can-i', 'get', '/healthz'), { stdout: 'yes\n', code: 0 });
    await ok('admin', 'create', 'rolebinding', 'bob-views', '--clusterrole=view', '--user=bob', '-n', 'default');
    await eventually('the grant', async () => (await kubectl('bob', 'auth', 'can-i', 'list', 'serviceaccounts', '-n', 'default')).code === 0, 5000);
    assert.deepEqual(await kubectl('bob', 'auth', 'can-i', 'list', 'serviceaccounts', '-n', 'kube-system'), { stdout: 'no\n', code: 1 });
    assert.deepEqual(await kubectl('bob', 'auth', 'can-i', 'delete', 'serviceaccounts', '-n', 'default'), { stdout: 'no\n', code: 1 });
  });

  it('auth can-i --list', async () => {
    const list = await ok('bob', 'auth', 'can-i', '--list', '-n', 'default');
    assert.match(list, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
    assert.match(list, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.match(list, /^serviceaccounts\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(list, /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);
    const admin = await ok('admin', 'auth', 'can-i', '--list');
    assert.match(admin, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  });

  it('auth can-i --as: impersonation, allowed to the admin only', async () => {
    assert.deepEqual(await kubectl('admin', 'auth', 'can-i', 'list', 'serviceaccounts', '-n', 'default', '--as=bob'), { stdout: 'yes\n', code: 0 });
    assert.deepEqual(await kubectl('admin', 'auth', 'can-i', 'list', 'serviceaccounts', '-n', 'default', '--as=carol'), { stdout: 'no\n', code: 1 });
    assert.deepEqual(
      await kubectl('admin', 'auth', 'can-i', 'list', 'serviceaccounts', '-n', 'default', '--as=carol', '--as-group=system:masters'),
      { stdout: 'yes\n', code: 0 },
    );
    const refused = await kubectl('bob', 'auth', 'can-i', 'list', 'serviceaccounts', '--as=carol');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout, /users "carol" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);
  });

  it('create token', async () => {
    await ok('admin', 'create', 'serviceaccount', 'robot', '-n', 'default');
    const token = (await ok('admin', 'create', 'token', 'robot', '-n', 'default')).trim();
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>;
    assert.equal(payload.sub, 'system:serviceaccount:default:robot');
    assert.deepEqual(payload.aud, ['https://kubernetes.default.svc']);
    assert.equal(payload['kubernetes.io'].serviceaccount.name, 'robot');
    assert.equal(payload.exp - payload.iat, 3600);
    const whoami = JSON.parse(await ok('bob', 'auth', 'whoami', '-o', 'json', `--token=${token}`)) as { status: { userInfo: { username: string; groups: string[] } } };
    assert.equal(whoami.status.userInfo.username, 'system:serviceaccount:default:robot');
    assert.deepEqual(whoami.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);

    const custom = (await ok('admin', 'create', 'token', 'robot', '-n', 'default', '--duration=20m', '--audience=vault')).trim();
    const claims = JSON.parse(Buffer.from(custom.split('.')[1]!, 'base64url').toString()) as Record<string, any>;
    assert.deepEqual(claims.aud, ['vault']);
    assert.equal(claims.exp - claims.iat, 1200);
    const short = await kubectl('admin', 'create', 'token', 'robot', '-n', 'default', '--duration=5m');
    assert.notEqual(short.code, 0);
    assert.match(short.stdout, /may not specify a duration less than 10 minutes/);
  });
});
