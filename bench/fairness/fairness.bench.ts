// bench/fairness: the noisy neighbour of issue 41, in one run. One replica on etcd, two ordinary
// users with their own grants (RoleBindings to the "admin" ClusterRole in their namespaces):
// - "victim", VICTIM_IN_FLIGHT at a time, alternately GETs a ConfigMap and creates one in its own
//   namespace, first alone (quiet), then while
// - "noisy" runs NOISY_LISTS unpaged lists of OBJECTS ConfigMaps at once, in a loop (noisy).
// Printed as JSON, for each mode (APF on, the default, and off: --enable-priority-and-fairness=false
// with the in-flight limits): the victim's GET and create p50/p99 quiet and noisy, its operations
// per second in each phase, the noisy user's answers by status and its lists' p50; and the replica's
// CPU per request for GETs with no contention (the filter's cost, on against off).
// BENCH_FAIRNESS_OBJECTS, _LISTS, _SECONDS, _MODES (on,off) scale it; _ARGS adds replica flags.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '@plat/storage/testing';
import { Client, percentile, round, startReplica, type Replica } from '../api/replica.js';
import { cpuSeconds } from '../proc.js';

const OBJECTS = Number(process.env.BENCH_FAIRNESS_OBJECTS ?? 5000);
const NOISY_LISTS = Number(process.env.BENCH_FAIRNESS_LISTS ?? 60);
const SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 10);
const MODES = (process.env.BENCH_FAIRNESS_MODES ?? 'on,off').split(',').filter(Boolean) as ('on' | 'off')[];
/** Extra flags for the measured replicas, e.g. BENCH_FAIRNESS_ARGS="--max-requests-inflight=20 --max-mutating-requests-inflight=10". */
const EXTRA_ARGS = (process.env.BENCH_FAIRNESS_ARGS ?? '').split(' ').filter(Boolean);
const VICTIM_IN_FLIGHT = 8;
const CPU_REQUESTS = Number(process.env.BENCH_FAIRNESS_CPU_REQUESTS ?? 5000);

interface VictimFigures {
  ops: number;
  opsPerSecond: number;
  getP50Ms: number;
  getP99Ms: number;
  createP50Ms: number;
  createP99Ms: number;
  errors: Record<string, number>;
}

/** The victim's loop for `seconds`: GET and create alternately, VICTIM_IN_FLIGHT at a time. */
async function victimLoop(victim: Client, seconds: number, phase: string): Promise<VictimFigures> {
  const gets: number[] = [];
  const creates: number[] = [];
  const errors: Record<string, number> = {};
  const until = performance.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: VICTIM_IN_FLIGHT }, async () => {
      while (performance.now() < until) {
        const i = n++;
        const started = performance.now();
        const answer =
          i % 2 === 0
            ? await victim.send('GET', '/api/v1/namespaces/victim/configmaps/seed')
            : await victim.send('POST', '/api/v1/namespaces/victim/configmaps', { body: { metadata: { name: `${phase}-${i}` }, data: { k: 'v' } } });
        const ms = performance.now() - started;
        if (answer.status >= 300) errors[answer.status] = (errors[answer.status] ?? 0) + 1;
        else (i % 2 === 0 ? gets : creates).push(ms);
      }
    }),
  );
  gets.sort((a, b) => a - b);
  creates.sort((a, b) => a - b);
  const ops = gets.length + creates.length;
  return {
    ops,
    opsPerSecond: round(ops / seconds),
    getP50Ms: percentile(gets, 50),
    getP99Ms: percentile(gets, 99),
    createP50Ms: percentile(creates, 50),
    createP99Ms: percentile(creates, 99),
    errors,
  };
}

async function runMode(mode: 'on' | 'off', etcdEndpoint: string, tokenFile: string): Promise<Record<string, unknown>> {
  const replica: Replica = await startReplica([`--etcd-servers=${etcdEndpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0', `--enable-priority-and-fairness=${mode === 'on'}`, ...EXTRA_ARGS]);
  const admin = new Client(replica, 'bench-admin');
  const noisy = new Client(replica, 'bench-noisy');
  const victim = new Client(replica, 'bench-victim');
  try {
    for (let i = 0; i < 100; i++) {
      const ready = await admin.call('GET', '/readyz');
      if (ready.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The replica's CPU per request with no contention: GETs as the victim, one at a time, after as
    // many to warm up (connections, the JIT).
    for (let i = 0; i < CPU_REQUESTS; i++) await victim.send('GET', '/api/v1/namespaces/victim/configmaps/seed');
    const cpuBefore = await cpuSeconds(replica.pid);
    for (let i = 0; i < CPU_REQUESTS; i++) await victim.send('GET', '/api/v1/namespaces/victim/configmaps/seed');
    const cpuPerRequestUs = round(((await cpuSeconds(replica.pid)) - cpuBefore) / CPU_REQUESTS * 1e6);

    const quiet = await victimLoop(victim, SECONDS, `${mode}-quiet`);
    const noisyStatus: Record<string, number> = {};
    const listMs: number[] = [];
    let stop = false;
    const noise = Promise.all(
      Array.from({ length: NOISY_LISTS }, async () => {
        while (!stop) {
          const started = performance.now();
          const answer = await noisy.send('GET', '/api/v1/namespaces/noisy/configmaps', { keepBody: false }).catch(() => ({ status: 0 }));
          noisyStatus[answer.status] = (noisyStatus[answer.status] ?? 0) + 1;
          if (answer.status === 200) listMs.push(performance.now() - started);
          // A refused client waits as Retry-After would have it, as client-go does.
          if (answer.status === 429) await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }),
    );
    // The noise settles in first.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const loud = await victimLoop(victim, SECONDS, `${mode}-noisy`);
    stop = true;
    await noise;
    listMs.sort((a, b) => a - b);
    return {
      mode,
      cpuPerRequestUs,
      victimQuiet: quiet,
      victimNoisy: loud,
      getP99Ratio: round(loud.getP99Ms / quiet.getP99Ms),
      createP99Ratio: round(loud.createP99Ms / quiet.createP99Ms),
      throughputRatio: round(loud.opsPerSecond / quiet.opsPerSecond),
      noisyAnswers: noisyStatus,
      noisyListP50Ms: percentile(listMs, 50),
    };
  } finally {
    admin.close();
    noisy.close();
    victim.close();
    await replica.stop();
  }
}

async function main(): Promise<void> {
  const etcd = await startEtcd();
  const dir = await mkdtemp(join(tmpdir(), 'plat-bench-fairness-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, 'bench-admin,admin,admin-uid,"system:masters"\nbench-noisy,noisy,noisy-uid\nbench-victim,victim,victim-uid\n');
  const setup = await startReplica([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`, '--etcd-compaction-interval=0']);
  const admin = new Client(setup, 'bench-admin');
  const loadBefore = loadavg();
  try {
    for (let i = 0; i < 100 && (await admin.call('GET', '/readyz')).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const user of ['noisy', 'victim']) {
      await admin.ok('POST', '/api/v1/namespaces', { metadata: { name: user } });
      await admin.ok('POST', `/apis/rbac.authorization.plat.io/v1/namespaces/${user}/rolebindings`, {
        metadata: { name: user },
        roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: user }],
      });
    }
    await admin.ok('POST', '/api/v1/namespaces/victim/configmaps', { metadata: { name: 'seed' }, data: { k: 'v' } });
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < OBJECTS) {
          const i = next++;
          await admin.ok('POST', '/api/v1/namespaces/noisy/configmaps', { metadata: { name: `cm-${i}` }, data: { payload: 'p'.repeat(1000) } });
        }
      }),
    );
  } finally {
    admin.close();
    await setup.stop();
  }
  const results = [];
  try {
    for (const mode of MODES) results.push(await runMode(mode, etcd.endpoint, tokenFile));
  } finally {
    await etcd.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ objects: OBJECTS, noisyLists: NOISY_LISTS, extraArgs: EXTRA_ARGS, seconds: SECONDS, victimInFlight: VICTIM_IN_FLIGHT, results, loadBefore, loadAfter: loadavg(), cores: availableParallelism() }, null, 2));
}

await main();
