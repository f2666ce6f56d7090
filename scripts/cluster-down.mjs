// `make cluster-down`: stops the processes that scripts/cluster-up.mjs started, by the PIDs in
// <dir>/pids (controller-managers first, etcd last), and removes the folder.
//
//   node scripts/cluster-down.mjs [--dir=.cluster] [--keep-state]
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=') || 'true'];
  }),
);
const dir = resolve(args.dir || '.cluster');
const pidFile = join(dir, 'pids');
const GRACE_MS = 15_000;

/** Running: it exists and is not a zombie (our processes outlive cluster-up, so init reaps them). */
const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
};
/** The process is still the one we started: its command line names the executable we recorded. */
const isOurs = (pid, executable) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(executable);
  } catch {
    return false;
  }
};

if (!existsSync(dir)) {
  process.stderr.write(`cluster: nothing at ${dir}\n`);
  process.exit(0);
}
const entries = existsSync(pidFile)
  ? (await readFile(pidFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [name, pid, executable] = line.split(' ');
        return { name, pid: Number(pid), executable };
      })
  : [];
// Reverse start order: controller-managers, haproxy, replicas, redis, etcd.
for (const { name, pid, executable } of entries.reverse()) {
  if (!isAlive(pid) || !isOurs(pid, executable)) continue;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) {
    process.stderr.write(`cluster: ${name} (${pid}) did not stop within ${GRACE_MS} ms: SIGKILL\n`);
    process.kill(pid, 'SIGKILL');
  }
  process.stderr.write(`cluster: stopped ${name} (${pid})\n`);
}
if (args['keep-state'] !== 'true') await rm(dir, { recursive: true, force: true });
process.stderr.write(`cluster: down${args['keep-state'] === 'true' ? `; state kept in ${dir}` : `; removed ${dir}`}\n`);
