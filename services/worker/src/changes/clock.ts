/**
 * The clocks the worker decides by (docs/api.md sections 9 and 15): each tenant's own, SQL
 * `tenant_now(tenant)` (the database time of the transaction, plus the tenant's
 * `clock_offset_seconds`, which only a test-mode tenant may move forward), plus the worker's own
 * offset that tests and local demos use to run every clock forward without waiting (0 in production).
 * A claim of due work compares each row against its own tenant's clock, so advancing a test
 * tenant's clock makes only that tenant's work due; it is also bounded by the clock furthest ahead
 * (`horizon`), which keeps the claim on its index.
 */
import type { Knex } from '@dms/db';

/** The moments one check decides at. */
export interface Clock {
  /** Database time + the worker's offset: the live tenants' clock (lag gauges measure against it). */
  now: Date;
  /** The furthest any tenant's clock shows now: database time + the worker's offset + the largest tenant offset. */
  horizon: Date;
  /** `horizon` as a UTC calendar day, `YYYY-MM-DD` (instalment dates are days). */
  horizonDay: string;
  /** `now` as a UTC calendar day, `YYYY-MM-DD`: the live tenants' day. */
  today: string;
  /** The worker's own offset, seconds, added to every tenant's clock. */
  offsetSeconds: number;
}

/**
 * Reads the clock inside `trx` (PostgreSQL's `now()`, the transaction start, so every check of
 * one change sees the same moment).
 * @param offsetSeconds added to every tenant's time (0 outside tests and demos)
 */
export async function readClock(trx: Knex.Transaction, offsetSeconds: number): Promise<Clock> {
  const { rows } = await trx.raw(
    `SELECT n AS now, (n AT TIME ZONE 'UTC')::date::text AS today, t AS horizon, (t AT TIME ZONE 'UTC')::date::text AS day
       FROM (SELECT now() + make_interval(secs => ?) AS n,
                    now() + make_interval(secs => ? + coalesce((SELECT max(clock_offset_seconds) FROM tenants WHERE clock_offset_seconds > 0), 0)) AS t) AS c`,
    [offsetSeconds, offsetSeconds],
  );
  return { now: new Date(rows[0].now), horizon: new Date(rows[0].horizon), horizonDay: rows[0].day, today: rows[0].today, offsetSeconds };
}

/** SQL of the moment of the tenant in column `tenantColumn` (a trusted column name), for a `whereRaw`. */
export function tenantMoment(tenantColumn: string): string {
  return `(tenant_now(${tenantColumn}) + make_interval(secs => ?))`;
}

/** SQL of the UTC calendar day of the tenant in column `tenantColumn`, for a `whereRaw`. */
export function tenantDay(tenantColumn: string): string {
  return `(${tenantMoment(tenantColumn)} AT TIME ZONE 'UTC')::date`;
}

/** Tenant `tenantId`'s calendar day (`YYYY-MM-DD`, UTC) by `clock`. */
export async function tenantToday(trx: Knex.Transaction, tenantId: string, clock: Clock): Promise<string> {
  const { rows } = await trx.raw(`SELECT ${tenantDay('?')}::text AS today`, [tenantId, clock.offsetSeconds]);
  return rows[0].today as string;
}
