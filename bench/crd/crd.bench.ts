// bench/crd, custom resources: one plat-apiserver replica on etcd, driven over HTTPS.
// - creates/s of a custom object against a ServiceAccount of the same size, at 64 in flight, in
//   alternating rounds after both have warmed up: the ratio of the medians (goal: at least 0.8);
// - a 10,000-object list of a custom resource from the watch cache (p50, p99), beside the same list
//   of ServiceAccounts;
// - the cost of many definitions: gets/s and get latency of a built-in kind before and after 200
//   CRDs are installed at once, and how long until all 200 are Established and served.
// Prints JSON.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@plat/storage/testing';
import { measure } from '../throughput.js';
import { Client, IN_FLIGHT, median, percentile, round, startReplica } from '../api/replica.js';

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 3000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LIST_OBJECTS = Number(process.env.BENCH_LIST_OBJECTS ?? 10_000);
const LIST_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 20);
const DEFINITIONS = Number(process.env.BENCH_DEFINITIONS ?? 200);
const GETS = Number(process.env.BENCH_GETS ?? 4000);

const PAYLOAD = 'x'.repeat(400);

const serviceAccount = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace, labels: { app: 'bench', tier: 'api' }, annotations: { payload: PAYLOAD } },
});

/** A custom object of about the ServiceAccount's size, with a spec the schema validates and defaults. */
const widget = (namespace: string, name: string) => ({
  apiVersion: 'bench.example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace, labels: { app: 'bench', tier: 'api' }, annotations: { payload: PAYLOAD } },
  spec: { size: 3, color: 'blue', tags: ['a', 'b'] },
});

const definition = (plural: string, kind: string, group = 'bench.example.com') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, singular: plural.slice(0, -1), kind },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 0, maximum: 100 },
                  color: { type: 'string', enum: ['red', 'green', 'blue'] },
                  shape: { type: 'string', default: 'square' },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                },
                required: ['size'],
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
        subresources: { status: {} },
      },
    ],
  },
});

async function established(client: Client, name: string, deadline: number): Promise<void> {
  for (;;) {
    const crd = JSON.parse(await client.ok('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`${name} not Established in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function listLatencies(client: Client, path: string): Promise<{ p50: number; p99: number; items: number }> {
  const times: number[] = [];
  let items = 0;
  for (let i = -3; i < LIST_RUNS; i++) {
    const started = process.hrtime.bigint();
    const body = await client.ok('GET', path);
    if (i >= 0) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (i === 0) items = (JSON.parse(body) as { items: unknown[] }).items.length;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), items };
}

/** gets/s of one ServiceAccount at 64 in flight, and the latency of single gets one after another. */
async function builtInGets(client: Client): Promise<{ getsPerSecond: number; latencyMs: { p50: number; p99: number } }> {
  const path = '/api/v1/namespaces/bench/serviceaccounts/probe';
  // Unmeasured first: connections and the JIT, so that before and after compare like with like.
  await measure(GETS, IN_FLIGHT, () => client.ok('GET', path));
  const getsPerSecond = await measure(GETS, IN_FLIGHT, () => client.ok('GET', path));
  const times: number[] = [];
  for (let i = 0; i < 500; i++) {
    const started = process.hrtime.bigint();
    await client.ok('GET', path);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { getsPerSecond, latencyMs: { p50: percentile(times, 50), p99: percentile(times, 99) } };
}

async function main(): Promise<void> {
  const etcd = await startEtcd();
  const tokenDir = await mkdtemp(join(tmpdir(), 'plat-bench-tokens-'));
  const token = `bench-admin-${process.pid}`;
  const tokenFile = join(tokenDir, 'tokens.csv');
  await writeFile(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const replica = await startReplica([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0', '--api-domain=k8s.io']);
  const client = new Client(replica, token);
  try {
    for (const namespace of ['bench', 'list']) {
      await client.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    await client.ok('POST', '/api/v1/namespaces/bench/serviceaccounts', serviceAccount('bench', 'probe'));
    const before = await builtInGets(client);

    await client.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', definition('widgets', 'Widget'));
    await established(client, 'widgets.bench.example.com', Date.now() + 30_000);
    const widgets = (namespace: string) => `/apis/bench.example.com/v1/namespaces/${namespace}/widgets`;
    for (;;) {
      if ((await client.call('GET', widgets('bench'))).status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // 1. creates/s, custom against built-in, alternating rounds after a warm-up of each.
    const customCreate = (round: number, i: number) => client.ok('POST', widgets('bench'), widget('bench', `w${round}-${i}`));
    const builtInCreate = (round: number, i: number) =>
      client.ok('POST', '/api/v1/namespaces/bench/serviceaccounts', serviceAccount('bench', `s${round}-${i}`));
    await measure(WARM_UP, IN_FLIGHT, (i) => customCreate(-1, i));
    await measure(WARM_UP, IN_FLIGHT, (i) => builtInCreate(-1, i));
    const custom: number[] = [];
    const builtIn: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      custom.push(await measure(OPERATIONS, IN_FLIGHT, (i) => customCreate(r, i)));
      builtIn.push(await measure(OPERATIONS, IN_FLIGHT, (i) => builtInCreate(r, i)));
    }

    // 2. a 10,000-object list of each from the watch cache.
    await measure(LIST_OBJECTS, IN_FLIGHT, (i) => client.ok('POST', widgets('list'), widget('list', `l${i}`)));
    await measure(LIST_OBJECTS, IN_FLIGHT, (i) => client.ok('POST', '/api/v1/namespaces/list/serviceaccounts', serviceAccount('list', `l${i}`)));
    const customList = await listLatencies(client, `${widgets('list')}?resourceVersion=0`);
    const builtInList = await listLatencies(client, '/api/v1/namespaces/list/serviceaccounts?resourceVersion=0');

    // 3. many definitions at once, and a built-in kind's gets after.
    const installStarted = Date.now();
    const kinds = Array.from({ length: DEFINITIONS }, (_, i) => ({ plural: `gadget${i}s`, kind: `Gadget${i}` }));
    await Promise.all(kinds.map(({ plural, kind }) => client.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', definition(plural, kind, 'many.example.com'))));
    const deadline = Date.now() + 120_000;
    for (const { plural } of kinds) await established(client, `${plural}.many.example.com`, deadline);
    for (const { plural } of kinds) {
      while ((await client.call('GET', `/apis/many.example.com/v1/${plural}`)).status !== 200) {
        if (Date.now() > deadline) throw new Error(`${plural} not served in time`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const allServedMs = Date.now() - installStarted;
    const discoveryStarted = process.hrtime.bigint();
    await client.ok('GET', '/apis');
    const discoveryMs = Number(process.hrtime.bigint() - discoveryStarted) / 1e6;
    const openapiStarted = process.hrtime.bigint();
    await client.ok('GET', '/openapi/v3');
    const openapiIndexMs = Number(process.hrtime.bigint() - openapiStarted) / 1e6;
    const after = await builtInGets(client);

    const customMedian = median(custom);
    const builtInMedian = median(builtIn);
    console.log(
      JSON.stringify(
        {
          creates: {
            inFlight: IN_FLIGHT,
            operationsPerRound: OPERATIONS,
            customPerSecond: custom,
            serviceAccountPerSecond: builtIn,
            medians: { custom: customMedian, serviceAccount: builtInMedian },
            ratio: round(customMedian / builtInMedian),
          },
          listFromWatchCache: { objects: LIST_OBJECTS, customMs: customList, serviceAccountMs: builtInList },
          manyDefinitions: {
            definitions: DEFINITIONS,
            allEstablishedAndServedMs: allServedMs,
            firstDiscoveryAfterMs: round(discoveryMs),
            firstOpenAPIv3IndexAfterMs: round(openapiIndexMs),
            builtInGetsBefore: before,
            builtInGetsAfter: after,
            getsRatio: round(after.getsPerSecond / before.getsPerSecond),
          },
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
