// bench/api: one plat-apiserver replica on etcd, driven over HTTPS.
// - creates/s and gets/s at 64 concurrent clients, beside the same operations made directly with
//   etcd3 in the same run, after both have warmed up, in alternating rounds (the ratio of the
//   medians is what to compare across machines);
// - a 10,000-object list served from the watch cache (p50, p99, and the replica's memory), beside
//   the same list from a replica started with --watch-cache=false;
// - fan-out: 1,000 watchers on the replica while 200 objects/s are written (after 3 s of the same,
//   unmeasured), in 3 rounds of 10 s: delivered events/s, the delivery latency (write sent ->
//   event read; and from the write's acknowledgement), the replica's CPU per event, and the cores this process (writer and watchers) and
//   etcd kept busy meanwhile (on a small machine the watchers' reading competes with the replica),
//   each round's and their medians; over HTTP/1.1 (a TLS connection per watch: fanOut), then over
//   HTTP/2 in the same run (the watches as streams of 10 connections: fanOutHttp2).
// Prints JSON. The clients run in this process (the watchers in worker threads), on the same
// machine as the replica and etcd.
import { Worker } from 'node:worker_threads';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { startEtcd } from '@plat/storage/testing';
import { Arrivals, fanOutName, type WatchersMessage, type WatchersTask } from './watchers.js';
import { measure } from '../throughput.js';
import { Client, IN_FLIGHT, median, percentile, round, startReplica, type Replica } from './replica.js';
import { cpuSeconds, machineBusySeconds, rssMiB } from '../proc.js';

const WATCHERS_MODULE = new URL('./watchers.js', import.meta.url);
const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 4000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LIST_OBJECTS = Number(process.env.BENCH_LIST_OBJECTS ?? 10_000);
const LIST_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 30);
const LIST_WARM_UP = Number(process.env.BENCH_LIST_WARM_UP ?? 5);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const WRITE_RATE = Number(process.env.BENCH_WRITE_RATE ?? 200);
const WRITE_SECONDS = Number(process.env.BENCH_WRITE_SECONDS ?? 10);
const FAN_OUT_WARM_UP_SECONDS = Number(process.env.BENCH_FAN_OUT_WARM_UP_SECONDS ?? 3);
/** Worker threads the watchers are spread over: on one thread with the writer, reading 200,000 events/s would delay them. */
const WATCHER_THREADS = Number(process.env.BENCH_WATCHER_THREADS ?? 2);
const FAN_OUT_ROUNDS = Number(process.env.BENCH_FAN_OUT_ROUNDS ?? 3);
/** HTTP/2 connections the watches are spread over in the HTTP/2 fan-out (100 watches each by default: a few clients' informers). */
const HTTP2_CONNECTIONS = Number(process.env.BENCH_HTTP2_CONNECTIONS ?? 10);

/**
 * An object of about the size of bench/storage's (~600 bytes of JSON): a ServiceAccount (the
 * simplest kind served) padded with an annotation.
 */
const serviceAccount = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace, labels: { app: 'bench', tier: 'api' }, annotations: { payload: 'x'.repeat(400) } },
});

async function createMany(client: Client, namespace: string, count: number, name: (i: number) => string): Promise<void> {
  await measure(count, IN_FLIGHT, (i) => client.ok('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, serviceAccount(namespace, name(i))));
}

async function listLatencies(client: Client, path: string): Promise<{ p50: number; p99: number; items: number }> {
  const times: number[] = [];
  let items = 0;
  // Unmeasured first, as the creates and gets: the first lists of 10,000 objects compile the
  // encoding path and took 210-280 ms at p99 against 95 ms after.
  for (let i = -LIST_WARM_UP; i < LIST_RUNS; i++) {
    const started = process.hrtime.bigint();
    const body = await client.ok('GET', path);
    if (i >= 0) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (i === 0) items = (JSON.parse(body) as { items: unknown[] }).items.length;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), items };
}

/** One measured round of the fan-out. */
interface FanOutRound {
  writeSeconds: number;
  eventsDelivered: number;
  deliveredEventsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  createLatencyMs: { p50: number; p99: number };
  afterAckMs: { p50: number; p99: number };
  fanOutSpreadMs: { p50: number; p99: number };
  replicaCpu: { coresBusy: number; microsecondsPerEvent: number };
  /** The cores busy in this process (the writer and the watchers' threads) and in etcd. */
  clientCoresBusy: number;
  etcdCoresBusy: number;
  /** Cores busy on the whole machine (of `machineCores`), whoever used them. */
  machineCoresBusy: number;
}

interface WatcherGroup {
  /** What the group's watchers saw in the current round. */
  readonly arrivals: Arrivals;
  /** From now on, record into a round of `writes` writes from `firstIndex` on. */
  startRound(firstIndex: number, writes: number): Promise<void>;
  close(): Promise<void>;
}

/** How the watchers reach the replica: a TLS connection each (HTTP/1.1), or streams of a few HTTP/2 connections. */
interface Transport {
  protocol: 'http1' | 'http2';
  /** HTTP/2 connections per worker thread. */
  connections: number;
}

/** Opens `count` watches in a worker thread; resolves once they are open. */
async function startWatchers(replica: Replica, token: string, path: string, count: number, transport: Transport): Promise<WatcherGroup> {
  let arrivals = Arrivals.allocate(0, 0, count);
  const task: WatchersTask = { port: replica.port, ca: replica.ca, token, path, watchers: count, buffers: arrivals.buffers, ...transport };
  const worker = new Worker(WATCHERS_MODULE, { workerData: task });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const reply = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
  await Promise.race([reply(), exited.then(() => Promise.reject(new Error("the watchers' worker exited before its watches were open")))]);
  return {
    get arrivals() {
      return arrivals;
    },
    async startRound(firstIndex, writes) {
      arrivals = Arrivals.allocate(firstIndex, writes, count);
      const recording = reply();
      worker.postMessage({ round: arrivals.buffers } satisfies WatchersMessage);
      await recording;
    },
    async close() {
      worker.postMessage('close' satisfies WatchersMessage);
      await exited;
    },
  };
}

/**
 * The fan-out (3. above) over one transport: WATCHERS watchers while WRITE_RATE objects/s are
 * written for WRITE_SECONDS, in FAN_OUT_ROUNDS rounds whose medians are reported (one round's p99
 * swings with this machine).
 */
async function runFanOut(replica: Replica, client: Client, etcdPid: number, token: string, transport: Transport) {
  const start = JSON.parse(await client.ok('GET', '/api/v1/namespaces/fan/serviceaccounts?limit=1')) as { metadata: { resourceVersion: string } };
  const writes = WRITE_RATE * WRITE_SECONDS;
  const path = `/api/v1/namespaces/fan/serviceaccounts?watch=1&resourceVersion=${start.metadata.resourceVersion}`;
  const groups = await Promise.all(
    Array.from({ length: WATCHER_THREADS }, (_, t) =>
      startWatchers(replica, token, path, Math.floor(WATCHERS / WATCHER_THREADS) + (t < WATCHERS % WATCHER_THREADS ? 1 : 0), transport),
    ),
  );
  const delivered = (): number => groups.reduce((sum, group) => sum + group.arrivals.delivered, 0);
  /**
   * Writes `count` objects at WRITE_RATE, each named for its write and its sending (watchers.ts'
   * fanOutName): measured writes are numbered from `firstIndex` on.
   */
  const writeAtRate = async (count: number, firstIndex: number | undefined, createLatencies: Float64Array) => {
    const started = performance.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / WRITE_RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const sentAt = performance.timeOrigin + performance.now();
      const name = fanOutName(firstIndex === undefined ? undefined : firstIndex + i, i, sentAt);
      const created = client
        .ok('POST', '/api/v1/namespaces/fan/serviceaccounts', serviceAccount('fan', name))
        .then(() => (createLatencies[i] = performance.timeOrigin + performance.now() - sentAt));
      // Awaited below with the others; a failure meanwhile must not end the process unhandled.
      created.catch(() => {});
      pending.push(created);
    }
    await Promise.all(pending);
  };
  /** Waits until the watchers have read `count` events in this round, for at most 30 s. */
  const deliveredAll = async (count: number): Promise<void> => {
    const deadline = performance.now() + 30_000;
    while (delivered() < count && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  // Warm up the fan-out path (the replica's JIT, the watchers' connections) at the same rate,
  // unmeasured, and let it drain: the figures are for the steady state.
  const warmWrites = WRITE_RATE * FAN_OUT_WARM_UP_SECONDS;
  await writeAtRate(warmWrites, undefined, new Float64Array(warmWrites));
  await deliveredAll(warmWrites * WATCHERS);
  const fanOutRounds: FanOutRound[] = [];
  for (let r = 0; r < FAN_OUT_ROUNDS; r++) {
    const firstIndex = r * writes;
    await Promise.all(groups.map((group) => group.startRound(firstIndex, writes)));
    const writeStarted = performance.now();
    const cpuBefore = await cpuSeconds(replica.pid);
    const etcdCpuBefore = await cpuSeconds(etcdPid);
    const machineBusyBefore = await machineBusySeconds();
    const clientCpuBefore = process.cpuUsage();
    const createLatencies = new Float64Array(writes);
    await writeAtRate(writes, firstIndex, createLatencies);
    const writeSeconds = (performance.now() - writeStarted) / 1000;
    await deliveredAll(writes * WATCHERS);
    const deliverySeconds = (performance.now() - writeStarted) / 1000;
    const replicaCpu = (await cpuSeconds(replica.pid)) - cpuBefore;
    const etcdCpu = (await cpuSeconds(etcdPid)) - etcdCpuBefore;
    const machineBusy = (await machineBusySeconds()) - machineBusyBefore;
    const clientCpuUsed = process.cpuUsage(clientCpuBefore);
    const clientCpu = (clientCpuUsed.user + clientCpuUsed.system) / 1e6;
    const roundDelivered = delivered();
    const latencies = new Float64Array(groups.reduce((sum, group) => sum + group.arrivals.recorded, 0));
    // The same arrivals counted from each write's acknowledgement instead of its sending.
    const afterAck: number[] = [];
    let filled = 0;
    for (const { arrivals } of groups) {
      latencies.set(arrivals.latencies.subarray(0, arrivals.recorded), filled);
      filled += arrivals.recorded;
      for (let i = 0; i < arrivals.recorded; i++) {
        const write = arrivals.writes[i]!;
        if (write >= 0) afterAck.push(arrivals.latencies[i]! - createLatencies[write]!);
      }
    }
    latencies.sort();
    createLatencies.sort();
    afterAck.sort((a, b) => a - b);
    const firsts = groups.map((group) => group.arrivals.first);
    const lasts = groups.map((group) => group.arrivals.last);
    const spreads = Array.from({ length: writes }, (_, i) => Math.max(...lasts.map((last) => last[i]!)) - Math.min(...firsts.map((first) => first[i]!)))
      .filter((spread) => Number.isFinite(spread))
      .sort((a, b) => a - b);
    fanOutRounds.push({
      writeSeconds: round(writeSeconds),
      eventsDelivered: roundDelivered,
      deliveredEventsPerSecond: Math.round(roundDelivered / deliverySeconds),
      latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: percentile(latencies, 100) },
      createLatencyMs: { p50: percentile(createLatencies, 50), p99: percentile(createLatencies, 99) },
      afterAckMs: { p50: percentile(afterAck, 50), p99: percentile(afterAck, 99) },
      fanOutSpreadMs: { p50: percentile(spreads, 50), p99: percentile(spreads, 99) },
      replicaCpu: {
        coresBusy: round(replicaCpu / deliverySeconds),
        microsecondsPerEvent: round((replicaCpu * 1e6) / roundDelivered),
      },
      clientCoresBusy: round(clientCpu / deliverySeconds),
      etcdCoresBusy: round(etcdCpu / deliverySeconds),
      machineCoresBusy: round(machineBusy / deliverySeconds),
    });
  }
  const fanOutRss = await rssMiB(replica.pid);
  await Promise.all(groups.map((group) => group.close()));
  /** The median over the rounds of one figure. */
  const fanOutMedian = (figure: (round: FanOutRound) => number): number => median(fanOutRounds.map(figure));
  return {
    protocol: transport.protocol,
    /** HTTP/2 connections the watches are streams of (0: one TLS connection per watch). */
    connections: transport.protocol === 'http2' ? transport.connections * WATCHER_THREADS : 0,
    watchers: WATCHERS,
    watcherThreads: WATCHER_THREADS,
    writesPerSecond: WRITE_RATE,
    /** Unmeasured writes at the same rate first, delivered before the measured ones start. */
    warmUpSeconds: FAN_OUT_WARM_UP_SECONDS,
    writesPerRound: writes,
    eventsExpectedPerRound: writes * WATCHERS,
    /** Medians over the rounds below. */
    deliveredEventsPerSecond: fanOutMedian((r) => r.deliveredEventsPerSecond),
    /** From sending the create to a watcher parsing its event (the create's own latency included). */
    latencyMs: { p50: fanOutMedian((r) => r.latencyMs.p50), p99: fanOutMedian((r) => r.latencyMs.p99) },
    /** The creates' own latency (sent -> response) under this load. */
    createLatencyMs: { p50: fanOutMedian((r) => r.createLatencyMs.p50), p99: fanOutMedian((r) => r.createLatencyMs.p99) },
    /**
     * Delivery counted from each write's acknowledgement (negative when the event came first):
     * the fan-out's share without the write's own path through etcd. The goal is latencyMs.
     */
    afterAckMs: { p50: fanOutMedian((r) => r.afterAckMs.p50), p99: fanOutMedian((r) => r.afterAckMs.p99) },
    /** Per event, from the first watcher's receipt to the last's: the fan-out itself. */
    fanOutSpreadMs: { p50: fanOutMedian((r) => r.fanOutSpreadMs.p50), p99: fanOutMedian((r) => r.fanOutSpreadMs.p99) },
    /** The replica's CPU time over the measured writes and their delivery: per second, and per event delivered. */
    replicaCpu: { coresBusy: fanOutMedian((r) => r.replicaCpu.coresBusy), microsecondsPerEvent: fanOutMedian((r) => r.replicaCpu.microsecondsPerEvent) },
    /** What else kept the machine busy meanwhile: this process (the writer and the watchers), and etcd. */
    clientCoresBusy: fanOutMedian((r) => r.clientCoresBusy),
    etcdCoresBusy: fanOutMedian((r) => r.etcdCoresBusy),
    machineCoresBusy: fanOutMedian((r) => r.machineCoresBusy),
    machineCores: availableParallelism(),
    replicaRssMiB: fanOutRss,
    rounds: fanOutRounds,
  };
}

async function main(): Promise<void> {
  const etcd = await startEtcd();
  const tokenDir = await mkdtemp(join(tmpdir(), 'plat-bench-tokens-'));
  const token = `bench-admin-${process.pid}`;
  const tokenFile = join(tokenDir, 'tokens.csv');
  await writeFile(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const common = [`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0'];
  const replica = await startReplica(common);
  const client = new Client(replica, token);
  const raw = new Etcd3({ hosts: etcd.endpoint, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  const uncached: { replica?: Replica; client?: Client } = {};
  try {
    for (const namespace of ['bench', 'list', 'fan']) {
      await client.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    // 1. creates and gets at 64 in flight, through the API and with raw etcd3. Both sides warm up
    // first (connections, the JIT, etcd's database growing), then run ROUNDS alternating rounds so
    // that a noisy moment on this shared machine does not land on one side only; medians compare.
    const rawKey = (round: number, i: number): Buffer => Buffer.from(`/raw/core/serviceaccounts/bench/r${round}-${i}`);
    const rawCreate = async (round: number, i: number): Promise<void> => {
      const key = rawKey(round, i);
      const response = await raw.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(serviceAccount('bench', `r${round}-${i}`))) } }],
        failure: [],
      });
      if (!response.succeeded) throw new Error('raw create found the key taken');
    };
    const rawGet = async (round: number, i: number): Promise<void> => {
      const response = await raw.kv.range({ key: rawKey(round, i) });
      if (!response.kvs[0]) throw new Error('raw get found nothing');
      JSON.parse(response.kvs[0].value.toString());
    };
    const apiCreate = (round: number, i: number) =>
      client.ok('POST', '/api/v1/namespaces/bench/serviceaccounts', serviceAccount('bench', `r${round}-${i}`));
    const apiGet = (round: number, i: number) => client.ok('GET', `/api/v1/namespaces/bench/serviceaccounts/r${round}-${i}`);
    await measure(WARM_UP, IN_FLIGHT, (i) => apiCreate(-1, i));
    await measure(WARM_UP, IN_FLIGHT, (i) => rawCreate(-1, i));
    await measure(WARM_UP, IN_FLIGHT, (i) => apiGet(-1, i));
    await measure(WARM_UP, IN_FLIGHT, (i) => rawGet(-1, i));
    const rounds = { apiCreates: [] as number[], rawCreates: [] as number[], apiGets: [] as number[], rawGets: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.apiCreates.push(await measure(OPERATIONS, IN_FLIGHT, (i) => apiCreate(round, i)));
      rounds.rawCreates.push(await measure(OPERATIONS, IN_FLIGHT, (i) => rawCreate(round, i)));
    }
    for (let round = 0; round < ROUNDS; round++) {
      rounds.apiGets.push(await measure(OPERATIONS, IN_FLIGHT, (i) => apiGet(round, i)));
      rounds.rawGets.push(await measure(OPERATIONS, IN_FLIGHT, (i) => rawGet(round, i)));
    }
    const apiCreates = median(rounds.apiCreates);
    const rawCreates = median(rounds.rawCreates);
    const apiGets = median(rounds.apiGets);
    const rawGets = median(rounds.rawGets);

    // 2. a 10,000-object list from the cache.
    const rssBefore = await rssMiB(replica.pid);
    await createMany(client, 'list', LIST_OBJECTS, (i) => `item-${i}`);
    const consistent = await listLatencies(client, '/api/v1/namespaces/list/serviceaccounts');
    const rv0 = await listLatencies(client, '/api/v1/namespaces/list/serviceaccounts?resourceVersion=0');
    const rssAfter = await rssMiB(replica.pid);
    if (consistent.items !== LIST_OBJECTS) throw new Error(`listed ${consistent.items} objects, not ${LIST_OBJECTS}`);
    uncached.replica = await startReplica([...common, '--watch-cache=false']);
    uncached.client = new Client(uncached.replica, token);
    const fromEtcd = await listLatencies(uncached.client, '/api/v1/namespaces/list/serviceaccounts');
    uncached.client.close();
    await uncached.replica.stop();
    uncached.replica = undefined;

    // 3. fan-out: WATCHERS watchers while WRITE_RATE objects/s are written, over HTTP/1.1 (a TLS
    // connection each), then over HTTP/2 (streams of HTTP2_CONNECTIONS connections), same replica.
    const fanOut = await runFanOut(replica, client, etcd.pid, token, { protocol: 'http1', connections: 0 });
    const fanOutHttp2 = await runFanOut(replica, client, etcd.pid, token, { protocol: 'http2', connections: Math.max(1, Math.round(HTTP2_CONNECTIONS / WATCHER_THREADS)) });

    const result = {
      benchmark: 'api',
      replica: 'one plat-apiserver process on etcd, watch cache on; clients in the benchmark process on the same machine',
      concurrent: {
        operations: OPERATIONS,
        inFlight: IN_FLIGHT,
        warmUp: WARM_UP,
        unit: 'operations/s (median of the rounds)',
        rounds,
        api: { create: apiCreates, get: apiGets },
        rawEtcd3: { create: rawCreates, get: rawGets },
        ratio: { create: round(apiCreates / rawCreates), get: round(apiGets / rawGets) },
      },
      list: {
        objects: LIST_OBJECTS,
        runs: LIST_RUNS,
        warmUp: LIST_WARM_UP,
        unit: 'ms',
        consistentFromCache: { p50: consistent.p50, p99: consistent.p99 },
        resourceVersion0FromCache: { p50: rv0.p50, p99: rv0.p99 },
        fromEtcdWithoutCache: { p50: fromEtcd.p50, p99: fromEtcd.p99 },
        replicaRssMiB: { before: rssBefore, afterListObjects: rssAfter },
      },
      fanOut,
      /** The same fan-out with the watches as HTTP/2 streams (ALPN h2), after the HTTP/1.1 one, in this run. */
      fanOutHttp2,
        };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    client.close();
    uncached.client?.close();
    await uncached.replica?.stop();
    raw.close();
    await replica.stop();
    await etcd.stop();
    await rm(tokenDir, { recursive: true, force: true });
  }
}

await main();
