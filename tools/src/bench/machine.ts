/**
 * The machine a run measured: CPU, cores, memory, load, and the versions of Node, PostgreSQL and
 * pgbench, written at the top of BENCHMARKS.md (figures mean little without them).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { pgbenchVersion } from './pgbench.js';
import type { BenchSettings } from './settings.js';

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  /** 1-minute load average when the run started (other work on the machine shows here). */
  loadAverage: number;
  node: string;
  postgres: string;
  pgbench: string;
}

/** Describes this machine and the PostgreSQL server of `settings`. */
export async function describeMachine(settings: BenchSettings): Promise<Machine> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const client = new pg.Client({ connectionString: settings.adminUrl });
  await client.connect();
  let postgres: string;
  try {
    postgres = (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
  } finally {
    await client.end();
  }
  return {
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown CPU',
    cores: availableParallelism(),
    memoryGiB: totalmem() / 2 ** 30,
    loadAverage: loadavg()[0]!,
    node: `Node ${process.version}`,
    postgres: `PostgreSQL ${postgres}`,
    pgbench: await pgbenchVersion(),
  };
}
