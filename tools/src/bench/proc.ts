/**
 * What Linux reports about a process in /proc: its CPU time and its resident memory, for the
 * per-request CPU cost and the peak-memory figures of the services under load.
 */
import { readFileSync } from 'node:fs';

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
 * CPU time (user + system) consumed so far by process `pid`, milliseconds.
 * @throws when the process is gone
 */
export function cpuTimeMs(pid: number): number {
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

