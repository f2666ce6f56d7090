// bench/agents: many simulated node agents against one plat-apiserver replica on etcd. The agents
// run in this one process: each is plat-agent's own loops (registration, the Lease heartbeat, status
// posting, a watch of its own Node, its Node events; no servers), with its own clients (connections,
// rate limits, Protobuf; one for events) and its own node credentials (group system:nodes,
// authorized by RBAC), as a real agent's. Short periods: each lease renewed every quarter of
// BENCH_LEASE_SECONDS.
// Measured over a window after every agent has registered and renewed once:
// - Lease renewals/s sustained: overall, and the median and lowest of each second's count, beside
//   the rate the periods ask for (the bare period; with upstream's jitter and the latency added);
// - the intervals between one lease's renewals (p50, p99, max): whether the period was kept, and
//   a renewal's latency (from the renewTime the agent wrote to the answer's arrival: p50, p99);
// - the replica's CPU per renewal: its CPU seconds over the window divided by the renewals (its
//   whole work in the window: the watches' events and the occasional status post included), and
//   etcd's beside it; the load of the machine, shared, for context.
// Prints JSON.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease } from '@plat/apimachinery';
import { Client, EventRecorder, type Logger } from '@plat/client';
import { NodeAgent, NodeEvents, agentClientConfig, agentComponent, eventClientConfig, readMachine } from '@plat/node-agent';
import { startEtcd } from '@plat/storage/testing';
import { startReplica, percentile, round } from '../api/replica.js';
import { cpuSeconds, machineBusySeconds } from '../proc.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 200);
const LEASE_SECONDS = Number(process.env.BENCH_LEASE_SECONDS ?? 2);
const WINDOW_SECONDS = Number(process.env.BENCH_WINDOW_SECONDS ?? 30);
/** Status is computed every this often and posted when it changed (it rarely does here). */
const STATUS_UPDATE_MS = Number(process.env.BENCH_STATUS_UPDATE_MS ?? 10_000);
const STATUS_REPORT_MS = Number(process.env.BENCH_STATUS_REPORT_MS ?? 60_000);
const DOMAIN = 'plat.io';

/** The agents' warnings and errors counted by message, not printed: a failed renewal shows in the figures. */
class CountingLogger implements Logger {
  readonly counts: Record<string, number> = {};
  debug(): void {}
  info(): void {}
  warn(fields: object, message = ''): void {
    this.count('warn', fields, message);
  }
  error(fields: object, message = ''): void {
    this.count('error', fields, message);
  }
  private count(level: string, fields: object, message: string): void {
    const err = (fields as { err?: { message?: string } }).err?.message;
    const key = `${level}: ${message}${err ? ` (${err.slice(0, 120)})` : ''}`;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }
}

async function main(): Promise<void> {
  const etcd = await startEtcd();
  const tokenDir = await mkdtemp(join(tmpdir(), 'plat-bench-agents-'));
  const names = Array.from({ length: AGENTS }, (_, i) => `bench-node-${i}`);
  const tokenOf = (name: string): string => `${name}-${process.pid}`;
  const tokenFile = join(tokenDir, 'tokens.csv');
  await writeFile(tokenFile, names.map((name) => `${tokenOf(name)},system:node:${name},${name}-uid,"system:nodes"`).join('\n') + '\n');
  const replica = await startReplica([`--etcd-servers=${etcd.endpoint}`, `--token-auth-file=${tokenFile}`]);
  const machine = readMachine();
  const logger = new CountingLogger();

  // Renewals by the second they happened in (ms since the start of the window / 1000), and each
  // lease's previous renewal for the intervals.
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  const perSecond = new Array<number>(WINDOW_SECONDS).fill(0);
  const intervals: number[] = [];
  const latencies: number[] = [];
  const lastRenewal = new Map<string, number>();
  let statusPosts = 0;
  const renewed = (name: string, lease: Lease): void => {
    const now = Date.now();
    const previous = lastRenewal.get(name);
    lastRenewal.set(name, now);
    if (now < windowStart || now >= windowEnd) return;
    perSecond[Math.floor((now - windowStart) / 1000)]!++;
    if (previous !== undefined && previous >= windowStart) intervals.push(now - previous);
    // renewTime is the agent's clock when it sent the update, to the microsecond (ms here).
    if (lease.spec?.renewTime) latencies.push(now - Date.parse(lease.spec.renewTime));
  };

  const agents = names.map((name) => {
    const config = { apiVersion: `agent.config.${DOMAIN}/v1beta1`, kind: 'NodeAgentConfiguration', contentType: `application/vnd.plat.protobuf` };
    const clientConfig = agentClientConfig({ server: `https://127.0.0.1:${replica.port}`, ca: replica.ca, token: tokenOf(name) }, config, DOMAIN);
    const client = new Client(clientConfig);
    const eventClient = new Client(eventClientConfig(clientConfig, config));
    const component = agentComponent(DOMAIN);
    const agent = new NodeAgent({
      client,
      events: new NodeEvents(new EventRecorder(eventClient, { component, host: name, logger }), name, component),
      facts: { name, domain: DOMAIN, machine: { ...machine, hostname: name }, port: 10250, maxPods: 110 },
      leaseNamespace: 'plat-node-lease',
      leaseDurationSeconds: LEASE_SECONDS,
      statusUpdateFrequencyMs: STATUS_UPDATE_MS,
      statusReportFrequencyMs: STATUS_REPORT_MS,
      registerNode: true,
      logger,
      onLeaseRenewed: (lease) => renewed(name, lease),
      onStatusPosted: () => {
        if (Date.now() >= windowStart && Date.now() < windowEnd) statusPosts++;
      },
    });
    return { agent, clients: [client, eventClient] };
  });

  try {
    const registerStarted = Date.now();
    const started = await Promise.all(agents.map(({ agent }) => agent.start()));
    if (!started.every(Boolean)) throw new Error('an agent stopped before registering');
    const registeredMs = Date.now() - registerStarted;
    // Every lease renewed once: the steady state.
    while (lastRenewal.size < AGENTS) {
      if (Date.now() - registerStarted > 60_000) throw new Error(`only ${lastRenewal.size} of ${AGENTS} leases renewed within a minute`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const firstRenewalsMs = Date.now() - registerStarted;
    // A period more, so that the first renewals' burst has spread out.
    await new Promise((resolve) => setTimeout(resolve, (LEASE_SECONDS * 1000) / 4));

    const cpuBefore = { replica: await cpuSeconds(replica.pid), etcd: await cpuSeconds(etcd.pid), agents: process.cpuUsage(), machine: await machineBusySeconds() };
    windowStart = Date.now();
    windowEnd = windowStart + WINDOW_SECONDS * 1000;
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
    const elapsed = (Date.now() - windowStart) / 1000;
    const replicaCpu = (await cpuSeconds(replica.pid)) - cpuBefore.replica;
    const etcdCpu = (await cpuSeconds(etcd.pid)) - cpuBefore.etcd;
    const agentsCpu = process.cpuUsage(cpuBefore.agents);
    const machineBusy = (await machineBusySeconds()) - cpuBefore.machine;

    const renewals = perSecond.reduce((sum, n) => sum + n, 0);
    const seconds = [...perSecond].sort((a, b) => a - b);
    intervals.sort((a, b) => a - b);
    latencies.sort((a, b) => a - b);
    const renewMs = (LEASE_SECONDS * 1000) / 4;
    // The period starts when a renewal ends and is stretched by 2 % on average (upstream's jitter).
    const expectedPerSecond = (AGENTS * 1000) / (renewMs * 1.02 + percentile(latencies, 50));
    console.log(
      JSON.stringify(
        {
          agents: AGENTS,
          leaseDurationSeconds: LEASE_SECONDS,
          renewEveryMs: (LEASE_SECONDS * 1000) / 4,
          windowSeconds: WINDOW_SECONDS,
          allRegisteredMs: registeredMs,
          allRenewedOnceMs: firstRenewalsMs,
          renewalsPerSecond: {
            atTheBarePeriod: (AGENTS * 1000) / renewMs,
            expectedWithJitterAndLatency: round(expectedPerSecond),
            sustained: round(renewals / elapsed),
            medianSecond: seconds[Math.floor(seconds.length / 2)],
            lowestSecond: seconds[0],
          },
          renewalIntervalMs: { p50: percentile(intervals, 50), p99: percentile(intervals, 99), max: intervals.at(-1) },
          renewalLatencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
          statusPostsInWindow: statusPosts,
          replicaCpu: {
            seconds: round(replicaCpu),
            cores: round(replicaCpu / elapsed),
            msPerRenewal: round((replicaCpu * 1000) / renewals),
          },
          etcdCpuMsPerRenewal: round((etcdCpu * 1000) / renewals),
          agentsProcessCpuMsPerRenewal: round((agentsCpu.user + agentsCpu.system) / 1000 / renewals),
          machineBusyCores: round(machineBusy / elapsed),
          agentWarningsAndErrors: logger.counts,
        },
        null,
        2,
      ),
    );
  } finally {
    await Promise.all(agents.map(({ agent }) => agent.shutdown(0)));
    for (const { clients } of agents) for (const client of clients) client.close();
    await replica.stop();
    await etcd.stop();
    await rm(tokenDir, { recursive: true, force: true });
  }
}

await main();
