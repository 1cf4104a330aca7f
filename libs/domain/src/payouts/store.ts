/**
 * Payouts (docs/api.md section 14): the public forms, reads, and the operator's moves. A move is
 * decided by the payout machine (states.ts) under the payout's row lock and recorded with its
 * event in the same transaction; `failed` also returns the payout's money to its account, so the
 * next run pays it again (its items stay where they are: items are immutable). A payout's items
 * are a range of its account's items (run.ts), read here by that range.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { recordEvent } from '../kernel/outbox.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { lockAccount, saveAccount } from './accounts.js';
import { balanceItemsResource, payoutsResource } from './resource.js';
import type { BalanceItem, BalanceItemRow, Payout, PayoutRow, PayoutStatusChange } from './schemas.js';
import { PAYOUT_MACHINE, type PayoutTarget } from './states.js';

/** Maps a row to the public object. */
export function toPayout(row: PayoutRow): Payout {
  return {
    id: row.id,
    object: 'payout',
    organisation_id: row.organisation_id,
    currency: row.currency,
    amount: Number(row.amount),
    gross: Number(row.gross),
    refunds: Number(row.refunds),
    fees: Number(row.fees),
    adjustments: Number(row.adjustments),
    item_count: Number(row.item_count),
    status: { value: row.status, reason: row.status_reason, whodunnit: row.status_whodunnit, updated_at: iso(row.status_updated_at)! },
    period_start: iso(row.period_start)!,
    period_end: iso(row.period_end)!,
    payout_date: String(row.payout_date).slice(0, 10),
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** Maps an item row to the public object. */
export function toBalanceItem(row: BalanceItemRow): BalanceItem {
  return {
    id: row.id,
    object: 'balance_item',
    payout: row.payout_id,
    type: row.type,
    currency: row.currency,
    amount: Number(row.amount),
    fee: Number(row.fee),
    net: Number(row.net),
    payment: row.payment_id,
    debt: row.debt_id,
    description: row.description,
    created_at: iso(row.created_at)!,
  };
}

/**
 * Loads the tenant's payout `id`.
 * @throws ApiError 404 `resource_missing`
 */
export function loadPayout(db: Knex | Knex.Transaction, tenantId: string, id: string, forUpdate = false): Promise<PayoutRow> {
  return findOwned<PayoutRow>(db, payoutsResource, tenantId, id, { forUpdate });
}

/**
 * Narrows `q` (over `balance_items`) to the items of `payout`: its account's items with `seq` in
 * its range (index `balance_items_account`), each row with `payout_id` set to the payout's id.
 */
export function inPayout(db: Knex | Knex.Transaction, q: Knex.QueryBuilder, payout: PayoutRow): Knex.QueryBuilder {
  return q
    .where({ 'balance_items.organisation_id': payout.organisation_id, 'balance_items.currency': payout.currency })
    .whereBetween('balance_items.seq', [Number(payout.first_item_seq), Number(payout.last_item_seq)])
    .select('balance_items.*', db.raw('?::text AS payout_id', [payout.id]));
}

/** The items of `payout` (already loaded as the tenant's), as a query to page. */
export function payoutItems(db: Knex | Knex.Transaction, tenantId: string, payout: PayoutRow): Knex.QueryBuilder {
  return inPayout(db, tenantRows(db, balanceItemsResource, tenantId), payout);
}

/** One line of the reconciliation file (docs/api.md section 14): an item with its debt's account number. */
export interface ReconciliationLine {
  item: string;
  type: string;
  payment: string | null;
  debt: string | null;
  customer_reference: string | null;
  currency: string;
  gross: number;
  fee: number;
  net: number;
  created_at: string;
}

/**
 * Every item of the tenant's payout `id`, oldest first, with the debt's `account_number` as the
 * customer reference.
 * @throws ApiError 404 `resource_missing` (another tenant's payout included)
 */
export async function reconciliationLines(db: Knex, tenantId: string, id: string): Promise<ReconciliationLine[]> {
  const payout = await loadPayout(db, tenantId, id);
  const rows = (await payoutItems(db, tenantId, payout)
    .leftJoin('debts', (j) => j.on('debts.id', 'balance_items.debt_id').andOn('debts.tenant_id', 'balance_items.tenant_id'))
    .select('debts.account_number')
    .orderBy('balance_items.seq', 'asc')) as (BalanceItemRow & { account_number: string | null })[];
  return rows.map((r) => ({
    item: r.id,
    type: r.type,
    payment: r.payment_id,
    debt: r.debt_id,
    customer_reference: r.account_number,
    currency: r.currency,
    gross: Number(r.amount),
    fee: Number(r.fee),
    net: Number(r.net),
    created_at: iso(r.created_at)!,
  }));
}

/**
 * An operator's move (`POST /operator/payouts/{id}/status`): `in_transit`, `paid`, or `failed`
 * with a reason (its amount returns to the account, carried into the next payout), with the
 * `payout.<status>` event.
 * @param whodunnit `operator:<client id>`
 * @throws ApiError 404, 409 `invalid_state_transition` (the machine refuses), 400 `validation_failed` (`reason` for `failed`)
 */
export function movePayout(db: Knex, tenantId: string, id: string, input: PayoutStatusChange, whodunnit: string): Promise<Payout> {
  if (input.status === 'failed' && !input.reason) throw new ApiError('validation_failed', 'reason is required to mark a payout failed.', { param: 'reason' });
  return db.transaction(async (trx) => {
    const current = await loadPayout(trx, tenantId, id);
    const account = await lockAccount(trx, tenantId, current.organisation_id, current.currency);
    const payout = await loadPayout(trx, tenantId, id, true);
    const status = PAYOUT_MACHINE.require(payout.status, input.status) as PayoutTarget;
    await tenantRows(trx, payoutsResource, tenantId)
      .where('payouts.id', id)
      .update({ status, status_reason: input.reason ?? null, status_whodunnit: whodunnit, status_updated_at: trx.fn.now(), updated_at: trx.fn.now() });
    if (status === 'failed') await saveAccount(trx, account, Number(account.carried) + Number(payout.amount));
    const moved = toPayout(await loadPayout(trx, tenantId, id));
    await recordEvent(trx, payoutsResource, tenantId, `payout.${status}`, moved);
    return moved;
  });
}
