/**
 * Invoices (docs/api.md section 8): a debt's invoices, each with the line items created with it.
 * They share the debts' scopes.
 */
import { defineResource } from '../kernel/resource.js';
import { INVOICE_SEARCH_FIELDS } from './search.js';

/** The `invoices` table. */
export const invoicesResource = defineResource({
  object: 'invoice',
  noun: 'invoice',
  table: 'invoices',
  idPrefix: 'inv',
  events: ['invoice.created', 'invoice.updated'],
  search: INVOICE_SEARCH_FIELDS,
});
