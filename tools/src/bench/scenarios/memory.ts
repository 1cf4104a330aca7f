/**
 * Peak memory: VmHWM (the peak resident set since the process started) of every service process,
 * read after the other scenarios loaded them. Dispatchers are read just before they are stopped.
 */
import type { BenchContext } from '../context.js';
import { fmt, type Check, type ScenarioResult } from '../model.js';
import { memoryOf, processTree, type Memory } from '../proc.js';

/** The ceiling for each API process under load, MiB. */
const API_RSS_LIMIT_MIB = 200;

/**
 * Memory rows of a service: the process alone, or a cluster primary and each of its workers.
 * @returns rows labelled `<label>` / `<label> primary` / `<label> worker k of n`
 */
function serviceRows(label: string, pid: number): Array<{ label: string; memory: Memory; serves: boolean }> {
  const [primary, ...workers] = processTree(pid);
  if (!workers.length) return [{ label, memory: memoryOf(primary!), serves: true }];
  return [
    { label: `${label} primary (supervises, serves nothing)`, memory: memoryOf(primary!), serves: false },
    ...workers.map((w, i) => ({ label: `${label} worker ${i + 1} of ${workers.length}`, memory: memoryOf(w), serves: true })),
  ];
}

/** Reads the peak memory of every service process of the run (call last). */
export async function memoryScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack } = ctx;
  const api = serviceRows('API (services/api)', stack.api.child.pid!);
  const rows: Array<{ label: string; memory: Memory; serves?: boolean }> = [
    ...api,
    ...serviceRows('Issuer (services/auth)', stack.auth.child.pid!),
    ...stack.stoppedMemory,
  ];
  const checks: Check[] = rows.map((row) => {
    const { label, memory } = row;
    // The target is for each API process that served the load; other processes are reported beside it.
    const isApi = api.some((a) => a === row && a.serves);
    return {
      what: `Peak RSS: ${label}`,
      value: `${fmt(memory.peakMiB)} MiB`,
      reference: `now ${fmt(memory.currentMiB)} MiB`,
      ratio: isApi ? `${((memory.peakMiB / API_RSS_LIMIT_MIB) * 100).toFixed(0)}% of limit` : '',
      target: isApi ? `< ${API_RSS_LIMIT_MIB} MiB` : '',
      met: isApi ? memory.peakMiB < API_RSS_LIMIT_MIB : null,
    };
  });
  const notes = [
    'VmHWM from `/proc/<pid>/status`: the highest resident set the process reached since it started, so it covers every load the ' +
      'process served in this run (the API served all list, search and verification runs). With `WEB_CONCURRENCY` workers each ' +
      'worker is its own process with its own row; the target holds for every one of them.',
  ];
  return { name: 'memory', title: 'Peak memory under load', runs: [], checks, notes };
}
