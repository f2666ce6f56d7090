// bench/authz: RBAC decisions per second for a user bound through 1,000 RoleBindings and 200
// ClusterRoleBindings (among 10,000 other users' bindings), warm and right after an RBAC change.
// Prints JSON: median and p99 microseconds per decision.
import { RbacIndex, authorize } from '@plat/auth';
import { fillBenchmarkIndex } from '@plat/auth/testing';

const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 200_000);

const index = new RbacIndex({ domain: 'plat.io' });
const { requests } = fillBenchmarkIndex(index, { roleBindings: 1000, clusterRoleBindings: 200, otherBindings: 10_000 });

function timeEach(count: number, decide: (i: number) => void): { medianMicros: number; p99Micros: number } {
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    decide(i);
    times[i] = Number(process.hrtime.bigint() - started) / 1000;
  }
  times.sort();
  const at = (q: number) => Math.round(times[Math.floor(count * q)]! * 100) / 100;
  return { medianMicros: at(0.5), p99Micros: at(0.99) };
}

let allowed = 0;
const decide = (i: number): void => {
  if (authorize(index, requests[i % requests.length]!).decision === 'Allow') allowed++;
};
timeEach(10_000, decide);
allowed = 0;
const started = process.hrtime.bigint();
const warm = timeEach(DECISIONS, decide);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
// After any RBAC change the index recompiles a user's rules on its next decision.
const cold = timeEach(50, (i) => {
  index.upsert('ClusterRole', { metadata: { name: `churn-${i}` }, rules: [] });
  decide(i);
});

process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'authz',
      roleBindings: 1000,
      clusterRoleBindings: 200,
      otherBindings: 10_000,
      decisions: DECISIONS,
      allowedShare: Math.round((allowed / DECISIONS) * 100) / 100,
      decisionsPerSecond: Math.round(DECISIONS / seconds),
      warm,
      afterRbacChange: cold,
    },
    null,
    2,
  )}\n`,
);
