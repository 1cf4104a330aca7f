/**
 * What every scenario receives: the settings, the running stack, and the data set (loaded once,
 * on first use, and shared by the scenarios that need it).
 */
import type { Knex } from '@dms/db';
import { loadDataset, type Dataset } from './dataset.js';
import { log } from './log.js';
import type { BenchSettings } from './settings.js';
import type { Stack } from './stack.js';

/** The progress log (log.ts), also here for the scenarios, which take it with the context. */
export { log } from './log.js';

/** Shared state of one benchmark run, handed to each scenario. */
export class BenchContext {
  readonly settings: BenchSettings;
  readonly stack: Stack;
  #dataset?: Promise<Dataset>;

  constructor(settings: BenchSettings, stack: Stack) {
    this.settings = settings;
    this.stack = stack;
  }

  /** The two tenants with `BENCH_DEBTS` debts each (loaded on first call). */
  dataset(): Promise<Dataset> {
    this.#dataset ??= loadDataset(this.stack, this.settings.debtsPerTenant).then((d) => {
      log(
        `data set: 2 × ${d.debtsPerTenant.toLocaleString('en-GB')} debts loaded in ${d.loadSeconds.toFixed(1)} s (${d.debtsMiB.toFixed(0)} MiB with indexes)`,
      );
      return d;
    });
    return this.#dataset;
  }

  /** Load-run timing shared by every scenario, so both sides of a ratio run alike. */
  timing(): { durationSec: number; warmupSec: number } {
    return { durationSec: this.settings.durationSec, warmupSec: this.settings.warmupSec };
  }
}

/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of a statement, run a few times so the figure is warm, returning the
 * last plan as text.
 */
export async function explainAnalyze(db: Knex, sql: string, bindings: readonly unknown[] = [], runs = 3): Promise<string> {
  let plan = '';
  for (let i = 0; i < runs; i++) {
    const { rows } = await db.raw(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, bindings as Knex.RawBinding[]);
    plan = (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
  }
  return plan;
}

/** The `Execution Time` of an EXPLAIN ANALYZE plan, ms. */
export function executionMs(plan: string): number {
  return Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);
}

/**
 * EXPLAIN ANALYZE of a statement as it would run without index `index`: the index is dropped inside
 * a transaction that is rolled back, so the comparison runs on the same data in the same run.
 * DROP INDEX locks the table until the rollback: call it only while nothing else is measured.
 */
export async function explainWithoutIndex(db: Knex, index: string, sql: string, bindings: readonly unknown[] = []): Promise<string> {
  let plan = '';
  await db
    .transaction(async (trx) => {
      await trx.raw('DROP INDEX ??', [index]);
      plan = await explainAnalyze(trx, sql, bindings, 2);
      throw new RolledBack();
    })
    .catch((err) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  return plan;
}

class RolledBack extends Error {}
