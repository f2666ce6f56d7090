// A kubeconfig of our own, in a temporary folder, for kubectl and client libraries under test.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ApiserverProcess } from './apiserver-process.js';

const run = promisify(execFile);

/** For a server given by its URL and CA: a replica process, or a server started in the test's own process. */
export async function writeKubeconfig(server: Pick<ApiserverProcess, 'url' | 'ca'>, token: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-kubeconfig-'));
  const path = join(dir, 'kubeconfig');
  await writeFile(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: plat',
      '  cluster:',
      `    server: ${server.url}`,
      `    certificate-authority-data: ${Buffer.from(server.ca).toString('base64')}`,
      'users:',
      '- name: admin',
      '  user:',
      `    token: ${token}`,
      'contexts:',
      '- name: plat',
      '  context: {cluster: plat, user: admin}',
      'current-context: plat',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return { path, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * kubectl with this kubeconfig, its home and caches in `home`: its output (stdout, and stderr too
 * when it fails) and exit code.
 */
export async function runKubectl(kubeconfig: string, home: string, args: readonly string[]): Promise<{ out: string; code: number }> {
  try {
    const { stdout } = await run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { env: { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') } });
    return { out: stdout, code: 0 };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { out: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, code: failed.code };
  }
}

/**
 * kubectl with this kubeconfig, its home and caches in `home`: its stdout and stderr. A failure
 * rejects with execFile's error, which carries both.
 */
export function kubectlIn(kubeconfig: string, home: string, args: readonly string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { env: { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache'), ...env } });
}
