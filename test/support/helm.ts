// helm/plat rendered by the helm that `make test` puts in .tools/helm (scripts/fetch-helm.mjs), for
// the chart's tests: lint and template runs with helm's state in a folder of this run, and the
// rendered objects.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART = join(ROOT, 'helm/plat');
export const HELM = join(ROOT, '.tools/helm');
export const RELEASE = 'rel';
export const NAMESPACE = 'plat-system';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Rendered Kubernetes objects of many kinds, read field by field by the tests: typing each
  // kind's schema here would repeat Kubernetes' API for a test.
  [field: string]: any;
}

/** helm with its state in a folder of this run, never the user's. */
export function helm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const home = join(tmpdir(), `plat-helm-home-${process.pid}`);
  const result = spawnSync(HELM, args, {
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `helm template` with these `--set` values: the rendered objects. */
export function render(values: string[] = []): Manifest[] {
  const result = helm(['template', RELEASE, CHART, '--namespace', NAMESPACE, ...values.flatMap((value) => ['--set', value])]);
  assert.equal(result.status, 0, result.stderr);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

export const find = (manifests: Manifest[], kind: string, name: string): Manifest => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  assert.ok(found, `${kind} ${name} among ${manifests.map((m) => `${m.kind} ${m.metadata.name}`).join(', ')}`);
  return found;
};

export const apiserverOf = (manifests: Manifest[]): Manifest => find(manifests, 'Deployment', `${RELEASE}-plat-apiserver`);
export const containerOf = (deployment: Manifest): Manifest => deployment.spec.template.spec.containers[0];
