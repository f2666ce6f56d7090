// bench/policies, ValidatingAdmissionPolicy: one plat-apiserver replica on etcd (k8s.io, the
// ValidatingAdmissionPolicy gate on), driven over HTTPS at 64 in flight: creates/s of ServiceAccounts
// with 0, 1 and 20 policies bound to them, and with 20 bound to another resource only (ConfigMaps:
// what a request no policy selects pays), in alternating rounds of one run after a warm-up, with the
// replica's CPU per create. Each policy has a variable, two validations and a message expression.
// Prints JSON.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@plat/storage/testing';
import { measure } from '../throughput.js';
import { cpuSeconds, machineBusySeconds } from '../proc.js';
import { Client, IN_FLIGHT, median, round, startReplica } from '../api/replica.js';

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 3000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MANY = 20;

const GROUP = 'admissionregistration.k8s.io';
const POLICIES = `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings`;
const ACCOUNTS = '/api/v1/namespaces/bench/serviceaccounts';

const serviceAccount = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'bench', labels: { app: 'bench', tier: 'api' }, annotations: { payload: 'x'.repeat(400) } },
});

/** A policy that every bench ServiceAccount passes; `forbidden-<i>` it refuses (to see that it is in force). */
const policy = (i: number, resource: string) => ({
  apiVersion: `${GROUP}/v1beta1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: `p${i}-${resource}` },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [resource] }] },
    variables: [{ name: 'labels', expression: 'has(object.metadata.labels) ? object.metadata.labels : {}' }],
    validations: [
      { expression: `object.metadata.name != "forbidden-${i}"`, message: 'canary' },
      {
        expression: 'variables.labels.all(k, k.size() < 64 && variables.labels[k].size() < 64) && object.metadata.name.size() < 64',
        messageExpression: '"labels and names are short: " + object.metadata.name',
      },
    ],
  },
});

const binding = (i: number, resource: string) => ({
  apiVersion: `${GROUP}/v1beta1`,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: `p${i}-${resource}` },
  spec: { policyName: `p${i}-${resource}`, validationActions: ['Deny'] },
});

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether policy i's canary is refused: the policy and its binding are in force on the replica. */
const inForce = async (client: Client, i: number, path = ACCOUNTS, resource = 'serviceaccounts'): Promise<boolean> => {
  const kind = resource === 'serviceaccounts' ? 'ServiceAccount' : 'ConfigMap';
  const { status } = await client.call('POST', `${path}?dryRun=All`, { apiVersion: 'v1', kind, metadata: { name: `forbidden-${i}`, namespace: 'bench' } });
  return status === 422;
};

async function main(): Promise<void> {
  const etcd = await startEtcd();
  const tokenDir = await mkdtemp(join(tmpdir(), 'plat-bench-tokens-'));
  const token = `bench-admin-${process.pid}`;
  const tokenFile = join(tokenDir, 'tokens.csv');
  await writeFile(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const replica = await startReplica([
    `--etcd-servers=${etcd.endpoint}`,
    `--token-auth-file=${tokenFile}`,
    '--etcd-compaction-interval=0',
    '--api-domain=k8s.io',
    '--feature-gates=ValidatingAdmissionPolicy=true',
    `--runtime-config=${GROUP}/v1beta1=true`,
  ]);
  const client = new Client(replica, token);
  try {
    await client.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });

    /** Binds policies 0..count-1 to `resource` (those not bound yet), and waits until each is in force. */
    const bindUpTo = async (count: number, resource: string, from = 0): Promise<void> => {
      for (let i = from; i < count; i++) {
        await client.ok('POST', POLICIES, policy(i, resource));
        await client.ok('POST', BINDINGS, binding(i, resource));
      }
      const path = resource === 'serviceaccounts' ? ACCOUNTS : '/api/v1/namespaces/bench/configmaps';
      for (let i = from; i < count; i++) await until(`policy ${i} on ${resource}`, () => inForce(client, i, path, resource));
    };
    const unbindAll = async (count: number, resource: string): Promise<void> => {
      for (let i = 0; i < count; i++) {
        await client.ok('DELETE', `${BINDINGS}/p${i}-${resource}`);
        await client.ok('DELETE', `${POLICIES}/p${i}-${resource}`);
      }
      if (resource === 'serviceaccounts') for (let i = 0; i < count; i++) await until(`policy ${i} gone`, async () => !(await inForce(client, i)));
      else for (let i = 0; i < count; i++) await until(`policy ${i} gone`, async () => !(await inForce(client, i, '/api/v1/namespaces/bench/configmaps', 'configmaps')));
    };

    let seq = 0;
    const creates = (): Promise<number> => measure(OPERATIONS, IN_FLIGHT, () => client.ok('POST', ACCOUNTS, serviceAccount(`sa-${seq++}`)));
    const cpu: Record<string, number> = { none: 0, one: 0, many: 0, otherResource: 0 };
    const measured = async (name: string): Promise<number> => {
      const before = await cpuSeconds(replica.pid);
      const rate = await creates();
      cpu[name]! += (await cpuSeconds(replica.pid)) - before;
      return rate;
    };

    // Warm-up: the JIT, connections, the watch cache; with and without a policy.
    await measure(WARM_UP, IN_FLIGHT, () => client.ok('POST', ACCOUNTS, serviceAccount(`sa-${seq++}`)));
    await bindUpTo(1, 'serviceaccounts');
    await measure(WARM_UP, IN_FLIGHT, () => client.ok('POST', ACCOUNTS, serviceAccount(`sa-${seq++}`)));
    await unbindAll(1, 'serviceaccounts');

    const rates: Record<string, number[]> = { none: [], one: [], many: [], otherResource: [] };
    const started = Date.now();
    const busyBefore = await machineBusySeconds();
    for (let r = 0; r < ROUNDS; r++) {
      rates.none!.push(await measured('none'));
      await bindUpTo(1, 'serviceaccounts');
      rates.one!.push(await measured('one'));
      await bindUpTo(MANY, 'serviceaccounts', 1);
      rates.many!.push(await measured('many'));
      await unbindAll(MANY, 'serviceaccounts');
      await bindUpTo(MANY, 'configmaps');
      rates.otherResource!.push(await measured('otherResource'));
      await unbindAll(MANY, 'configmaps');
    }
    const machineBusyCores = round(((await machineBusySeconds()) - busyBefore) / ((Date.now() - started) / 1000));
    const medians = Object.fromEntries(Object.entries(rates).map(([name, values]) => [name, median(values)])) as Record<string, number>;
    const cpuMsPerCreate = Object.fromEntries(Object.entries(cpu).map(([name, seconds]) => [name, round((seconds * 1000) / (OPERATIONS * ROUNDS))]));
    console.log(
      JSON.stringify(
        {
          creates: {
            inFlight: IN_FLIGHT,
            operationsPerRound: OPERATIONS,
            rounds: ROUNDS,
            serviceAccountsPerSecond: { noPolicy: rates.none, onePolicyBound: rates.one, [`${MANY}PoliciesBound`]: rates.many, [`${MANY}PoliciesBoundToConfigMaps`]: rates.otherResource },
            medians: { noPolicy: medians.none, onePolicyBound: medians.one, [`${MANY}PoliciesBound`]: medians.many, [`${MANY}PoliciesBoundToConfigMaps`]: medians.otherResource },
            ratios: {
              onePolicyBound: round(medians.one! / medians.none!),
              [`${MANY}PoliciesBound`]: round(medians.many! / medians.none!),
              [`${MANY}PoliciesBoundToConfigMaps`]: round(medians.otherResource! / medians.none!),
            },
            replicaCpuMsPerCreate: cpuMsPerCreate,
          },
          machineBusyCores,
        },
        null,
        2,
      ),
    );
  } finally {
    client.close();
    await replica.stop();
    await etcd.stop();
    await rm(tokenDir, { recursive: true, force: true });
  }
}

await main();
