/**
 * What the collection engine's changes find due (docs/api.md sections 12 and 13), as query
 * builders over `debts` that the claims lock (`FOR UPDATE SKIP LOCKED`) and the lag gauges read
 * without locking (docs/api.md section 11, `dms_engine_lag_seconds`):
 * - intake: `prepared`, `adjusted`, `resumed` debts (`dueIntake`), then `enriching` or
 *   `contact_failed` ones whose customer has a usable contact detail added or changed since
 *   (`dueWaiting`); due since the debt entered its status (or since that detail changed), by the
 *   database clock (the engine takes them in at once);
 * - steps: debts being worked whose `engine_due_at` has come by their tenant's clock plus the worker's offset;
 * - reconcile: debts with a communication marked handed over more than `afterSeconds` ago by that
 *   clock and still `queued`; due `afterSeconds` after the hand-over (or when the provider said to ask again);
 * - hand-overs: debts with a `queued` communication waiting for its next attempt, due at it.
 * Each query walks one index in its claim order and stops after the claim's limit: the intake
 * statuses and the waiting ones have a partial index each (`debts_engine_intake`,
 * `debts_engine_waiting`), and a per-tenant clock is also bounded by the clock furthest ahead
 * (`clock.horizon`), so a claim reads the rows it takes, not every debt that waits.
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { debtsResource } from '@dms/domain/debts';
import { INTAKE_STATUSES, STEP_STATUSES, USABLE_DETAIL_STATUSES, WAITING_FOR_DETAIL_STATUSES } from '@dms/domain/communications';
import { tenantMoment, type Clock } from '../changes/clock.js';

/** A due-row query, the order its rows are claimed in, and, in SQL over its rows, how many seconds each has waited. */
export interface DueQuery {
  query: Knex.QueryBuilder;
  /** The column claims take rows by, oldest first (the query's index). */
  order: string;
  /** SQL of a row's wait in seconds (its bindings in `waitBindings`). */
  waitSql: string;
  waitBindings: readonly unknown[];
  /** True when the first row by `order` has waited longest (the lag reads one row, not all). */
  firstWaitedLongest: boolean;
}

/** The engine's moment for the debt's tenant (its clock plus the worker's offset), for a `whereRaw`. */
const ENGINE_NOW = tenantMoment('debts.tenant_id');

/** SQL of the usable contact details of the debt's customer changed since the debt entered its status (bindings: the usable statuses). */
const NEW_DETAILS = `FROM customer_contact_details d
  WHERE d.customer_id = debts.customer_id AND d.status IN (${USABLE_DETAIL_STATUSES.map(() => '?').join(', ')}) AND d.updated_at > debts.status_updated_at`;

/** Debts the engine takes in from `INTAKE_STATUSES`: due since they entered the status. */
export function dueIntake(trx: Knex | Knex.Transaction, tenantIds: readonly string[]): DueQuery {
  return {
    query: acrossTenants(trx, debtsResource, tenantIds).whereIn('debts.status', INTAKE_STATUSES),
    order: 'debts.status_updated_at',
    waitSql: 'extract(epoch FROM now() - debts.status_updated_at)',
    waitBindings: [],
    firstWaitedLongest: true,
  };
}

/** Debts waiting for a contact detail whose customer has a usable one added or changed since: due since the first of those changed. */
export function dueWaiting(trx: Knex | Knex.Transaction, tenantIds: readonly string[]): DueQuery {
  return {
    query: acrossTenants(trx, debtsResource, tenantIds)
      .whereIn('debts.status', WAITING_FOR_DETAIL_STATUSES)
      .whereRaw(`EXISTS (SELECT 1 ${NEW_DETAILS})`, USABLE_DETAIL_STATUSES),
    order: 'debts.status_updated_at',
    waitSql: `extract(epoch FROM now() - (SELECT min(d.updated_at) ${NEW_DETAILS}))`,
    waitBindings: USABLE_DETAIL_STATUSES,
    firstWaitedLongest: false,
  };
}

/** Debts whose next strategy step is due. */
export function dueSteps(trx: Knex | Knex.Transaction, clock: Clock, tenantIds: readonly string[]): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds)
    .whereIn('debts.status', STEP_STATUSES)
    .where('debts.engine_due_at', '<=', clock.horizon)
    .whereRaw(`debts.engine_due_at <= ${ENGINE_NOW}`, [clock.offsetSeconds]);
  return {
    query,
    order: 'debts.engine_due_at',
    waitSql: `extract(epoch FROM ${ENGINE_NOW} - debts.engine_due_at)`,
    waitBindings: [clock.offsetSeconds],
    // Tenants' clocks differ: a later step of a tenant whose clock is ahead may have waited longer.
    firstWaitedLongest: false,
  };
}

/**
 * Debts with a communication whose outcome was lost (marked handed over `afterSeconds` ago, still
 * `queued`, not waiting to be asked again later); joins it as `c`.
 */
export function dueReconcile(trx: Knex | Knex.Transaction, clock: Clock, tenantIds: readonly string[], afterSeconds: number): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds)
    .join('communications as c', (j) => j.on('c.debt_id', 'debts.id').andOn('c.tenant_id', 'debts.tenant_id'))
    .where('c.status', 'queued')
    .where('c.sending_at', '<', new Date(clock.horizon.getTime() - afterSeconds * 1000))
    .whereRaw(`c.sending_at < ${ENGINE_NOW} - make_interval(secs => ?)`, [clock.offsetSeconds, afterSeconds])
    .whereRaw(`(c.next_attempt_at IS NULL OR c.next_attempt_at <= ${ENGINE_NOW})`, [clock.offsetSeconds]);
  return {
    query,
    order: 'c.sending_at',
    waitSql: `extract(epoch FROM ${ENGINE_NOW} - make_interval(secs => ?) - c.sending_at)`,
    waitBindings: [clock.offsetSeconds, afterSeconds],
    firstWaitedLongest: false,
  };
}

/**
 * Debts with a `queued` communication not being handed over whose next attempt has come (a
 * temporary refusal's retry, or a hand-over whose worker stopped before it); joins it as `c`
 * (`c.id` is selected as `hand_over_id` by the claim).
 */
export function dueHandOvers(trx: Knex | Knex.Transaction, clock: Clock, tenantIds: readonly string[]): DueQuery {
  const query = acrossTenants(trx, debtsResource, tenantIds)
    .join('communications as c', (j) => j.on('c.debt_id', 'debts.id').andOn('c.tenant_id', 'debts.tenant_id'))
    .where('c.status', 'queued')
    .whereNull('c.sending_at')
    .where('c.next_attempt_at', '<=', clock.horizon)
    .whereRaw(`c.next_attempt_at <= ${ENGINE_NOW}`, [clock.offsetSeconds]);
  return {
    query,
    order: 'c.next_attempt_at',
    waitSql: `extract(epoch FROM ${ENGINE_NOW} - c.next_attempt_at)`,
    waitBindings: [clock.offsetSeconds],
    firstWaitedLongest: false,
  };
}

/**
 * The claim of up to `limit` rows of `due`: its debts (`debts.*`, with `engine_now`, the engine's
 * clock for the debt: its tenant's `tenant_now` plus the worker's offset), oldest first by its
 * order, locked `FOR UPDATE SKIP LOCKED` (another worker's claimed debts are passed over).
 */
export function claimQuery(trx: Knex | Knex.Transaction, clock: Clock, due: DueQuery, limit: number): Knex.QueryBuilder {
  return due.query
    .clone()
    .select('debts.*', trx.raw('tenant_now(debts.tenant_id) + make_interval(secs => ?) AS engine_now', [clock.offsetSeconds]))
    .orderBy(due.order)
    .limit(limit)
    .forUpdate('debts')
    .skipLocked();
}

/**
 * When the longest-waiting row of `dues` became due, as a moment of `clock.now` (the lag gauges
 * subtract it from `clock.now`), or null when none is due. A query whose first row by its order
 * waited longest reads that row only; the others take the maximum over their due rows.
 */
export async function oldestDueOf(dues: readonly DueQuery[], clock: Clock): Promise<Date | null> {
  let waited: number | null = null;
  for (const due of dues) {
    const q = due.query.clone().clearSelect();
    const wait = due.query.client.raw(`${due.firstWaitedLongest ? '' : 'max'}(${due.waitSql}) AS waited`, due.waitBindings);
    const row = await (due.firstWaitedLongest ? q.orderBy(due.order) : q).first<{ waited: string | number | null } | undefined>(wait);
    if (row?.waited !== null && row?.waited !== undefined) waited = Math.max(waited ?? 0, Number(row.waited));
  }
  return waited === null ? null : new Date(clock.now.getTime() - Math.max(0, waited) * 1000);
}
