// bench/storage: creates and gets through the Storage interface beside the same operations made
// with the raw etcd3 client, in one run against one etcd, sequential and 64 at a time.
// Prints JSON; the ratio (interface / raw) is what to compare across machines.
import { Etcd3 } from 'etcd3';
import { createStorage, type Storage } from '@plat/storage';
import { startEtcd } from '@plat/storage/testing';
import { measure } from '../throughput.js';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 6000);
const IN_FLIGHT = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** An object of the size of a small ConfigMap or Role (~600 bytes of JSON). */
const objectNamed = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'bench', uid: `uid-${name}`, labels: { app: 'bench', tier: 'storage' } },
  data: { payload: 'x'.repeat(400) },
});

interface Operations {
  create(index: number): Promise<unknown>;
  get(index: number): Promise<unknown>;
}

function throughStorage(storage: Storage, run: string): Operations {
  const key = (index: number) => `/core/configmaps/bench/${run}-${index}`;
  return {
    create: (index) => storage.create(key(index), objectNamed(`${run}-${index}`)),
    get: (index) => storage.get(key(index)),
  };
}

function throughRawEtcd(client: Etcd3, prefix: string, run: string): Operations {
  const key = (index: number) => Buffer.from(`${prefix}/core/configmaps/bench/${run}-${index}`);
  return {
    // The same create-if-absent transaction a create needs, without our encoding or decoding.
    create: async (index) => {
      const k = key(index);
      const response = await client.kv.txn({
        compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key: k, value: Buffer.from(JSON.stringify(objectNamed(`${run}-${index}`))) } }],
        failure: [],
      });
      if (!response.succeeded) throw new Error('raw create found the key taken');
    },
    get: async (index) => {
      const response = await client.kv.range({ key: key(index) });
      if (!response.kvs[0]) throw new Error('raw get found nothing');
      JSON.parse(response.kvs[0].value.toString());
    },
  };
}

type Figures = Record<'sequentialCreate' | 'sequentialGet' | 'concurrentCreate' | 'concurrentGet', number>;

async function runAll(ops: (run: string) => Operations, run: string): Promise<Figures> {
  const sequential = ops(`${run}-s`);
  const concurrent = ops(`${run}-c`);
  return {
    sequentialCreate: await measure(SEQUENTIAL, 1, sequential.create),
    sequentialGet: await measure(SEQUENTIAL, 1, sequential.get),
    concurrentCreate: await measure(CONCURRENT, IN_FLIGHT, concurrent.create),
    concurrentGet: await measure(CONCURRENT, IN_FLIGHT, concurrent.get),
  };
}

const best = (a: Figures | undefined, b: Figures): Figures =>
  a ? (Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Math.max(v, a[k as keyof Figures])])) as Figures) : b;

async function main(): Promise<void> {
  const external = process.env.ETCD_ENDPOINT;
  const etcd = external ? undefined : await startEtcd();
  const endpoint = external ?? etcd!.endpoint;
  const prefix = '/bench';
  const storage = createStorage({ backend: 'etcd3', etcdServers: [endpoint], prefix, compactionIntervalMs: 0 });
  const raw = new Etcd3({ hosts: endpoint, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  const memory = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  let viaStorage: Figures | undefined;
  let viaRaw: Figures | undefined;
  let viaMemory: Figures | undefined;
  try {
    // Alternate the two so that a noisy neighbour hurts both alike; keep each one's best round.
    for (let round = 0; round < ROUNDS; round++) {
      viaRaw = best(viaRaw, await runAll((run) => throughRawEtcd(raw, prefix, run), `raw${round}`));
      viaStorage = best(viaStorage, await runAll((run) => throughStorage(storage, run), `storage${round}`));
      viaMemory = best(viaMemory, await runAll((run) => throughStorage(memory, run), `memory${round}`));
    }
  } finally {
    await storage.close();
    await memory.close();
    raw.close();
    await etcd?.stop();
  }
  const ratio = Object.fromEntries(
    Object.entries(viaStorage!).map(([k, v]) => [k, Math.round((v / viaRaw![k as keyof Figures]) * 100) / 100]),
  );
  const result = {
    benchmark: 'storage',
    unit: 'operations/s',
    sequential: SEQUENTIAL,
    concurrent: { operations: CONCURRENT, inFlight: IN_FLIGHT },
    rounds: ROUNDS,
    etcd3Storage: viaStorage,
    rawEtcd3: viaRaw,
    ratio,
    memoryStorage: viaMemory,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
