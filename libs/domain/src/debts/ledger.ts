/**
 * A debt's ledger (docs/api.md sections 8 and 12): line items added to a debt the caller has
 * locked, its summary moved by their sums in the same transaction (`debt.updated`), and a debt the
 * collection engine works moved to `adjusted` (the engine then picks it up again).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { findOwned } from '../kernel/scoped.js';
import { summaryDeltas, type SummaryColumn } from '../line-items/kinds.js';
import { checkLineItems, insertLineItems } from '../line-items/store.js';
import type { LineItem, LineItemCreate } from '../line-items/schemas.js';
import { moveLockedDebt } from './moves.js';
import { debtsResource } from './resource.js';
import type { DebtRow } from './schemas.js';
import { ENGINE_STATUSES, isTerminal } from './states.js';
import { updateLockedDebt } from './store.js';

/**
 * Adds items to a debt the caller has locked: checks them, inserts them, moves the summary by
 * their sums and records `debt.updated`; a debt in one of the engine's statuses moves to `adjusted`.
 * @throws ApiError 409 `invalid_state_transition` on a terminal debt, or for interest or a fee
 *   on a debt under `legal_protection` (section 12: it freezes them); 422 `business_rule_violation`
 *   for a wrong sign or currency, or when `amount_total` would fall below `amount_paid` (param `amount`)
 */
export async function addLineItems(
  trx: Knex.Transaction,
  tenantId: string,
  debt: DebtRow,
  items: readonly LineItemCreate[],
  options: { invoiceId?: string; param: (i: number) => string; whodunnit: string },
): Promise<LineItem[]> {
  if (isTerminal(debt.status)) {
    throw new ApiError('invalid_state_transition', `A debt in status '${debt.status}' takes no more line items.`);
  }
  const charged = items.findIndex((i) => i.kind === 'interest' || i.kind === 'fee');
  if (debt.status === 'legal_protection' && charged >= 0) {
    throw new ApiError('invalid_state_transition', 'A debt under legal_protection takes no interest or fees (docs/api.md section 12).', {
      param: options.param(charged) ? `${options.param(charged)}.kind` : 'kind',
    });
  }
  checkLineItems(debt.currency, items, options.param);
  const deltas = summaryDeltas(items);
  const change = Object.values(deltas).reduce((a, b) => a + b, 0);
  if (debt.amount_total + change < debt.amount_paid) {
    const param = options.param(0) ? 'line_items' : 'amount';
    throw new ApiError('business_rule_violation', `amount_total would fall below amount_paid (${debt.amount_paid}); refund the payment instead.`, { param });
  }
  const created = await insertLineItems(trx, tenantId, debt, items, options.invoiceId ?? null);
  const columns: Record<string, unknown> = {};
  for (const [column, delta] of Object.entries(deltas) as Array<[SummaryColumn, number]>) if (delta) columns[column] = trx.raw('?? + ?', [column, delta]);
  await updateLockedDebt(trx, tenantId, debt.id, columns);
  if (ENGINE_STATUSES.includes(debt.status)) {
    await moveLockedDebt(trx, tenantId, debt, 'adjust', { whodunnit: options.whodunnit, context: `line items added: ${created.map((i) => i.id).join(', ')}` });
  }
  return created;
}

/**
 * `POST /debts/{id}/line_items`: locks the tenant's debt and adds one item (`addLineItems`).
 * @returns the new line item
 * @throws ApiError 404 `resource_missing`, and what `addLineItems` throws
 */
export function createLineItem(db: Knex, tenantId: string, debtId: string, input: LineItemCreate, whodunnit: string): Promise<LineItem> {
  return db.transaction(async (trx) => {
    const debt = await findOwned<DebtRow>(trx, debtsResource, tenantId, debtId, { forUpdate: true });
    const [item] = await addLineItems(trx, tenantId, debt, [input], { param: () => '', whodunnit });
    return item!;
  });
}
