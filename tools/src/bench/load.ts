/**
 * HTTP load from a second process on loopback (autocannon in load-worker.ts): a warm-up, then a
 * fixed-duration measured run; returns throughput and p50/p99 latency of the successful responses.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { quantile, type LoadRun, type RunKind } from './model.js';
import { cpuTimeMs } from './proc.js';

/** One request shape; `variants` are taken round-robin per request. */
export interface RequestVariant {
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What the load worker is told to do. */
export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  connections: number;
  durationSec: number;
  warmupSec: number;
  headers?: Record<string, string>;
  body?: string;
  variants?: RequestVariant[];
  /** Fixed request rate over all connections, per second (default: as fast as possible). */
  rate?: number;
}

/** What the load worker reports (latencies in ms, 2xx only). */
export interface LoadWorkerResult {
  ok: number;
  elapsedSec: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  latencies: number[];
  /** Successful responses during the warm-up. */
  warmupOk: number;
}

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** Runs the load worker once and returns its raw result. */
export function runLoadWorker(spec: LoadSpec): Promise<LoadWorkerResult> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    let settled = false;
    child.once('message', (msg: { result?: LoadWorkerResult; error?: string }) => {
      settled = true;
      if (msg.result) resolve(msg.result);
      else reject(new Error(`load worker failed: ${msg.error}`));
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`load worker exited with code ${code} before reporting`));
    });
    child.send(spec);
  });
}

/**
 * Measures one endpoint.
 * @throws when any response was not 2xx or a connection failed: a benchmark of errors would
 *   flatter (or slander) the service, so the run is refused instead of reported
 */
export async function measureHttp(key: string, label: string, kind: RunKind, spec: LoadSpec, servicePid?: number): Promise<LoadRun> {
  // CPU of the service is read around the whole worker run; the warm-up's share is removed below.
  const cpuBefore = servicePid ? cpuTimeMs(servicePid) : 0;
  const r = await runLoadWorker(spec);
  const cpuMs = servicePid ? cpuTimeMs(servicePid) - cpuBefore : NaN;
  const bad = Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2'));
  if (bad.length || r.errors || r.timeouts) {
    throw new Error(
      `${label}: ${bad.map(([c, n]) => `${n}× HTTP ${c}`).join(', ') || 'no bad status'}; ${r.errors} errors, ${r.timeouts} timeouts (${spec.method} ${spec.url})`,
    );
  }
  const lat = Float64Array.from(r.latencies);
  return {
    key,
    label,
    kind,
    rps: r.ok / r.elapsedSec,
    p50: quantile(lat, 0.5),
    p99: quantile(lat, 0.99),
    count: r.ok,
    durationSec: r.elapsedSec,
    concurrency: spec.connections,
    // Warm-up and measured run see the same load, so CPU is apportioned by their request counts.
    ...(servicePid ? { cpuMsPerOp: cpuMs / (r.ok + r.warmupOk) } : {}),
  };
}
