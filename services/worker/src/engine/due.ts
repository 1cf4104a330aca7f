/**
 * What the collection engine's changes find due (docs/api.md sections 12 and 13), as query
 * builders over `debts` that the claims lock (`FOR UPDATE SKIP LOCKED`) and the lag gauges read
 * without locking (docs/api.md section 11, `dms_engine_lag_seconds`):
 * - intake: `prepared`, `adjusted`, `resumed` debts, and `enriching` or `contact_failed` ones whose
 *   customer has a usable contact detail added or changed since; due since the debt entered its
 *   status (or since that detail changed), by the database clock (the engine takes them in at once);
 * - steps: debts being worked whose `engine_due_at` has come by their tenant's clock plus the worker's offset;
 * - reconcile: debts with a communication handed over more than `afterSeconds` ago by that clock
 *   and still `queued`; due `afterSeconds` after the hand-over.
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { debtsResource } from '@dms/domain/debts';
import { INTAKE_STATUSES, STEP_STATUSES, USABLE_DETAIL_STATUSES, WAITING_FOR_DETAIL_STATUSES } from '@dms/domain/communications';
import { tenantMoment, type Clock } from '../changes/clock.js';

/** A due-row query and, in SQL over its rows, how many seconds each has waited. */
export interface DueQuery {
  query: Knex.QueryBuilder;
  /** SQL of a row's wait in seconds (its bindings in `waitBindings`). */
  waitSql: string;
  waitBindings: readonly unknown[];
}

/** The engine's moment for the debt's tenant (its clock plus the worker's offset), for a `whereRaw`. */
const ENGINE_NOW = tenantMoment('debts.tenant_id');

/** SQL of the usable contact details of the debt's customer changed since the debt entered its status (bindings: the usable statuses). */
const NEW_DETAILS = `FROM customer_contact_details d
  WHERE d.customer_id = debts.customer_id AND d.status IN (${USABLE_DETAIL_STATUSES.map(() => '?').join(', ')}) AND d.updated_at > debts.status_updated_at`;

/** Debts the engine takes in. */
export function dueIntake(trx: Knex | Knex.Transaction, tenantIds: readonly string[]): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds).where((w) =>
    w
      .whereIn('debts.status', INTAKE_STATUSES)
      .orWhere((waiting) => waiting.whereIn('debts.status', WAITING_FOR_DETAIL_STATUSES).whereRaw(`EXISTS (SELECT 1 ${NEW_DETAILS})`, USABLE_DETAIL_STATUSES)),
  );
  // A waiting debt is due since the first of its new details changed.
  const intake = INTAKE_STATUSES.map(() => '?').join(', ');
  return {
    query,
    waitSql: `extract(epoch FROM now() - CASE WHEN debts.status IN (${intake}) THEN debts.status_updated_at ELSE (SELECT min(d.updated_at) ${NEW_DETAILS}) END)`,
    waitBindings: [...INTAKE_STATUSES, ...USABLE_DETAIL_STATUSES],
  };
}

/** Debts whose next strategy step is due. */
export function dueSteps(trx: Knex | Knex.Transaction, clock: Clock, tenantIds: readonly string[]): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds)
    .whereIn('debts.status', STEP_STATUSES)
    .whereNotNull('debts.engine_due_at')
    .whereRaw(`debts.engine_due_at <= ${ENGINE_NOW}`, [clock.offsetSeconds]);
  return { query, waitSql: `extract(epoch FROM ${ENGINE_NOW} - debts.engine_due_at)`, waitBindings: [clock.offsetSeconds] };
}

/** Debts with a communication whose outcome was lost (handed over `afterSeconds` ago, still `queued`); joins it as `c`. */
export function dueReconcile(trx: Knex | Knex.Transaction, clock: Clock, tenantIds: readonly string[], afterSeconds: number): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds)
    .join('communications as c', (j) => j.on('c.debt_id', 'debts.id').andOn('c.tenant_id', 'debts.tenant_id'))
    .where('c.status', 'queued')
    .whereRaw(`c.handed_at < ${ENGINE_NOW} - make_interval(secs => ?)`, [clock.offsetSeconds, afterSeconds]);
  return {
    query,
    waitSql: `extract(epoch FROM ${ENGINE_NOW} - make_interval(secs => ?) - c.handed_at)`,
    waitBindings: [clock.offsetSeconds, afterSeconds],
  };
}

/**
 * When the longest-waiting row of `due` became due, as a moment of `clock.now` (the lag gauges
 * subtract it from `clock.now`), or null when none is due.
 */
export async function oldestDueOf(due: DueQuery, clock: Clock): Promise<Date | null> {
  const row = await due.query
    .clone()
    .clearSelect()
    .first<{ waited: string | number | null } | undefined>(due.query.client.raw(`max(${due.waitSql}) AS waited`, due.waitBindings));
  if (row?.waited === null || row?.waited === undefined) return null;
  return new Date(clock.now.getTime() - Math.max(0, Number(row.waited)) * 1000);
}
