/**
 * Line items (docs/api.md section 8): the ledger a debt's balance is made of. Items are only ever
 * inserted, with `line_item.created` in the outbox; the debt that owns them (debts/store.ts)
 * inserts them under its row lock and moves its summary in the same transaction.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { recordEvent } from '../kernel/outbox.js';
import { iso } from '../kernel/schemas.js';
import { signError } from './kinds.js';
import { lineItemsResource } from './resource.js';
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
  debt: { id: string; currency: string },
  items: readonly LineItemCreate[],
  invoiceId: string | null = null,
): Promise<LineItem[]> {
  if (!items.length) return [];
  const rows: LineItemRow[] = await trx(lineItemsResource.table)
    .insert(
      items.map((item) => ({
        id: newId(lineItemsResource.idPrefix),
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
  for (const item of out) await recordEvent(trx, lineItemsResource, tenantId, 'line_item.created', item);
  return out;
}
