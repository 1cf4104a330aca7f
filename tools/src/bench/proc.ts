/**
 * What Linux reports about a process in /proc: its CPU time and its resident memory, for the
 * per-request CPU cost and the peak-memory figures of the services under load. A service run with
 * `WEB_CONCURRENCY` workers is a primary with worker children: CPU counts the whole tree, memory is
 * read per process (the target is per API process).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Fields after the parenthesised command name of /proc/<pid>/stat (state is [0], ppid [1]). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * `pid` and every live descendant of it (cluster workers and their children), parents first.
 * @throws when `pid` itself is gone
 */
export function processTree(pid: number): number[] {
  statFields(pid);
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = statFields(Number(entry));
      if (f[0] !== 'Z') parentOf.set(Number(entry), Number(f[1]));
    } catch {
      // ended while listing
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** Peak and current resident memory of a process, MiB (from /proc/<pid>/status). */
export interface Memory {
  peakMiB: number;
  currentMiB: number;
}

/**
 * Reads VmHWM (peak resident set) and VmRSS of `pid`.
 * @throws when the process is gone
 */
export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMiB: kib('VmHWM') / 1024, currentMiB: kib('VmRSS') / 1024 };
}

/** Clock ticks per second of /proc CPU times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time (user + system) consumed so far by process `pid` and its live descendants (a cluster
 * primary and its workers), milliseconds.
 * @throws when the process is gone
 */
export function cpuTimeMs(pid: number): number {
  let ms = 0;
  for (const p of processTree(pid)) {
    try {
      // utime and stime are fields 14 and 15 of the stat line.
      const fields = statFields(p);
      ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
    } catch {
      // a worker that ended between the listing and the read
    }
  }
  return ms;
}
