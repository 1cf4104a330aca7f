/**
 * `/debts/{debtId}/invoices` (docs/api.md section 8): create (with new line items), list, search,
 * retrieve and update (`PATCH`) a debt's invoices; behind `debts:write` / `debts:read`. Another
 * tenant's debt, or an invoice of another debt, is 404. Every read and write takes `expand[]`
 * (`line_items`, `debt`; docs/api.md section 10).
 */
import { ApiError } from '@dms/errors';
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { expandOne, expandQuery, expanderFor } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { findOwned } from '../../db/scoped.js';
import { searchQuery } from '../../search/query-schema.js';
import type { Knex } from '@dms/db';
import { Invoice, InvoiceCreate, InvoiceUpdate, type InvoiceRow } from './schemas.js';
import { createInvoice, toInvoices, updateInvoice } from './store.js';
import { INVOICE_SEARCH_FIELDS } from './search.js';
import { INVOICE_EXPANSIONS } from './expansion.js';

const names = crud({
  path: '/debts/{debtId}/invoices',
  idPrefix: 'inv',
  tag: 'Invoices',
  noun: 'invoice',
  read: 'debts:read',
  write: 'debts:write',
  parentParams: { debtId: 'deb' },
});
const object = { name: 'Invoice', schema: Invoice };
const expand = expandQuery(INVOICE_EXPANSIONS);
/** Serializes a page of rows with the request's `expand[]` (one query per relation, one for the line item ids). */
const serializer = (i: OperationInput<unknown, unknown>) => async (rows: InvoiceRow[]) => expanderFor(INVOICE_EXPANSIONS, i)(await toInvoices(i.ctx.db, rows));
/** Expands one invoice with the request's `expand[]`. */
const one = async (i: OperationInput<unknown, unknown>, invoice: Invoice | Promise<Invoice>) => expandOne(INVOICE_EXPANSIONS, i, await invoice);

/** 404 unless the path's debt is the tenant's; narrows a list to it. */
async function debtScope(i: OperationInput<unknown, unknown>) {
  const debtId = i.params.debtId!;
  await findOwned(i.ctx.db, 'debts', i.tenantId, debtId);
  return { debtId, narrow: (q: Knex.QueryBuilder) => void q.where('invoices.debt_id', debtId) };
}

/** The operations of `/debts/{debtId}/invoices`. */
export const invoiceOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List a debt's invoices",
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const { debtId, narrow } = await debtScope(i);
      return listPage<InvoiceRow, Invoice>(i, { table: 'invoices', narrow, counter: () => ['invoices', debtId], serialize: serializer(i) });
    },
  }),
  defineOperation({
    ...names.search,
    summary: "Search a debt's invoices",
    query: searchQuery(INVOICE_SEARCH_FIELDS, expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: async (i) =>
      searchPage<InvoiceRow, Invoice>(i, { table: 'invoices', narrow: (await debtScope(i)).narrow, fields: INVOICE_SEARCH_FIELDS, serialize: serializer(i) }),
  }),
  defineOperation({
    ...names.create,
    description:
      'Creates the invoice and its `line_items` (new items of the debt, which move its summary) in one transaction. `reference` is unique within the debt (409).',
    query: querySchema(expand),
    body: { name: 'InvoiceCreate', schema: InvoiceCreate },
    response: { ...object, status: 201 },
    errors: ['resource_conflict', 'invalid_state_transition', 'business_rule_violation'],
    events: ['invoice.created', 'line_item.created', 'debt.updated'],
    handler: (i) => one(i, createInvoice(i.ctx.db, i.tenantId, i.params.debtId!, i.body)),
  }),
  defineOperation({
    ...names.retrieve,
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: (i) =>
      retrieveOne(i, 'invoices', async (row: InvoiceRow) => {
        if (row.debt_id !== i.params.debtId) throw new ApiError('resource_missing', `No such invoice: '${row.id}'`);
        return (await serializer(i)([row]))[0]!;
      }),
  }),
  defineOperation({
    ...names.update,
    description: '`description`, `due_on` and `status` replace, `metadata` merges; line items stay as they are.',
    query: querySchema(expand),
    body: { name: 'InvoiceUpdate', schema: InvoiceUpdate },
    response: { ...object, status: 200 },
    events: ['invoice.updated'],
    handler: (i) => one(i, updateInvoice(i.ctx.db, i.tenantId, i.params.debtId!, i.params.id!, i.body)),
  }),
];
