// ValidatingAdmissionPolicy end to end, in k8s.io mode with the real kubectl against two replicas
// on one etcd: a policy and its binding, written through one replica, limit the ServiceAccounts of
// the namespaces labelled restricted=true to those labelled with the namespace's team, on the other
// replica within a second; server-side dry runs are checked the same; with the binding's action
// switched to Warn, kubectl prints the warning; the server writes the policy's status; each
// replica counts what it checked in apiserver_validating_admission_policy_*, and promtool passes it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);
const GROUP = 'admissionregistration.k8s.io';

const policy = {
  apiVersion: `${GROUP}/v1beta1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'serviceaccount-team' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['serviceaccounts'] }],
      namespaceSelector: { matchLabels: { restricted: 'true' } },
    },
    variables: [{ name: 'team', expression: 'has(object.metadata.labels) && "team" in object.metadata.labels ? object.metadata.labels.team : ""' }],
    validations: [
      {
        expression: 'variables.team == namespaceObject.metadata.labels.team',
        messageExpression: '"ServiceAccounts in " + request.namespace + " need the label team=" + namespaceObject.metadata.labels.team',
        reason: 'Forbidden',
      },
    ],
  },
};

const binding = (actions: string[]) => ({
  apiVersion: `${GROUP}/v1beta1`,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'serviceaccount-team' },
  spec: { policyName: 'serviceaccount-team', validationActions: actions },
});

const namespace = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const account = (name: string, ns: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, ...(labels && { labels }) } });

describe('ValidatingAdmissionPolicy: kubectl against two replicas on etcd (k8s.io)', () => {
  let etcd: TestEtcd;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let replicas: [ApiserverProcess, ApiserverProcess];
  let kubeconfigs: { path: string; cleanup: () => Promise<void> }[];
  let workDir: string;

  /** kubectl against replica 0 or 1: its stdout and stderr, or its failure with them. */
  const kubectl = async (replica: 0 | 1, ...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run('kubectl', [`--kubeconfig=${kubeconfigs[replica]!.path}`, ...args], { env: { ...process.env, HOME: workDir, KUBECACHEDIR: join(workDir, `cache-${replica}`) } });
  const stderrOf = async (promise: Promise<unknown>): Promise<string | undefined> => {
    try {
      await promise;
      return undefined;
    } catch (error) {
      return (error as { stderr: string }).stderr;
    }
  };
  const file = async (name: string, content: unknown): Promise<string> => {
    const path = join(workDir, name);
    await writeFile(path, JSON.stringify(content));
    return path;
  };

  before(async () => {
    etcd = await sharedEtcd();
    tokens = await adminTokenFile();
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-policies-'));
    const args = [
      ...etcd.flags,
      `--token-auth-file=${tokens.file}`,
      '--api-domain=k8s.io',
      '--feature-gates=ValidatingAdmissionPolicy=true',
      `--runtime-config=${GROUP}/v1beta1=true`,
    ];
    replicas = (await Promise.all([0, 1].map(() => startApiserver(args)))) as [ApiserverProcess, ApiserverProcess];
    for (const replica of replicas) await eventually('readyz', async () => (await replica.request('/readyz')).status === 200);
    kubeconfigs = await Promise.all(replicas.map((replica) => writeKubeconfig(replica, tokens.token)));
    await kubectl(0, 'create', '-f', await file('namespaces.json', { apiVersion: 'v1', kind: 'List', items: [namespace('team-a', { restricted: 'true', team: 'a' }), namespace('open', { team: 'b' })] }));
  });
  after(async () => {
    const codes = await Promise.all((replicas ?? []).map((replica) => replica?.stop()));
    await etcd?.stop();
    for (const kubeconfig of kubeconfigs ?? []) await kubeconfig.cleanup();
    await tokens?.cleanup();
    await rm(workDir, { recursive: true, force: true });
    assert.deepEqual(codes, [0, 0]);
  });

  it('a policy and binding written through one replica are enforced by the other within a second', async () => {
    await kubectl(0, 'create', '-f', await file('policy.json', policy));
    await kubectl(0, 'create', '-f', await file('binding.json', binding(['Deny'])));
    const written = performance.now();
    // Each probe is a server-side dry run, checked as the real request would be, sent to the other
    // replica directly: kubectl's own start (a few hundred ms, more on a busy machine) is not what is
    // measured. kubectl's message is checked once enforced.
    let refused: { status: number; body: string } | undefined;
    for (let i = 0; performance.now() - written < 5000; i++) {
      const probe = await replicas[1].request('/api/v1/namespaces/team-a/serviceaccounts?dryRun=All', {
        token: tokens.token,
        method: 'POST',
        body: { metadata: { name: `probe-${i}` } },
      });
      if (probe.status !== 201) {
        refused = probe;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsed = performance.now() - written;
    assert.ok(refused, 'the policy was never enforced');
    assert.equal(refused.status, 403, refused.body);
    assert.ok(elapsed < 1000, `enforced on the other replica after ${Math.round(elapsed)} ms`);
    const stderr = await stderrOf(kubectl(1, 'create', 'serviceaccount', 'probe', '-n', 'team-a', '--dry-run=server'));
    assert.match(
      stderr ?? '',
      /error: failed to create serviceaccount: serviceaccounts "probe" is forbidden: ValidatingAdmissionPolicy 'serviceaccount-team' with binding 'serviceaccount-team' denied request: ServiceAccounts in team-a need the label team=a/,
    );
  });

  it('the ServiceAccounts the label allows are created; other namespaces are not limited', async () => {
    await kubectl(1, 'create', '-f', await file('good.json', account('builder', 'team-a', { team: 'a' })));
    const refused = await stderrOf(kubectl(1, 'create', '-f', await file('bad.json', account('intruder', 'team-a', { team: 'b' }))));
    assert.match(refused ?? '', /serviceaccounts "intruder" is forbidden: ValidatingAdmissionPolicy 'serviceaccount-team' with binding 'serviceaccount-team' denied request: ServiceAccounts in team-a need the label team=a/);
    await kubectl(0, 'create', 'serviceaccount', 'anything', '-n', 'open');
    // An update that drops the label is refused too.
    const relabel = await stderrOf(kubectl(0, 'label', 'serviceaccount', 'builder', '-n', 'team-a', 'team-'));
    assert.match(relabel ?? '', /denied request: ServiceAccounts in team-a need the label team=a/);
  });

  it('with the binding\'s action switched to Warn, kubectl prints the warning and the ServiceAccount is created', async () => {
    // replace, not apply: validationActions is a set, which apply would merge with the Deny already there.
    await kubectl(1, 'replace', '-f', await file('warn.json', binding(['Warn'])));
    let result: { stdout: string; stderr: string } | undefined;
    await eventually('the binding\'s Warn on replica 0', async () => {
      result = await kubectl(0, 'create', 'serviceaccount', `warned-${Date.now()}`, '-n', 'team-a').catch(() => undefined);
      return result !== undefined;
    });
    assert.match(result!.stdout, /serviceaccount\/warned-\d+ created/);
    assert.match(result!.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'serviceaccount-team' with binding 'serviceaccount-team': ServiceAccounts in team-a need the label team=a/);
  });

  it('each replica counts the checks it made and the policy it holds; promtool check metrics passes', async () => {
    const series = (action: string, name = 'check_total') =>
      `apiserver_validating_admission_policy_${name}{policy="serviceaccount-team",policy_binding="serviceaccount-team",enforcement_action="${action}",state="active"}`;
    const value = (metrics: string, name: string): number | undefined => {
      const line = metrics.split('\n').find((text) => text.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(name.length + 1));
    };
    const scrape = async (replica: 0 | 1): Promise<string> => (await replicas[replica].request('/metrics', { token: tokens.token })).body;
    const [first, second] = [await scrape(0), await scrape(1)];
    // Replica 1 refused the dry-run probe and the intruder; replica 0 the relabelling, and it warned.
    assert.ok((value(second, series('deny')) ?? 0) >= 2, second);
    assert.ok((value(first, series('deny')) ?? 0) >= 1, first);
    assert.ok((value(first, series('warn')) ?? 0) >= 1, first);
    assert.equal(value(first, series('warn', 'check_duration_seconds_count')), value(first, series('warn')));
    for (const metrics of [first, second]) {
      assert.equal(value(metrics, 'apiserver_validating_admission_policy_definition_total{state="active",enforcement_action="deny"}'), 1);
    }
    if (spawnSync('promtool', ['--version']).status === 0) {
      const result = spawnSync('promtool', ['check', 'metrics'], { input: first, encoding: 'utf8' });
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    }
  });

  it('kubectl lists the policy and the binding with upstream\'s columns; the server wrote the status', async () => {
    const policies = (await kubectl(1, 'get', 'validatingadmissionpolicies')).stdout;
    assert.match(policies, /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\nserviceaccount-team\s+1\s+<unset>\s+\S+\n$/);
    const bindings = (await kubectl(0, 'get', 'validatingadmissionpolicybindings')).stdout;
    assert.match(bindings, /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\nserviceaccount-team\s+serviceaccount-team\s+<unset>\s+\S+\n$/);
    await eventually('the status', async () => (await kubectl(0, 'get', 'validatingadmissionpolicy', 'serviceaccount-team', '-o', 'jsonpath={.status.observedGeneration}')).stdout === '1');
    const status = JSON.parse((await kubectl(0, 'get', 'validatingadmissionpolicy', 'serviceaccount-team', '-o', 'json')).stdout) as { status: unknown };
    assert.deepEqual(status.status, { observedGeneration: 1, typeChecking: {} });
  });
});
