/**
 * `/debts/{debtId}/invoices` (docs/api.md section 8): create (with new line items), list, search,
 * retrieve and update (`PATCH`) a debt's invoices; behind `debts:write` / `debts:read`. Another
 * tenant's debt, or an invoice of another debt, is 404. Every read and write takes `expand[]`
 * (`line_items`, `debt`; docs/api.md section 10).
 */
import { ApiError } from '@dms/errors';
import { debtsResource } from '@dms/domain/debts';
import {
  InvoiceCreate,
  InvoiceUpdate,
  createInvoice,
  invoicesResource,
  toInvoices,
  updateInvoice,
  type Invoice as InvoiceObject,
  type InvoiceRow,
} from '@dms/domain/invoices';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema, searchQuery } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { INVOICE_EXPANSIONS } from './expansion.js';
import { Invoice } from './schemas.js';

const names = crud({
  resource: invoicesResource,
  path: '/debts/{debtId}/invoices',
  tag: 'Invoices',
  read: 'debts:read',
  write: 'debts:write',
  parentParams: { debtId: debtsResource.idPrefix },
});
const object = { name: 'Invoice', schema: Invoice };
const show = presenter((rows: InvoiceRow[], i) => toInvoices(i.ctx.db, i.tenantId, rows), INVOICE_EXPANSIONS);
const underDebt = nestedUnder(debtsResource, 'debtId', 'invoices.debt_id');

/** The operations of `/debts/{debtId}/invoices`. */
export const invoiceOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List a debt's invoices",
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debt = await underDebt(i);
      return listPage<InvoiceRow, InvoiceObject>(i, {
        resource: invoicesResource,
        narrow: debt.narrow,
        counter: () => ['invoices', debt.id],
        serialize: show.page(i),
      });
    },
  }),
  defineOperation({
    ...names.search,
    summary: "Search a debt's invoices",
    query: searchQuery(invoicesResource.search, show.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: async (i) =>
      searchPage<InvoiceRow, InvoiceObject>(i, { resource: invoicesResource, narrow: (await underDebt(i)).narrow, serialize: show.page(i) }),
  }),
  defineOperation({
    ...names.create,
    description:
      'Creates the invoice and its `line_items` (new items of the debt, which move its summary) in one transaction. `reference` is unique within the debt (409).',
    query: querySchema(show.expand),
    body: { name: 'InvoiceCreate', schema: InvoiceCreate },
    response: { ...object, status: 201 },
    errors: ['resource_conflict', 'invalid_state_transition', 'business_rule_violation'],
    events: ['invoice.created', 'line_item.created', 'debt.updated'],
    handler: (i) => show.one(i, createInvoice(i.ctx.db, i.tenantId, i.params.debtId, i.body, actor(i).whodunnit)),
  }),
  defineOperation({
    ...names.retrieve,
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    handler: (i) =>
      retrieveOne(i, invoicesResource, (row: InvoiceRow) => {
        if (row.debt_id !== i.params.debtId) throw new ApiError('resource_missing', `No such invoice: '${row.id}'`);
        return show.row(i)(row);
      }),
  }),
  defineOperation({
    ...names.update,
    description: '`description`, `due_on` and `status` replace, `metadata` merges; line items stay as they are.',
    query: querySchema(show.expand),
    body: { name: 'InvoiceUpdate', schema: InvoiceUpdate },
    response: { ...object, status: 200 },
    events: ['invoice.updated'],
    handler: (i) => show.one(i, updateInvoice(i.ctx.db, i.tenantId, i.params.debtId, i.params.id, i.body)),
  }),
];
