// bench/scale: 100,000 ServiceAccounts of ~870 bytes on two plat-apiserver replicas sharing one etcd.
// Prints, in one JSON document:
// - objects, their JSON size (the unpaged list's bytes), the load's creates/s;
// - memory of each replica empty and holding them, after a forced garbage collection (the
//   inspector's HeapProfiler.collectGarbage, then its heap usage): heap used, the cache's share
//   (loaded minus empty) beside the JSON size, RSS; replica "a" runs with --max-semi-space-size=64
//   as bin/plat-apiserver does, "b" with node's default young generation: the trade-off;
// - a paged list (limit 500): each page's p50/p99;
// - an unpaged list from the cache (resourceVersion=0), JSON and Protobuf on both replicas, Table and
//   PartialObjectMetadataList on "a": its time and the RSS it added (sampled every 10 ms while it ran);
// - ten unpaged lists at once, JSON and as Tables (both written in chunks): statuses (429s where the
//   memory budget refused), the RSS peak;
// - a restart of replica "a" with 1,000 watchers on it (informers of @plat/client, over HTTP/2, with
//   bookmarks; they reconnect to the same replica): time to ready, how many listed again, how long
//   until every one had resumed (seen a write made after the restart);
// - the machine's load average before and after, and its cores.
// BENCH_SCALE_OBJECTS, BENCH_SCALE_WATCHERS scale it down for a quick run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@plat/storage/testing';
import { Client as ApiClient, Informer } from '@plat/client';
import { ScaleReplica } from './replica.js';
import { measure } from '../throughput.js';
import { Client as Http, IN_FLIGHT } from '../api/replica.js';
import { rssMiB } from '../proc.js';
import type { MemoryFigures } from '../inspector.js';

const OBJECTS = Number(process.env.BENCH_SCALE_OBJECTS ?? 100_000);
const WATCHERS = Number(process.env.BENCH_SCALE_WATCHERS ?? 1000);
/** The HTTP/2 connections (clients) the watchers are informers of: 100 informers each by default. */
const WATCH_CLIENTS = Number(process.env.BENCH_SCALE_WATCH_CLIENTS ?? 10);
const PAGE = 500;
const CONCURRENT_LISTS = 10;
const MiB = 1024 * 1024;

const round = (value: number, places = 1): number => Math.round(value * 10 ** places) / 10 ** places;
const percentile = (sorted: number[], p: number): number => round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!);
const load = (): number[] => loadavg().map((value) => round(value, 2));

/**
 * A ServiceAccount of ~870 bytes of JSON as stored and served (metadata with uid, timestamps and
 * managedFields added by the server): labels and an annotation of padding, as real objects carry.
 */
const serviceAccount = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: {
    name,
    namespace,
    labels: { app: 'scale', tier: 'bench', team: 'platform' },
    annotations: { 'example.com/description': 'd'.repeat(258) },
  },
  automountServiceAccountToken: false,
});

/** Runs `work` while sampling the process's RSS every 10 ms; resolves with its result, time and RSS peak. */
async function sampled<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; ms: number; rssBeforeMiB: number; rssPeakMiB: number }> {
  const rssBeforeMiB = await rssMiB(pid);
  let rssPeakMiB = rssBeforeMiB;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssPeakMiB = Math.max(rssPeakMiB, await rssMiB(pid));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const result = await work();
  const ms = round(performance.now() - started);
  sampling = false;
  await sampler;
  return { result, ms, rssBeforeMiB, rssPeakMiB };
}

const mib = (bytes: number): number => round(bytes / MiB);

function memoryReport(empty: MemoryFigures, loaded: MemoryFigures, jsonBytes: number) {
  const cacheHeap = loaded.heapUsedBytes - empty.heapUsedBytes;
  return {
    heapUsedEmptyMiB: mib(empty.heapUsedBytes),
    heapUsedLoadedMiB: mib(loaded.heapUsedBytes),
    /** Heap used holding the objects (loaded minus empty, both after a forced collection). */
    cacheHeapMiB: mib(cacheHeap),
    /** The cache's heap in multiples of the objects' JSON (the goal: at most 3). */
    cacheHeapPerJsonByte: round(cacheHeap / jsonBytes, 2),
    /** Outside the heap: Buffers (list items' kept encodings among them, at most 16 MiB a representation). */
    externalLoadedMiB: mib(loaded.externalBytes),
    rssEmptyMiB: mib(empty.rssBytes),
    rssLoadedMiB: mib(loaded.rssBytes),
    heapSizeLimitMiB: mib(loaded.heapSizeLimitBytes),
  };
}

async function main(): Promise<void> {
  const loadBefore = load();
  // etcd with periodic progress notifications as kube-up runs it (5 s): watch caches learn they are
  // current, and bookmarks carry it.
  const etcd = await startEtcd({ progressNotifyIntervalMs: 5000 });
  const tokenDir = await mkdtemp(join(tmpdir(), 'plat-bench-scale-tokens-'));
  const token = `bench-admin-${process.pid}`;
  const tokenFile = join(tokenDir, 'tokens.csv');
  await writeFile(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const common = [`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0'];
  const a = await ScaleReplica.create({ name: 'a', args: common, semiSpaceMiB: 64 });
  const b = await ScaleReplica.create({ name: 'b', args: common });
  const informers: Informer[] = [];
  const clients: ApiClient[] = [];
  let httpA: Http | undefined;
  let httpB: Http | undefined;
  try {
    await Promise.all([a.start(), b.start()]);
    httpA = new Http(a, token);
    httpB = new Http(b, token);
    await Promise.all([a.waitReady((path) => httpA!.call('GET', path)), b.waitReady((path) => httpB!.call('GET', path))]);
    const emptyA = await a.inspector!.memoryAfterCollection();
    const emptyB = await b.inspector!.memoryAfterCollection();

    // Load: OBJECTS ServiceAccounts, 64 creates in flight through replica a.
    for (const name of ['scale', 'watched']) await httpA.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const loadStarted = performance.now();
    const createsPerSecond = await measure(OBJECTS, IN_FLIGHT, (i) => httpA!.ok('POST', '/api/v1/namespaces/scale/serviceaccounts', serviceAccount('scale', `sa-${i}`)));
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const last = JSON.parse((await httpA.ok('GET', `/api/v1/namespaces/scale/serviceaccounts/sa-${OBJECTS - 1}`)).toString()) as { metadata: { resourceVersion: string } };
    // Each replica's cache has every object once a read not older than the last write is answered from it.
    for (const http of [httpA, httpB]) await http.ok('GET', `/api/v1/namespaces/scale/serviceaccounts/sa-${OBJECTS - 1}?resourceVersion=${last.metadata.resourceVersion}`);
    const loadedA = await a.inspector!.memoryAfterCollection();
    const loadedB = await b.inspector!.memoryAfterCollection();

    // The unpaged list from the cache (resourceVersion=0): JSON, then Protobuf, on each replica.
    const unpaged = async (replica: ScaleReplica, http: Http, accept: string) => {
      const run = await sampled(replica.pid, () => http.send('GET', '/api/v1/namespaces/scale/serviceaccounts?resourceVersion=0', { headers: { accept }, keepBody: false }));
      if (run.result.status !== 200) throw new Error(`unpaged list: ${run.result.status}`);
      return { ms: run.ms, bytes: run.result.bytes, rssBeforeMiB: run.rssBeforeMiB, rssDeltaMiB: run.rssPeakMiB - run.rssBeforeMiB };
    };
    const json = 'application/json';
    const protobuf = 'application/vnd.plat.protobuf';
    // The first of each compiles the path (and fills the kept encodings, within their budget).
    const firstJsonA = await unpaged(a, httpA, json);
    const jsonA = await unpaged(a, httpA, json);
    const protobufFirstA = await unpaged(a, httpA, protobuf);
    const protobufA = await unpaged(a, httpA, protobuf);
    const firstJsonB = await unpaged(b, httpB, json);
    const jsonB = await unpaged(b, httpB, json);
    const protobufFirstB = await unpaged(b, httpB, protobuf);
    const protobufB = await unpaged(b, httpB, protobuf);
    // As kubectl get asks (a Table of each object's metadata), and as metadata informers list.
    const table = 'application/json;as=Table;v=v1;g=meta.plat.io';
    const partial = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.plat.io';
    const tableA = { first: await unpaged(a, httpA, table), again: await unpaged(a, httpA, table) };
    const partialA = { first: await unpaged(a, httpA, partial), again: await unpaged(a, httpA, partial) };
    const jsonBytes = jsonA.bytes;
    const whole = JSON.parse((await httpA.ok('GET', '/api/v1/namespaces/scale/serviceaccounts?resourceVersion=0')).toString()) as { items: unknown[] };
    if (whole.items.length !== OBJECTS) throw new Error(`the list has ${whole.items.length} objects, not ${OBJECTS}`);

    // A paged list (limit 500), consistent: each page's time.
    const pageTimes: number[] = [];
    let next = '';
    let pages = 0;
    do {
      const started = performance.now();
      const page = JSON.parse((await httpA.ok('GET', `/api/v1/namespaces/scale/serviceaccounts?limit=${PAGE}${next ? `&continue=${encodeURIComponent(next)}` : ''}`)).toString()) as { metadata: { continue?: string } };
      pageTimes.push(performance.now() - started);
      next = page.metadata.continue ?? '';
      pages++;
    } while (next);
    pageTimes.sort((x, y) => x - y);

    // Ten unpaged lists at once: JSON, then Tables (both written in chunks).
    const atOnce = async (accept: string) => {
      const run = await sampled(a.pid, () =>
        Promise.all(Array.from({ length: CONCURRENT_LISTS }, () => httpA!.send('GET', '/api/v1/namespaces/scale/serviceaccounts?resourceVersion=0', { headers: { accept }, keepBody: false }))),
      );
      const statuses: Record<string, number> = {};
      for (const answer of run.result) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      return { lists: CONCURRENT_LISTS, ms: run.ms, statuses, rssBeforeMiB: run.rssBeforeMiB, rssPeakMiB: run.rssPeakMiB, rssDeltaMiB: run.rssPeakMiB - run.rssBeforeMiB };
    };
    const tenJson = await atOnce(json);
    const tenTables = await atOnce('application/json;as=Table;v=v1;g=meta.plat.io');
    const afterListsA = await a.inspector!.memoryAfterCollection();

    // A restart of replica a with WATCHERS informers on it (of the 'watched' namespace, over HTTP/2,
    // WATCH_CLIENTS connections), each with bookmarks; they reconnect to a, not to b.
    for (let i = 0; i < 10; i++) await httpA.ok('POST', '/api/v1/namespaces/watched/serviceaccounts', serviceAccount('watched', `w-${i}`));
    const seenMarker = new Set<Informer>();
    let marker = '';
    for (let c = 0; c < WATCH_CLIENTS; c++) clients.push(new ApiClient({ server: a.url, ca: a.ca, token }));
    for (let i = 0; i < WATCHERS; i++) {
      const resource = clients[i % clients.length]!.resource({ group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true, kind: 'ServiceAccount' }).namespace('watched');
      // client-go's reflector backs off from 800 ms; sooner here, so the figure is the server's.
      const informer = new Informer(resource, { backoff: { initialMs: 200, maxMs: 2000, jitter: 0.5 } });
      informer.addEventHandler({ onAdd: (object) => void (object.metadata.name === marker && seenMarker.add(informer)) });
      informers.push(informer);
    }
    for (const informer of informers) informer.start();
    await Promise.all(informers.map((informer) => informer.waitForSync()));
    // Writes go on meanwhile, a few a second, as in a live cluster (through b).
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      while (writing) {
        await httpB!.send('POST', '/api/v1/namespaces/watched/serviceaccounts', { body: serviceAccount('watched', `t-${writes++}`) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const listsBefore = informers.reduce((sum, informer) => sum + informer.lists, 0);
    const restartStarted = performance.now();
    await a.stop();
    const stoppedMs = performance.now() - restartStarted;
    const started = performance.now();
    await a.start();
    httpA.close();
    httpA = new Http(a, token);
    await a.waitReady((path) => httpA!.call('GET', path));
    const timeToReadyMs = performance.now() - started;
    const readyAfterStopMs = performance.now() - restartStarted;
    marker = `marker-${Date.now()}`;
    await httpB.ok('POST', '/api/v1/namespaces/watched/serviceaccounts', serviceAccount('watched', marker));
    const resumeDeadline = performance.now() + 120_000;
    while (seenMarker.size < WATCHERS && performance.now() < resumeDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const allResumedMs = performance.now() - restartStarted;
    writing = false;
    await writer;
    const relisted = informers.filter((informer) => informer.lists > 1).length;
    const listsAfter = informers.reduce((sum, informer) => sum + informer.lists, 0);

    const result = {
      benchmark: 'scale',
      setup: 'two plat-apiserver replicas on one etcd (progress notifications every 5 s, as kube-up); clients in this process; loopback',
      machine: { cores: availableParallelism(), loadAverageBefore: loadBefore, loadAverageAfter: load() },
      objects: OBJECTS,
      /** The unpaged JSON list's size: the objects' JSON. */
      jsonBytes,
      jsonMiB: mib(jsonBytes),
      load: { createsPerSecond: createsPerSecond, seconds: round(loadSeconds), inFlight: IN_FLIGHT },
      memory: {
        method: 'after HeapProfiler.collectGarbage twice (the inspector), Runtime.getHeapUsage and process.memoryUsage() in the replica',
        a: { maxSemiSpaceSizeMiB: 64, ...memoryReport(emptyA, loadedA, jsonBytes), heapUsedAfterListsMiB: mib(afterListsA.heapUsedBytes), rssAfterListsMiB: mib(afterListsA.rssBytes), externalAfterListsMiB: mib(afterListsA.externalBytes) },
        b: { maxSemiSpaceSizeMiB: 'node default (16)', ...memoryReport(emptyB, loadedB, jsonBytes) },
      },
      pagedList: { limit: PAGE, pages, unit: 'ms per page', p50: percentile(pageTimes, 50), p99: percentile(pageTimes, 99) },
      unpagedList: {
        query: 'resourceVersion=0 (the watch cache), written in chunks',
        json: { a: { first: firstJsonA, again: jsonA }, b: { first: firstJsonB, again: jsonB } },
        protobuf: { a: { first: protobufFirstA, again: protobufA }, b: { first: protobufFirstB, again: protobufB } },
        table: { a: tableA },
        partialObjectMetadataList: { a: partialA },
      },
      concurrentUnpagedLists: { json: tenJson, table: tenTables },
      restart: {
        watchers: WATCHERS,
        http2Connections: WATCH_CLIENTS,
        /** From SIGTERM to the process gone (graceful: each watch got a last bookmark). */
        stopMs: round(stoppedMs),
        /** From the new process's start to /readyz 200 (its caches listed OBJECTS and more). */
        timeToReadyMs: round(timeToReadyMs),
        /** From SIGTERM to ready again. */
        readyAfterStopMs: round(readyAfterStopMs),
        /** Informers that had to list again (a 410: their resourceVersion outside the window). */
        relisted,
        listsDuringRestart: listsAfter - listsBefore,
        /** From SIGTERM until every watcher had seen a write made after the restart. */
        allResumedMs: round(allResumedMs),
        resumed: seenMarker.size,
        writesDuring: writes,
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await Promise.all(informers.map((informer) => informer.stop()));
    for (const client of clients) client.close();
    httpA?.close();
    httpB?.close();
    await a.remove();
    await b.remove();
    await etcd.stop();
    await rm(tokenDir, { recursive: true, force: true });
  }
}

await main();
