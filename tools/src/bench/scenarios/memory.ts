/**
 * Peak memory: VmHWM (the peak resident set since the process started) of every service process,
 * read after the other scenarios loaded them. Dispatchers are read just before they are stopped.
 */
import type { BenchContext } from '../context.js';
import { fmt, type Check, type ScenarioResult } from '../model.js';
import { memoryOf, type Memory } from '../proc.js';

/** The ceiling for the API under load, MiB. */
const API_RSS_LIMIT_MIB = 250;

/** Reads the peak memory of every service process of the run (call last). */
export async function memoryScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack } = ctx;
  const api = { label: 'API (services/api)', memory: memoryOf(stack.api.child.pid!) };
  const rows: Array<{ label: string; memory: Memory }> = [api, { label: 'Issuer (services/auth)', memory: memoryOf(stack.auth.child.pid!) }, ...stack.stoppedMemory];
  const checks: Check[] = rows.map((row) => {
    const { label, memory } = row;
    // The target is for the API that served the load; other processes are reported beside it.
    const isApi = row === api;
    return {
      what: `Peak RSS: ${label}`,
      value: `${fmt(memory.peakMiB)} MiB`,
      reference: `now ${fmt(memory.currentMiB)} MiB`,
      ratio: isApi ? `${((memory.peakMiB / API_RSS_LIMIT_MIB) * 100).toFixed(0)}% of limit` : '',
      target: isApi ? `< ${API_RSS_LIMIT_MIB} MB` : '',
      met: isApi ? memory.peakMiB < API_RSS_LIMIT_MIB : null,
    };
  });
  const notes = [
    'VmHWM from `/proc/<pid>/status`: the highest resident set the process reached since it started, so it covers every load the ' +
      'process served in this run (the API served all list, search and verification runs).',
  ];
  return { name: 'memory', title: 'Peak memory under load', runs: [], checks, notes };
}
