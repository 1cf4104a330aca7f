/**
 * Payouts (docs/api.md section 14): the tenant reads them (`payouts:read`) and never changes them:
 * `GET /payouts`, `/payouts/search`, `/payouts/{id}`, `/payouts/{id}/items` (newest first, the
 * total is the payout's `item_count`) and `/payouts/{id}/items.csv` (the reconciliation file).
 * Operators create and move them under `/operator/payouts` (operator/operations.ts).
 */
import { Type } from '@sinclair/typebox';
import {
  balanceItemsResource,
  inPayout,
  loadPayout,
  payoutsResource,
  reconciliationLines,
  toBalanceItem,
  toPayout,
  type BalanceItemRow,
  type PayoutRow,
  type Payout as PayoutObject,
} from '@dms/domain/payouts';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema, searchQuery } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { BALANCE_ITEM_EXPANSIONS, PAYOUT_EXPANSIONS } from './expansion.js';
import { reconciliationCsv } from './reconciliation.js';
import { BalanceItem, Payout, type BalanceItemView, type PayoutView } from './schemas.js';

const top = crud({ resource: payoutsResource, path: '/payouts', tag: 'Payouts', read: 'payouts:read', write: 'operations:write' });
const object = { name: 'Payout', schema: Payout };

/** The domain's payout with `organisation` as its id (expansion may replace it). */
export const payoutView = (p: PayoutObject): PayoutView => ({ ...p, organisation: p.organisation_id });

/** Payouts shown with `organisation` (id, or expanded). */
export const showPayouts = presenter((rows: PayoutRow[]) => rows.map((r) => payoutView(toPayout(r))), PAYOUT_EXPANSIONS);
const showItems = presenter((rows: BalanceItemRow[]) => rows.map((r): BalanceItemView => toBalanceItem(r)), BALANCE_ITEM_EXPANSIONS);

/** The operations of `/payouts`. */
export const payoutOperations: AnyOperation[] = [
  defineOperation({
    ...top.list,
    query: pageQuery(showPayouts.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<PayoutRow, PayoutView>(i, { resource: payoutsResource, counter: () => ['payouts'], serialize: showPayouts.page(i) }),
  }),
  defineOperation({
    ...top.search,
    query: searchQuery(payoutsResource.search, showPayouts.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => searchPage<PayoutRow, PayoutView>(i, { resource: payoutsResource, serialize: showPayouts.page(i) }),
  }),
  defineOperation({
    ...top.retrieve,
    query: querySchema(showPayouts.expand),
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, payoutsResource, showPayouts.row(i)),
  }),
  defineOperation({
    ...top.list,
    path: '/payouts/{id}/items',
    operationId: 'listPayoutItems',
    summary: "List a payout's balance items",
    description:
      'Each payment (with its platform fee), refund or carried adjustment in the payout, with the amount it contributed (`net`), newest first, paginated with `limit`/`after`/`before`. Items are immutable; each is in exactly one payout.',
    pathParams: { id: payoutsResource.idPrefix },
    query: pageQuery(showItems.expand),
    response: { name: 'BalanceItem', schema: BalanceItem, status: 200, list: true },
    handler: async (i) => {
      const payout = await loadPayout(i.ctx.db, i.tenantId, i.params.id);
      return listPage<BalanceItemRow, BalanceItemView>(i, {
        resource: balanceItemsResource,
        narrow: (q) => void inPayout(i.ctx.db, q, payout),
        counter: () => ['balance_items', payout.id],
        total: async () => Number(payout.item_count),
        serialize: showItems.page(i),
      });
    },
  }),
  defineOperation({
    ...top.retrieve,
    path: '/payouts/{id}/items.csv',
    operationId: 'payoutReconciliationFile',
    summary: "A payout's reconciliation file (CSV)",
    description:
      "RFC 4180 CSV (`text/csv`, CRLF line ends): a header, then one row per balance item, oldest first, with columns `item`, `type`, `payment`, `debt`, `customer_reference` (the debt's `account_number`), `currency`, `gross`, `fee`, `net` (minor units) and `created_at`. Another tenant's payout is 404.",
    response: { name: 'ReconciliationFile', schema: Type.String({ description: 'RFC 4180 CSV.' }), status: 200, produces: 'text/csv' },
    handler: async (i) => {
      const text = reconciliationCsv(await reconciliationLines(i.ctx.db, i.tenantId, i.params.id));
      i.res.status(200).type('text/csv; charset=utf-8').attachment(`${i.params.id}-items.csv`).send(text);
    },
  }),
];
