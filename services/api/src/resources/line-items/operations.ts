/**
 * `/debts/{debtId}/line_items` (docs/api.md section 8): list a debt's line items and add one,
 * behind `debts:read` / `debts:write`. Another tenant's (or no) debt is 404, for the list too.
 */
import { createLineItem, debtsResource } from '@dms/domain/debts';
import { LineItem, LineItemCreate, lineItemsResource, toLineItem, type LineItemRow } from '@dms/domain/line-items';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({
  resource: lineItemsResource,
  path: '/debts/{debtId}/line_items',
  tag: 'Line items',
  read: 'debts:read',
  write: 'debts:write',
  parentParams: { debtId: debtsResource.idPrefix },
});
const object = { name: 'LineItem', schema: LineItem };
const underDebt = nestedUnder(debtsResource, 'debtId', 'line_items.debt_id');

/** The operations of `/debts/{debtId}/line_items`. */
export const lineItemOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List a debt's line items",
    description: 'Newest first, paginated with `limit`/`after`/`before`.',
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debt = await underDebt(i);
      return listPage<LineItemRow, LineItem>(i, {
        resource: lineItemsResource,
        narrow: debt.narrow,
        counter: () => ['line_items', debt.id],
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
    handler: (i) => createLineItem(i.ctx.db, i.tenantId, i.params.debtId, i.body, actor(i).whodunnit),
  }),
];
