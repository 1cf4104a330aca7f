/**
 * The database's own ceiling for a query: `pgbench` with a custom script (prepared statements,
 * the same number of clients as the HTTP run), a discarded warm-up, then a fixed-duration run with
 * per-transaction logging, from which p50/p99 are computed like the HTTP runs'.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { quantile, type LoadRun, type RunKind } from './model.js';

const exec = promisify(execFile);

/** A pgbench workload: the script text (pgbench syntax, `:name` variables) and its variables. */
export interface PgbenchSpec {
  databaseUrl: string;
  script: string;
  vars: Record<string, string>;
  clients: number;
  durationSec: number;
  warmupSec: number;
  /**
   * Transactions per client instead of a duration (`-t`), for statements so slow that a fixed
   * duration would end with none finished (OFFSET paging).
   */
  transactions?: number;
}

async function pgbench(spec: PgbenchSpec, durationSec: number, logPrefix?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dms-pgbench-'));
  try {
    const file = join(dir, 'script.sql');
    await writeFile(file, spec.script);
    const args = ['-n', '-M', 'prepared', '-c', String(spec.clients), '-j', String(Math.min(spec.clients, availableParallelism()))];
    if (spec.transactions) args.push('-t', String(spec.transactions), '-f', file);
    else args.push('-T', String(Math.max(1, Math.round(durationSec))), '-f', file);
    for (const [k, v] of Object.entries(spec.vars)) args.push('-D', `${k}=${v}`);
    if (logPrefix) args.push('-l', '--log-prefix', logPrefix);
    args.push(spec.databaseUrl);
    const { stdout } = await exec('pgbench', args, { maxBuffer: 16 << 20 });
    const failed = /number of failed transactions: (\d+)/.exec(stdout);
    if (failed && Number(failed[1]) > 0) throw new Error(`pgbench: ${failed[1]} failed transactions`);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `spec` and returns its throughput (transactions/s, initial connection time excluded) and
 * latency percentiles (ms, from the per-transaction log).
 * @throws when pgbench is missing, a transaction fails, or the output cannot be parsed
 */
export async function measurePgbench(key: string, label: string, kind: RunKind, spec: PgbenchSpec): Promise<LoadRun> {
  if (spec.warmupSec > 0 && !spec.transactions) await pgbench(spec, spec.warmupSec);
  const logDir = await mkdtemp(join(tmpdir(), 'dms-pgbench-log-'));
  try {
    const stdout = await pgbench(spec, spec.durationSec, join(logDir, 'tx'));
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
    if (!tps || !processed) throw new Error(`unexpected pgbench output:\n${stdout}`);
    const latencies: number[] = [];
    for (const f of await readdir(logDir)) {
      for (const line of (await readFile(join(logDir, f), 'utf8')).split('\n')) {
        // client_id transaction_no time_us script_no epoch epoch_us
        const us = line.split(' ')[2];
        if (us) latencies.push(Number(us) / 1000);
      }
    }
    const lat = Float64Array.from(latencies);
    return {
      key,
      label,
      kind,
      rps: Number(tps[1]),
      p50: quantile(lat, 0.5),
      p99: quantile(lat, 0.99),
      count: Number(processed[1]),
      durationSec: spec.transactions ? Number(processed[1]) / Number(tps[1]) : spec.durationSec,
      concurrency: spec.clients,
    };
  } finally {
    await rm(logDir, { recursive: true, force: true });
  }
}

/** `pgbench --version`, e.g. `pgbench (PostgreSQL) 15.20`. */
export async function pgbenchVersion(): Promise<string> {
  const { stdout } = await exec('pgbench', ['--version']);
  return stdout.trim();
}
