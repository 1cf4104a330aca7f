/**
 * The database clock the worker decides by (docs/api.md section 9): the time of the current
 * transaction on the PostgreSQL server, plus an optional offset that tests and local demos use to
 * run time forward without waiting.
 */
import type { Knex } from '@dms/db';

/** The moment a change is decided at. */
export interface Clock {
  /** Database time plus the offset. */
  now: Date;
  /** `now` as a UTC calendar day, `YYYY-MM-DD` (instalment dates are days). */
  today: string;
  /** The worker's offset (seconds): added to a tenant's clock (`tenant_now`) by the changes that read it. */
  offsetSeconds: number;
}

/**
 * Reads the clock inside `trx` (PostgreSQL's `now()`, the transaction start, so every check of
 * one change sees the same moment).
 * @param offsetSeconds added to the database time (0 outside tests and demos)
 */
export async function readClock(trx: Knex.Transaction, offsetSeconds: number): Promise<Clock> {
  const { rows } = await trx.raw(`SELECT t AS now, (t AT TIME ZONE 'UTC')::date::text AS today FROM (SELECT now() + make_interval(secs => ?) AS t) AS c`, [
    offsetSeconds,
  ]);
  return { now: new Date(rows[0].now), today: rows[0].today, offsetSeconds };
}
