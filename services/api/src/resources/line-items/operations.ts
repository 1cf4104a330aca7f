/**
 * `/debts/{debtId}/line_items` (docs/api.md section 8): add a line item to a debt (any status but
 * a terminal one) and list a debt's items; behind `debts:write` / `debts:read`. Items are
 * immutable: there is no update or delete; a correction is another item.
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { findOwned } from '../../db/scoped.js';
import type { DebtRow } from '../debts/schemas.js';
import { LineItem, LineItemCreate, type LineItemRow } from './schemas.js';
import { addLineItems, toLineItem } from './store.js';

const names = crud({
  path: '/debts/{debtId}/line_items',
  idPrefix: 'li',
  tag: 'Line items',
  noun: 'line item',
  read: 'debts:read',
  write: 'debts:write',
  parentParams: { debtId: 'deb' },
});
const object = { name: 'LineItem', schema: LineItem };

/** The operations of `/debts/{debtId}/line_items`. */
export const lineItemOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List a debt's line items",
    description: 'Newest first, paginated with `limit`/`after`/`before`.',
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debtId = i.params.debtId!;
      await findOwned(i.ctx.db, 'debts', i.tenantId, debtId);
      return listPage<LineItemRow, LineItem>(i, {
        table: 'line_items',
        narrow: (q) => void q.where('line_items.debt_id', debtId),
        counter: () => ['line_items', debtId],
        serialize: (rows) => rows.map(toLineItem),
      });
    },
  }),
  defineOperation({
    ...names.create,
    summary: 'Add a line item to a debt',
    description:
      "Changes the debt's `summary` in the same transaction. The sign must fit the kind (422 naming `amount`), the currency must be the debt's, and an item that would bring `amount_total` below `amount_paid` is refused; a terminal debt is 409.",
    body: { name: 'LineItemCreate', schema: LineItemCreate },
    response: { ...object, status: 201 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['line_item.created', 'debt.updated'],
    handler: (i) =>
      i.ctx.db.transaction(async (trx) => {
        const debt = await findOwned<DebtRow>(trx, 'debts', i.tenantId, i.params.debtId!, { forUpdate: true });
        const [item] = await addLineItems(trx, i.tenantId, debt, [i.body], { param: () => '' });
        return item!;
      }),
  }),
];
