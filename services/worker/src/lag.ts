/**
 * What the worker's gauges read at scrape time (docs/api.md section 11, "Dashboards and alerts"):
 * how far behind each kind of time-driven change is, and how much time the history's partitions
 * still cover ahead.
 */
import { PARTITIONED_TABLES, listPartitions, type Knex } from '@dms/db';
import { readClock } from './changes/clock.js';
import type { TimedChange } from './changes/types.js';

/** One change kind's lag: the gauge it belongs to and seconds since its oldest due row became due (0: none due). */
export interface ChangeLag {
  change: string;
  metric: 'engine' | 'payout';
  seconds: number;
}

/**
 * The lag of every change kind, read in one read-only transaction at the worker's clock (the
 * database time plus `WORKER_CLOCK_OFFSET_SECONDS`).
 * @param tenantIds only these tenants (empty: all), as the worker's claims
 */
export async function readLags(db: Knex, changes: readonly TimedChange[], offsetSeconds: number, tenantIds: readonly string[]): Promise<ChangeLag[]> {
  return db.transaction(
    async (trx) => {
      const clock = await readClock(trx, offsetSeconds);
      const lags: ChangeLag[] = [];
      for (const change of changes) {
        if (!change.oldestDue) continue;
        const due = await change.oldestDue(trx, clock, tenantIds);
        lags.push({ change: change.name, metric: change.lagMetric ?? 'engine', seconds: due ? Math.max(0, (clock.now.getTime() - due.getTime()) / 1000) : 0 });
      }
      return lags;
    },
    { readOnly: true },
  );
}

/**
 * Seconds from now (database time) to the upper bound of the newest partition of each partitioned
 * table: how long inserts still find a partition if the retention job stopped creating them.
 * Negative once past it; a table without partitions is left out.
 */
export async function readPartitionRunway(db: Knex): Promise<Array<{ table: string; seconds: number }>> {
  const { rows } = await db.raw<{ rows: Array<{ now: Date }> }>('SELECT now() AS now');
  const now = new Date(rows[0]!.now).getTime();
  const out: Array<{ table: string; seconds: number }> = [];
  for (const { table } of PARTITIONED_TABLES) {
    const last = (await listPartitions(db, table)).at(-1);
    if (last) out.push({ table, seconds: (last.to.getTime() - now) / 1000 });
  }
  return out;
}
