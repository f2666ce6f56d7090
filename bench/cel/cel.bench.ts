// bench/cel, the expression language:
// - evaluations/s of 10 x-kubernetes-validations rules on a 50-field object, in process (each
//   round reads the object afresh through its schema, as one validation does);
// - the cost of a create with those rules against the same custom resource without them, through
//   one plat-apiserver replica on etcd, at 64 in flight, in alternating rounds of the same run: the
//   ratio of the medians.
// Prints JSON.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CelEnvironment, PER_CALL_LIMIT, schemaDeclType, valueOf, type SchemaNode } from '@plat/cel';
import { startEtcd } from '@plat/storage/testing';
import { measure } from '../throughput.js';
import { Client, IN_FLIGHT, median, round, startReplica } from '../api/replica.js';

const EVALUATIONS = Number(process.env.BENCH_EVALUATIONS ?? 200_000);
const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 2000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** 50 fields: strings and integers alternating, plus a list. */
const properties: Record<string, SchemaNode> = {};
const spec: Record<string, unknown> = {};
for (let i = 0; i < 49; i++) {
  properties[`f${i}`] = i % 2 ? { type: 'integer' } : { type: 'string', maxLength: 64 };
  spec[`f${i}`] = i % 2 ? i : `value-${i}`;
}
properties.items = { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 32 } };
spec.items = Array.from({ length: 10 }, (_, i) => `item${i}`);

const rules = [
  'self.f1 >= 0',
  'self.f0.startsWith("value")',
  'self.f3 < 1000',
  'size(self.f2) <= 64',
  'self.f5 + self.f7 > 0',
  'self.f4.matches("^value-[0-9]+$")',
  'self.items.all(x, x.startsWith("item"))',
  'self.f9 != self.f11',
  'self.f6.contains("-")',
  'has(self.f8) && self.f8 != ""',
].map((rule) => ({ rule }));

const specSchema = (withRules: boolean): SchemaNode & Record<string, unknown> => ({
  type: 'object',
  properties,
  ...(withRules && { 'x-kubernetes-validations': rules }),
});

function evaluationsPerSecond(): { evaluationsPerSecond: number; costPerValidation: number } {
  const schema = specSchema(false);
  const decl = schemaDeclType(schema, false)!;
  const env = new CelEnvironment(new Map([['self', decl.type]]));
  const programs = rules.map(({ rule }) => env.compile(rule));
  let cost = 0;
  const validate = (): void => {
    const self = valueOf(spec, schema);
    cost = 0;
    for (const program of programs) {
      const result = program.evaluate({ self }, PER_CALL_LIMIT);
      if (result.value !== true) throw new Error('a rule failed');
      cost += result.cost;
    }
  };
  for (let i = 0; i < EVALUATIONS / 10 / 10; i++) validate();
  const started = process.hrtime.bigint();
  const validations = EVALUATIONS / rules.length;
  for (let i = 0; i < validations; i++) validate();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { evaluationsPerSecond: Math.round(EVALUATIONS / seconds), costPerValidation: cost };
}

const definition = (plural: string, kind: string, withRules: boolean) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.bench.example.com` },
  spec: {
    group: 'bench.example.com',
    scope: 'Namespaced',
    names: { plural, singular: plural.slice(0, -1), kind },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema(withRules) } } } }],
  },
});

async function servedWithin(client: Client, path: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await client.call('GET', path)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${path} not served in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<void> {
  const inProcess = evaluationsPerSecond();
  const etcd = await startEtcd();
  const tokenDir = await mkdtemp(join(tmpdir(), 'plat-bench-tokens-'));
  const token = `bench-admin-${process.pid}`;
  const tokenFile = join(tokenDir, 'tokens.csv');
  await writeFile(tokenFile, `${token},admin,admin-uid,"system:masters"\n`);
  const replica = await startReplica([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0', '--api-domain=k8s.io']);
  const client = new Client(replica, token);
  try {
    await client.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const kinds = [
      { plural: 'plains', kind: 'Plain', withRules: false },
      { plural: 'ruleds', kind: 'Ruled', withRules: true },
    ];
    for (const k of kinds) await client.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', definition(k.plural, k.kind, k.withRules));
    for (const k of kinds) await servedWithin(client, `/apis/bench.example.com/v1/namespaces/bench/${k.plural}`, 30_000);
    const create = (plural: string, kind: string) => (round: number, i: number) =>
      client.ok('POST', `/apis/bench.example.com/v1/namespaces/bench/${plural}`, {
        apiVersion: 'bench.example.com/v1',
        kind,
        metadata: { name: `o${round}-${i}`, namespace: 'bench' },
        spec,
      });
    const plain = create('plains', 'Plain');
    const ruled = create('ruleds', 'Ruled');
    await measure(WARM_UP, IN_FLIGHT, (i) => plain(-1, i));
    await measure(WARM_UP, IN_FLIGHT, (i) => ruled(-1, i));
    const without: number[] = [];
    const withRules: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      without.push(await measure(OPERATIONS, IN_FLIGHT, (i) => plain(r, i)));
      withRules.push(await measure(OPERATIONS, IN_FLIGHT, (i) => ruled(r, i)));
    }
    console.log(
      JSON.stringify(
        {
          inProcess: { rules: rules.length, fields: Object.keys(properties).length, ...inProcess },
          creates: {
            inFlight: IN_FLIGHT,
            operationsPerRound: OPERATIONS,
            withoutRulesPerSecond: without,
            withRulesPerSecond: withRules,
            medians: { without: median(without), with: median(withRules) },
            ratio: round(median(withRules) / median(without)),
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
