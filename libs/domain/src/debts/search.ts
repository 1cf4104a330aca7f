/**
 * The searchable fields of debts (`GET /debts/search`, docs/api.md sections 4 and 10) and the
 * columns behind them. Migrations 003_search_indexes, 015_contact_details, 017_debt_search_fields
 * and 018_plan_search index them for tenants with millions of rows; the index serving each field
 * is named beside it.
 */
import { arrayContains, emailOf, exactText, integer, metadataEntry, relatedText, timestamp, type SearchRegistry } from '@dms/search';

/** `GET /debts/search`. */
export const DEBT_SEARCH_FIELDS: SearchRegistry = {
  status: exactText('debts.status'), // debts_search_status (tenant_id, status, seq)
  currency: exactText('debts.currency'), // debts_search_currency
  account_number: exactText('debts.account_number'), // debts_search_account_number
  customer_id: exactText('debts.customer_id'), // debts_customer (customer_id)
  organisation_id: exactText('debts.organisation_id'), // debts_organisation (organisation_id)
  tag: arrayContains('debts.tags'), // debts_search_tags (GIN)
  amount_remaining: integer('debts.amount_remaining'), // debts_search_amount_remaining
  created_at: timestamp('debts.created_at'), // debts_search_created_at
  updated_at: timestamp('debts.updated_at'), // debts_search_updated_at
  // docs/api.md section 10:
  amount: integer('debts.amount_total'), // debts_search_amount_total (tenant_id, amount_total)
  kind: exactText('debts.kind'), // debts_search_kind (tenant_id, kind, seq)
  metadata: metadataEntry('debts.metadata'), // debts_search_metadata (GIN jsonb_path_ops)
  'customer.email': emailOf('debts.customer_id'), // contact_details_email (lower(value)), then debts_customer
  // Debts with a payment plan in that status (any of their plans):
  'payment_plan.status': relatedText('debts', { table: 'payment_plans', foreignKey: 'debt_id', column: 'status' }), // payment_plans_search_status (tenant_id, status, debt_id)
};
