// bench/secrets, encryption at rest: Secret creates/s at 64 in flight through a replica whose
// Secrets go through aesgcm against one whose Secrets are stored as they are (identity), both on
// the same etcd in the same run, driven in alternating rounds after both have warmed up (one is
// idle while the other is measured): the ratio of the medians, and each replica's CPU per create
// (which other work on a shared machine disturbs less than throughput). Beside it, what one
// value's transformation costs in process for each provider (µs per Secret of this size, each way).
// Prints JSON.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@plat/storage/testing';
import { AesCbcTransformer, AesGcmTransformer, SecretboxTransformer, type ValueTransformer } from '@plat/storage';
import { measure } from '../throughput.js';
import { cpuSeconds, machineBusySeconds } from '../proc.js';
import { Client, IN_FLIGHT, median, round, startReplica } from '../api/replica.js';

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 3000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRANSFORMS = Number(process.env.BENCH_TRANSFORMS ?? 20_000);

const PAYLOAD = randomBytes(300).toString('base64');

const secret = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'bench', labels: { app: 'bench', tier: 'api' } },
  type: 'Opaque',
  data: { 'tls.key': PAYLOAD, password: 'aHVudGVyMg==' },
});

const config = (provider: string): string =>
  `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n${provider}`;

/** µs per transformation each way of a value the size of a stored bench Secret. */
function transformCost(transformer: ValueTransformer): { toStorageUs: number; fromStorageUs: number } {
  const value = Buffer.from(JSON.stringify(secret('bench-secret-0000')));
  const context = Buffer.from('/registry/core/secrets/bench/bench-secret-0000');
  const stored = transformer.toStorage(value, context);
  for (let i = 0; i < 2000; i++) transformer.fromStorage(transformer.toStorage(value, context), context);
  let started = process.hrtime.bigint();
  for (let i = 0; i < TRANSFORMS; i++) transformer.toStorage(value, context);
  const toStorageUs = Number(process.hrtime.bigint() - started) / 1e3 / TRANSFORMS;
  started = process.hrtime.bigint();
  for (let i = 0; i < TRANSFORMS; i++) transformer.fromStorage(stored, context);
  const fromStorageUs = Number(process.hrtime.bigint() - started) / 1e3 / TRANSFORMS;
  return { toStorageUs: round(toStorageUs), fromStorageUs: round(fromStorageUs) };
}

async function main(): Promise<void> {
  const key = randomBytes(32);
  const inProcess = {
    valueBytes: JSON.stringify(secret('bench-secret-0000')).length,
    aesgcm: transformCost(new AesGcmTransformer(key)),
    aescbc: transformCost(new AesCbcTransformer(key)),
    secretbox: transformCost(new SecretboxTransformer(key)),
  };

  const etcd = await startEtcd();
  const dir = await mkdtemp(join(tmpdir(), 'plat-bench-secrets-'));
  const token = `bench-admin-${process.pid}`;
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const aesgcmFile = join(dir, 'aesgcm.yaml');
  const identityFile = join(dir, 'identity.yaml');
  await writeFile(aesgcmFile, config(`      - aesgcm:\n          keys: [{name: key1, secret: ${key.toString('base64')}}]\n`));
  await writeFile(identityFile, config('      - identity: {}\n'));
  const common = [`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0', '--api-domain=k8s.io'];
  // Two replicas on one etcd, one key prefix each, so that neither reads the other's Secrets.
  const encrypted = await startReplica([...common, '--etcd-prefix=/aesgcm', `--encryption-provider-config=${aesgcmFile}`]);
  const clear = await startReplica([...common, '--etcd-prefix=/identity', `--encryption-provider-config=${identityFile}`]);
  const clients = { aesgcm: new Client(encrypted, token), identity: new Client(clear, token) };
  try {
    for (const client of Object.values(clients)) {
      await client.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    }
    const create = (client: Client, round: number, i: number) => client.ok('POST', '/api/v1/namespaces/bench/secrets', secret(`s${round}-${i}`));
    await measure(WARM_UP, IN_FLIGHT, (i) => create(clients.aesgcm, -1, i));
    await measure(WARM_UP, IN_FLIGHT, (i) => create(clients.identity, -1, i));
    const aesgcm: number[] = [];
    const identity: number[] = [];
    const cpu = { aesgcm: 0, identity: 0 };
    /** Creates/s of one round, adding the replica's CPU seconds to its total. */
    const timedRound = async (name: 'aesgcm' | 'identity', replica: { pid: number }, r: number): Promise<number> => {
      const before = await cpuSeconds(replica.pid);
      const rate = await measure(OPERATIONS, IN_FLIGHT, (i) => create(clients[name], r, i));
      cpu[name] += (await cpuSeconds(replica.pid)) - before;
      return rate;
    };
    const busyBefore = await machineBusySeconds();
    const started = Date.now();
    for (let r = 0; r < ROUNDS; r++) {
      aesgcm.push(await timedRound('aesgcm', encrypted, r));
      identity.push(await timedRound('identity', clear, r));
    }
    // Cores busy on average (2 here): near 2 means the run shared the machine with other work.
    const machineBusyCores = round(((await machineBusySeconds()) - busyBefore) / ((Date.now() - started) / 1000));
    const medians = { aesgcm: median(aesgcm), identity: median(identity) };
    const cpuUsPerCreate = { aesgcm: Math.round((cpu.aesgcm / (ROUNDS * OPERATIONS)) * 1e6), identity: Math.round((cpu.identity / (ROUNDS * OPERATIONS)) * 1e6) };
    console.log(
      JSON.stringify(
        {
          secretCreates: {
            inFlight: IN_FLIGHT,
            operationsPerRound: OPERATIONS,
            aesgcmPerSecond: aesgcm,
            identityPerSecond: identity,
            medians,
            ratio: round(medians.aesgcm / medians.identity),
            replicaCpuUsPerCreate: cpuUsPerCreate,
            cpuRatio: round(cpuUsPerCreate.aesgcm / cpuUsPerCreate.identity),
            machineBusyCores,
          },
          transformInProcess: inProcess,
        },
        null,
        2,
      ),
    );
  } finally {
    await encrypted.stop();
    await clear.stop();
    await etcd.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
