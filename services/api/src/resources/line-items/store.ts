/**
 * Line items (docs/api.md section 8): the ledger a debt's balance is made of. Items are only ever
 * inserted; each insert raises or lowers the debt's summary columns in the same transaction,
 * under the debt's row lock, with `line_item.created` (and `debt.updated`) in the outbox.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../../db/outbox.js';
import { tenantRows } from '../../db/scoped.js';
import { iso } from '../../schemas/common.js';
import { isTerminal } from '../debts/lifecycle.js';
import type { DebtRow } from '../debts/schemas.js';
import { toDebt } from '../debts/store.js';
import { signError, summaryDeltas, type SummaryColumn } from './kinds.js';
import type { LineItem, LineItemCreate, LineItemRow } from './schemas.js';

/** Maps a row to the public object (amount signed, minor units; times RFC 3339 UTC). */
export function toLineItem(row: LineItemRow): LineItem {
  return {
    id: row.id,
    object: 'line_item',
    debt: row.debt_id,
    invoice: row.invoice_id,
    kind: row.kind,
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    transaction_at: iso(row.transaction_at)!,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/**
 * Checks signs and currencies of new items for a debt in `currency`.
 * @param param names item `i`'s fields in errors (e.g. `i => "line_items[" + i + "]"`, or `''` for a single item)
 * @throws ApiError 422 `business_rule_violation` naming the `amount` or `currency` of the first bad item
 */
export function checkLineItems(currency: string, items: readonly LineItemCreate[], param: (i: number) => string): void {
  items.forEach((item, i) => {
    const at = (field: string) => (param(i) ? `${param(i)}.${field}` : field);
    const wrongSign = signError(item.kind, item.amount);
    if (wrongSign) throw new ApiError('business_rule_violation', wrongSign, { param: at('amount') });
    if (item.currency !== undefined && item.currency !== currency) {
      throw new ApiError('business_rule_violation', `currency must be the debt's currency (${currency}).`, { param: at('currency') });
    }
  });
}

/**
 * Inserts checked items of `debt` with their `line_item.created` events (the debt's summary is the caller's).
 * @returns the public items, in the given order
 */
export async function insertLineItems(
  trx: Knex.Transaction,
  tenantId: string,
  debt: Pick<DebtRow, 'id' | 'currency'>,
  items: readonly LineItemCreate[],
  invoiceId: string | null = null,
): Promise<LineItem[]> {
  if (!items.length) return [];
  const rows: LineItemRow[] = await trx('line_items')
    .insert(
      items.map((item) => ({
        id: newId('li'),
        tenant_id: tenantId,
        debt_id: debt.id,
        invoice_id: invoiceId,
        kind: item.kind,
        amount: item.amount,
        currency: debt.currency,
        description: item.description ?? null,
        transaction_at: item.transaction_at ?? trx.fn.now(),
        metadata: JSON.stringify(item.metadata ?? {}),
      })),
    )
    .returning('*');
  rows.sort((a, b) => a.seq - b.seq);
  const out = rows.map(toLineItem);
  for (const item of out) await recordEvent(trx, tenantId, 'line_item.created', item);
  return out;
}

/**
 * Adds items to a debt the caller has locked: checks them, inserts them, moves the summary by
 * their sums and records `debt.updated`.
 * @throws ApiError 409 `invalid_state_transition` on a terminal debt; 422 `business_rule_violation`
 *   for a wrong sign or currency, or when `amount_total` would fall below `amount_paid` (param `amount`)
 */
export async function addLineItems(
  trx: Knex.Transaction,
  tenantId: string,
  debt: DebtRow,
  items: readonly LineItemCreate[],
  options: { invoiceId?: string; param: (i: number) => string },
): Promise<LineItem[]> {
  if (isTerminal(debt.status)) {
    throw new ApiError('invalid_state_transition', `A debt in status '${debt.status}' takes no more line items.`);
  }
  checkLineItems(debt.currency, items, options.param);
  const deltas = summaryDeltas(items);
  const change = Object.values(deltas).reduce((a, b) => a + b, 0);
  if (debt.amount_total + change < debt.amount_paid) {
    const param = options.param(0) ? 'line_items' : 'amount';
    throw new ApiError('business_rule_violation', `amount_total would fall below amount_paid (${debt.amount_paid}); refund the payment instead.`, { param });
  }
  const created = await insertLineItems(trx, tenantId, debt, items, options.invoiceId ?? null);
  const columns: Record<string, unknown> = { updated_at: trx.fn.now() };
  for (const [column, delta] of Object.entries(deltas) as Array<[SummaryColumn, number]>) if (delta) columns[column] = trx.raw('?? + ?', [column, delta]);
  const [row] = await tenantRows(trx, 'debts', tenantId).where('debts.id', debt.id).update(columns).returning('*');
  await recordEvent(trx, tenantId, 'debt.updated', toDebt(row as DebtRow));
  return created;
}
