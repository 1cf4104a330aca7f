/**
 * The searchable fields of each resource (docs/api.md section 4) and the columns behind them.
 * Migration 003_search_indexes indexes these columns for tenants with millions of rows.
 */
import { arrayContains, containsText, emailOf, exactText, integer, timestamp } from './field-kinds.js';
import type { SearchRegistry } from './compiler.js';

/** `GET /debts/search`. */
export const DEBT_SEARCH_FIELDS: SearchRegistry = {
  status: exactText('debts.status'),
  currency: exactText('debts.currency'),
  account_number: exactText('debts.account_number'),
  customer_id: exactText('debts.customer_id'),
  organisation_id: exactText('debts.organisation_id'),
  tag: arrayContains('debts.tags'),
  amount_remaining: integer('debts.amount_remaining'),
  created_at: timestamp('debts.created_at'),
  updated_at: timestamp('debts.updated_at'),
};

/** `GET /customers/search`. */
export const CUSTOMER_SEARCH_FIELDS: SearchRegistry = {
  email: emailOf('customers'),
  full_name: containsText('customers.full_name'),
  created_at: timestamp('customers.created_at'),
};
