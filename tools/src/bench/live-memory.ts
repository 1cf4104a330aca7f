/**
 * The live memory of one service process while it serves a request: the process runs with
 * `--expose-gc` and the gc-probe.ts preload, which forces a full collection before each sample, so
 * a sample is what the process still references (a buffered answer shows; garbage the collector
 * has not reached yet does not). Growth is the highest sample while the request runs minus the
 * median of an idle window just before it. Used by the personal-data scenario (docs/api.md
 * section 20: the export streams with flat memory).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningService } from '../processes.js';
import type { Stack } from './stack.js';

/** The probe's sampling interval, ms (each sample is a full collection, so not much finer). */
export const PROBE_MS = 20;
/** Samples of the idle window before each measured request (counted, not timed: a busy machine slows the probe). */
const IDLE_SAMPLES = 10;
/** Longest wait for the probe's samples, ms. */
const PROBE_PATIENCE_MS = 60_000;

/** A service process with the probe, and the file it samples into. */
export interface ProbedService {
  service: RunningService;
  file: string;
}

/**
 * Starts one API process (`WEB_CONCURRENCY=1`: no cluster, the process serving is the one probed)
 * with `--expose-gc` and the probe; `stack.stopExtra()` stops it.
 * @param label the process's name in the memory report
 */
export async function startProbedApi(stack: Stack, label: string): Promise<ProbedService> {
  const file = join(mkdtempSync(join(tmpdir(), 'dms-gc-probe-')), 'samples');
  const probe = new URL('./gc-probe.js', import.meta.url).href;
  const nodeOptions = [stack.env.NODE_OPTIONS, '--expose-gc', `--import=${probe}`].filter(Boolean).join(' ');
  const service = await stack.startService('api', label, {
    WEB_CONCURRENCY: '1',
    NODE_OPTIONS: nodeOptions,
    BENCH_GC_PROBE_FILE: file,
    BENCH_GC_PROBE_MS: String(PROBE_MS),
  });
  return { service, file };
}

/** The probe's samples taken in `[from, to]` (epoch ms), bytes. */
function samplesBetween(file: string, from: number, to: number): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ').map(Number) as [number, number])
    .filter(([at]) => at >= from && at <= to)
    .map(([, bytes]) => bytes);
}

/**
 * Waits until the probe has written `count` samples taken at or after `from`.
 * @throws when it has not within PROBE_PATIENCE_MS (the probe does not run)
 */
async function untilSamples(file: string, from: number, count: number): Promise<void> {
  const deadline = Date.now() + PROBE_PATIENCE_MS;
  while (samplesBetween(file, from, Infinity).length < count) {
    if (Date.now() > deadline) throw new Error(`gc probe: fewer than ${count} samples in ${file} after ${PROBE_PATIENCE_MS} ms`);
    await sleep(PROBE_MS);
  }
}

/** What one measured request took: live memory growth, the idle base and the peak (bytes), its result and time. */
export interface LiveGrowth<T> {
  growth: number;
  base: number;
  peak: number;
  samples: number;
  result: T;
  ms: number;
}

/**
 * Runs `work` (a request to the probed process) after an idle window of IDLE_SAMPLES samples and
 * measures the live memory it made the process hold: the samples from its start to the first
 * sample after it ended.
 * @throws when the probe writes no samples (see untilSamples)
 */
export async function liveGrowth<T>(probed: ProbedService, work: () => Promise<T>): Promise<LiveGrowth<T>> {
  const idleFrom = Date.now();
  await untilSamples(probed.file, idleFrom, IDLE_SAMPLES);
  const start = Date.now();
  const result = await work();
  const end = Date.now();
  await untilSamples(probed.file, end, 1);
  const idle = samplesBetween(probed.file, idleFrom, start - 1).sort((a, b) => a - b);
  const after = samplesBetween(probed.file, end, Infinity)[0]!;
  const during = [...samplesBetween(probed.file, start, end), after];
  const base = idle[Math.floor(idle.length / 2)]!;
  const peak = Math.max(...during);
  return { growth: peak - base, base, peak, samples: during.length, result, ms: end - start };
}
