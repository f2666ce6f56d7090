// What the benchmarks read of other processes and of the machine, from /proc.
import { readFile } from 'node:fs/promises';

/** USER_HZ: /proc's unit for CPU times, 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kib / 1024);
}

/** CPU seconds (user + system) the process has used so far. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU seconds the whole machine has been busy so far (every state but idle and iowait): beside
 * the processes' own figures, it says whether a benchmark had the machine to itself or waited
 * for cores.
 */
export async function machineBusySeconds(): Promise<number> {
  const stat = await readFile('/proc/stat', 'utf8');
  // "cpu  user nice system idle iowait irq softirq steal ...", summed over every core.
  const times = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number);
  const total = times.slice(0, 8).reduce((sum, t) => sum + t, 0);
  return (total - times[3]! - times[4]!) / CLOCK_TICKS_PER_SECOND;
}
