// bench/storage: creates and gets against one etcd, sequential and 64 at a time, four ways:
//   etcd3Storage   the Storage interface (encoding, preconditions, the transaction) over our channel
//   channel        the same create-if-absent transaction and range, our codec, over our channel
//                  (h2/session.ts: the transport every etcd call of a replica takes)
//   nodeHttp2      the same messages and codec over node:http2, the alternative transport
//   rawEtcd3       the etcd3 client (grpc-js), as a user of etcd from Node would write it
// and beside them the embedded backends through the same Storage interface: sqliteStorage (the
// persistent one, every acknowledged write fsynced; `make run`'s) and memoryStorage, with what the
// fsync costs SQLite alone (sqliteCommit: a commit of one row and of 64, synchronous=FULL against
// NORMAL, which syncs the log only at checkpoints).
// with the client process's CPU per operation beside each rate: on a shared machine the CPU a call
// costs the replica is the figure that decides between transports, and rates move with the load.
// Prints JSON; compare ratios across machines, not absolutes.
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { createStorage, type Storage } from '@plat/storage';
import { startEtcd } from '@plat/storage/testing';
import {
  EtcdChannel,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeRangeRequest,
  encodeTxnRequest,
  frame,
  grpcStatus,
  unframe,
} from '@plat/storage/etcd';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 6000);
const IN_FLIGHT = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RANGE = '/etcdserverpb.KV/Range';
const TXN = '/etcdserverpb.KV/Txn';

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

/** A unary gRPC call: the encoded request in, the encoded response out. */
type Unary = (path: string, request: Buffer) => Promise<Buffer>;

/** The store's create (a create-if-absent transaction) and get (a range), with our codec, over `call`. */
function throughCodec(call: Unary, prefix: string, run: string): Operations {
  const key = (index: number) => Buffer.from(`${prefix}/core/configmaps/bench/${run}-${index}`);
  return {
    create: async (index) => {
      const k = key(index);
      const request = encodeTxnRequest({
        compare: [{ key: k, result: 'Equal', modRevision: 0 }],
        success: [{ put: { key: k, value: Buffer.from(JSON.stringify(objectNamed(`${run}-${index}`))) } }],
        failure: [],
      });
      if (!decodeTxnResponse(await call(TXN, request)).succeeded) throw new Error('create found the key taken');
    },
    get: async (index) => {
      const response = decodeRangeResponse(await call(RANGE, encodeRangeRequest({ key: key(index) })));
      if (!response.kvs[0]) throw new Error('get found nothing');
      JSON.parse(response.kvs[0].value.toString());
    },
  };
}

/** Unary gRPC over node:http2: one session, a stream per call. */
function nodeHttp2(endpoint: string): { call: Unary; close(): void } {
  const session: ClientHttp2Session = connect(endpoint, { settings: { initialWindowSize: 32 << 20 } });
  session.on('error', () => {});
  const call: Unary = (path, request) =>
    new Promise((resolve, reject) => {
      const stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: path,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      const chunks: Buffer[] = [];
      let status: ReturnType<typeof grpcStatus>;
      stream.on('response', (headers) => (status ??= grpcStatus(Object.entries(headers).map(([k, v]) => [k, String(v)] as const))));
      stream.on('trailers', (trailers) => (status = grpcStatus(Object.entries(trailers).map(([k, v]) => [k, String(v)] as const))));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => {
        if (!status || status.status !== 0) return reject(new Error(`gRPC status ${status?.status}: ${status?.message}`));
        resolve(unframe(Buffer.concat(chunks)));
      });
      stream.end(frame(request));
    });
  return { call, close: () => session.close() };
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

type Phase = 'sequentialCreate' | 'sequentialGet' | 'concurrentCreate' | 'concurrentGet';
/** Per phase: operations per second, and microseconds of this process's CPU per operation. */
type Figures = Record<Phase, { opsPerSecond: number; cpuMicrosPerOp: number }>;

/** Runs `op` for indexes 0..count-1, `inFlight` at a time. */
async function measure(count: number, inFlight: number, op: (index: number) => Promise<unknown>): Promise<{ opsPerSecond: number; cpuMicrosPerOp: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await op(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { opsPerSecond: Math.round(count / seconds), cpuMicrosPerOp: Math.round((used.user + used.system) / count) };
}

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

/** Each phase's best round: the most operations per second, the least CPU per operation. */
const best = (a: Figures | undefined, b: Figures): Figures =>
  a
    ? (Object.fromEntries(
        (Object.keys(b) as Phase[]).map((phase) => [
          phase,
          { opsPerSecond: Math.max(a[phase].opsPerSecond, b[phase].opsPerSecond), cpuMicrosPerOp: Math.min(a[phase].cpuMicrosPerOp, b[phase].cpuMicrosPerOp) },
        ]),
      ) as Figures)
    : b;

/** `figures` relative to `base`: rate ratio and CPU ratio per phase (above 1: more of it). */
const relative = (figures: Figures, base: Figures) =>
  Object.fromEntries(
    (Object.keys(figures) as Phase[]).map((phase) => [
      phase,
      {
        opsPerSecond: Math.round((figures[phase].opsPerSecond / base[phase].opsPerSecond) * 100) / 100,
        cpuMicrosPerOp: Math.round((figures[phase].cpuMicrosPerOp / base[phase].cpuMicrosPerOp) * 100) / 100,
      },
    ]),
  );

/** Milliseconds per commit of `rows` rows (~600 bytes each) into a WAL-mode database, per `synchronous` setting. */
function sqliteCommit(dir: string, rows: number): Record<'full' | 'normal', number> {
  const db = new Database(join(dir, `commit-${rows}.db`));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE log (rev INTEGER PRIMARY KEY, key TEXT, value TEXT)');
  const insert = db.prepare('INSERT INTO log (rev, key, value) VALUES (?, ?, ?)');
  const value = JSON.stringify(objectNamed('commit'));
  let rev = 0;
  const time = (synchronous: string): number => {
    db.pragma(`synchronous = ${synchronous}`);
    const commits = Math.max(20, Math.round(2000 / rows));
    const started = process.hrtime.bigint();
    for (let i = 0; i < commits; i++) {
      db.transaction(() => {
        for (let j = 0; j < rows; j++) insert.run(++rev, `/bench/${rev}`, value);
      })();
    }
    return Math.round(Number(process.hrtime.bigint() - started) / 1e6 / commits * 1000) / 1000;
  };
  const result = { full: time('FULL'), normal: time('NORMAL') };
  db.close();
  return result;
}

async function main(): Promise<void> {
  const external = process.env.ETCD_ENDPOINT;
  const etcd = external ? undefined : await startEtcd();
  const endpoint = external ?? etcd!.endpoint;
  const prefix = '/bench';
  const storage = createStorage({ backend: 'etcd3', etcdServers: [endpoint], prefix, compactionIntervalMs: 0 });
  const channel = new EtcdChannel({ endpoints: [endpoint], timeoutMs: 30_000 });
  const http2 = nodeHttp2(endpoint);
  const raw = new Etcd3({ hosts: endpoint, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  const memory = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  // On the same disk as etcd's data (the temporary folder), so that both pay the same fsync.
  const sqliteDir = mkdtempSync(join(tmpdir(), 'plat-bench-sqlite-'));
  const sqlite = createStorage({ backend: 'sqlite', dir: sqliteDir, prefix, compactionIntervalMs: 0 });
  const results: Record<'etcd3Storage' | 'channel' | 'nodeHttp2' | 'rawEtcd3' | 'sqliteStorage' | 'memoryStorage', Figures | undefined> = {
    etcd3Storage: undefined,
    channel: undefined,
    nodeHttp2: undefined,
    rawEtcd3: undefined,
    sqliteStorage: undefined,
    memoryStorage: undefined,
  };
  let commits: Record<'oneRow' | 'rows64', Record<'full' | 'normal', number>> | undefined;
  try {
    // Alternate them so that a noisy neighbour hurts all alike; keep each one's best round.
    for (let round = 0; round < ROUNDS; round++) {
      results.rawEtcd3 = best(results.rawEtcd3, await runAll((run) => throughRawEtcd(raw, prefix, run), `raw${round}`));
      results.nodeHttp2 = best(results.nodeHttp2, await runAll((run) => throughCodec(http2.call, prefix, run), `h2node${round}`));
      results.channel = best(results.channel, await runAll((run) => throughCodec((path, request) => channel.call(path, request), prefix, run), `channel${round}`));
      results.etcd3Storage = best(results.etcd3Storage, await runAll((run) => throughStorage(storage, run), `storage${round}`));
      results.sqliteStorage = best(results.sqliteStorage, await runAll((run) => throughStorage(sqlite, run), `sqlite${round}`));
      results.memoryStorage = best(results.memoryStorage, await runAll((run) => throughStorage(memory, run), `memory${round}`));
    }
    commits = { oneRow: sqliteCommit(sqliteDir, 1), rows64: sqliteCommit(sqliteDir, 64) };
  } finally {
    await storage.close();
    await memory.close();
    await sqlite.close();
    rmSync(sqliteDir, { recursive: true, force: true });
    channel.close();
    http2.close();
    raw.close();
    await etcd?.stop();
  }
  const result = {
    benchmark: 'storage',
    units: { opsPerSecond: 'operations/s', cpuMicrosPerOp: 'us of this process CPU per operation' },
    sequential: SEQUENTIAL,
    concurrent: { operations: CONCURRENT, inFlight: IN_FLIGHT },
    rounds: ROUNDS,
    ...results,
    /** The Storage interface against raw etcd3 (the ratio of earlier versions of this benchmark). */
    storageVsRawEtcd3: relative(results.etcd3Storage!, results.rawEtcd3!),
    /** The persistent embedded backend against etcd, both through the Storage interface. */
    sqliteVsEtcd3Storage: relative(results.sqliteStorage!, results.etcd3Storage!),
    /** Milliseconds per SQLite commit: `full` syncs the log at every commit (what sqliteStorage does), `normal` does not. */
    sqliteCommitMs: commits,
    /** The choice of transport: our channel against node:http2, the same messages and codec. */
    channelVsNodeHttp2: relative(results.channel!, results.nodeHttp2!),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
