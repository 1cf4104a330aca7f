/**
 * Payout accounts (docs/api.md section 14): one row per organisation and currency that says when
 * its next run is due (on the organisation's schedule, against `tenant_now(tenant_id)`), what is
 * carried into its next payout and the `seq` of its last item already in a payout
 * (`items_through`). Made set-based for every organisation that lacks them; claimed by the worker
 * with `FOR UPDATE SKIP LOCKED`, so each run happens once with several workers. Its row lock
 * orders items and runs: writers of items share it (`FOR KEY SHARE`), a run holds it alone
 * (`FOR UPDATE`).
 */
import type { Knex } from '@dms/db';
import { CURRENCIES } from '../kernel/schemas.js';
import { acrossTenants, tenantRows } from '../kernel/scoped.js';
import { PAYOUT_DEFAULTS, type PayoutSchedule } from '../organisations/payout-settings.js';
import { payoutAccountsResource as accounts } from './resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import type { PayoutAccountRow } from './schemas.js';

/** The time between two runs of each schedule, as a PostgreSQL interval. */
const INTERVALS: Readonly<Record<PayoutSchedule, string>> = { daily: '1 day', weekly: '7 days', monthly: '1 month' };

/**
 * SQL of the interval between runs for the organisation aliased `o` (its `configurations.payouts.schedule`,
 * the default when none). Built from {@link INTERVALS}, so no schedule is spelled twice.
 */
export function scheduleIntervalSql(o = 'o'): string {
  const cases = Object.entries(INTERVALS)
    .map(([name, interval]) => `WHEN '${name}' THEN interval '${interval}'`)
    .join(' ');
  return `(CASE coalesce(${o}.configurations->'payouts'->>'schedule', '${PAYOUT_DEFAULTS.schedule}') ${cases} END)`;
}

/**
 * SQL of the moment payouts of the row aliased `alias` are decided at: `tenant_now(tenant_id)` of
 * its tenant plus the worker's test offset (a bound parameter, seconds).
 */
const nowOf = (alias: string) => `(tenant_now(${alias}.tenant_id) + make_interval(secs => ?))`;

/**
 * Makes the missing accounts of the organisations of `tenantIds` (all tenants when empty), or of
 * organisation `organisationId` alone: one per currency, the first run one schedule interval after now.
 * @param offsetSeconds the worker's clock offset (0 outside tests)
 */
export async function ensureAccounts(
  trx: Knex | Knex.Transaction,
  scope: { tenantIds?: readonly string[]; organisationId?: string },
  offsetSeconds = 0,
): Promise<void> {
  const currencies = CURRENCIES.map(() => '(?)').join(', ');
  const where: string[] = ['NOT EXISTS (SELECT 1 FROM payout_accounts a WHERE a.organisation_id = o.id AND a.currency = c.currency)'];
  const bindings: Knex.RawBinding[] = [offsetSeconds, ...CURRENCIES];
  if (scope.tenantIds?.length) {
    where.push('o.tenant_id = ANY(?)');
    bindings.push([...scope.tenantIds]);
  }
  if (scope.organisationId) {
    where.push('o.id = ?');
    bindings.push(scope.organisationId);
  }
  await trx.raw(
    `INSERT INTO payout_accounts (id, tenant_id, organisation_id, currency, next_run_at)
     SELECT 'pacc_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), o.tenant_id, o.id, c.currency, ${nowOf('o')} + ${scheduleIntervalSql('o')}
     FROM organisations o CROSS JOIN (VALUES ${currencies}) AS c(currency)
     WHERE ${where.join(' AND ')}
     ON CONFLICT (organisation_id, currency) DO NOTHING`,
    bindings,
  );
}

/**
 * Locks the account due longest ago that no other transaction holds (the worker's claim).
 * @param tenantIds only these tenants (empty: all)
 */
export async function claimDueAccount(trx: Knex.Transaction, tenantIds: readonly string[], offsetSeconds = 0): Promise<PayoutAccountRow | undefined> {
  return (await acrossTenants(trx, accounts, tenantIds)
    .whereRaw(`payout_accounts.next_run_at <= (tenant_now(payout_accounts.tenant_id) + make_interval(secs => ?))`, [offsetSeconds])
    .orderBy('payout_accounts.next_run_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .first()) as PayoutAccountRow | undefined;
}

/**
 * When the longest-waiting due account became due (its `next_run_at`), or null when none is due:
 * the same rows `claimDueAccount` claims, read without locking (the worker's payout lag gauge).
 */
export async function oldestDueAccount(trx: Knex.Transaction, tenantIds: readonly string[], offsetSeconds = 0): Promise<Date | null> {
  const row = (await acrossTenants(trx, accounts, tenantIds)
    .whereRaw(`payout_accounts.next_run_at <= (tenant_now(payout_accounts.tenant_id) + make_interval(secs => ?))`, [offsetSeconds])
    .min('payout_accounts.next_run_at as due')
    .first()) as { due: Date | string | null } | undefined;
  return row?.due ? new Date(row.due) : null;
}

/** Locks the tenant's accounts of organisation `organisationId` (an operator's run: due or not), waiting for a run in progress. */
export async function lockOrganisationAccounts(trx: Knex.Transaction, tenantId: string, organisationId: string): Promise<PayoutAccountRow[]> {
  return (await tenantRows(trx, accounts, tenantId)
    .where('payout_accounts.organisation_id', organisationId)
    .orderBy('payout_accounts.currency')
    .forUpdate()) as PayoutAccountRow[];
}

/** Locks the tenant's account of `organisationId` in `currency` (a failed payout returns its money there). */
export async function lockAccount(trx: Knex.Transaction, tenantId: string, organisationId: string, currency: string): Promise<PayoutAccountRow> {
  return (await tenantRows(trx, accounts, tenantId)
    .where({ 'payout_accounts.organisation_id': organisationId, 'payout_accounts.currency': currency })
    .forUpdate()
    .first()) as PayoutAccountRow;
}

/**
 * The item writer's lock on the tenant's account of `organisationId` in `currency`: `FOR KEY SHARE`,
 * which writers hold together and a run's `FOR UPDATE` excludes. Taken before an item's `seq` is
 * drawn, it makes every item a run can see below the largest `seq` it sees already committed (a
 * writer either committed before the run locked, or draws its `seq` after the run committed). The
 * account is made first when missing (its first run one schedule interval ahead).
 * @returns the organisation's `configurations` (its fee terms in force)
 */
export async function shareAccount(
  trx: Knex.Transaction,
  tenantId: string,
  organisationId: string,
  currency: string,
): Promise<OrganisationRow['configurations']> {
  const lock = async () =>
    (
      await trx.raw(
        `SELECT o.configurations FROM payout_accounts a JOIN organisations o ON o.id = a.organisation_id
         WHERE a.tenant_id = ? AND a.organisation_id = ? AND a.currency = ? FOR KEY SHARE OF a`,
        [tenantId, organisationId, currency],
      )
    ).rows as Pick<OrganisationRow, 'configurations'>[];
  let rows = await lock();
  if (!rows.length) {
    await ensureAccounts(trx, { organisationId });
    rows = await lock();
  }
  return rows[0]!.configurations;
}

/**
 * Writes an account after a run or a failure: its carried amount and, after a run, its next run
 * (`ranAt`, the tenant's moment of the run, plus its organisation's schedule interval), the end
 * of the period just paid out and `itemsThrough`, the `seq` of the last item now in a payout.
 */
export async function saveAccount(trx: Knex.Transaction, account: PayoutAccountRow, carried: number, ran?: { at: Date; itemsThrough: number }): Promise<void> {
  const q = tenantRows(trx, accounts, account.tenant_id).where('payout_accounts.id', account.id);
  if (!ran) {
    await q.update({ carried, updated_at: trx.fn.now() });
    return;
  }
  const ranAt = ran.at;
  await q.update({
    carried,
    items_through: ran.itemsThrough,
    last_run_at: ranAt,
    next_run_at: trx.raw(`? ::timestamptz + (SELECT ${scheduleIntervalSql('o')} FROM organisations o WHERE o.id = ?)`, [ranAt, account.organisation_id]),
    updated_at: trx.fn.now(),
  });
}

/** The moment of a run for the account's tenant: `tenant_now(tenant_id)` plus the offset. */
export async function tenantNow(trx: Knex | Knex.Transaction, tenantId: string, offsetSeconds = 0): Promise<Date> {
  const { rows } = await trx.raw(`SELECT tenant_now(?) + make_interval(secs => ?) AS now`, [tenantId, offsetSeconds]);
  return new Date(rows[0].now as string);
}
