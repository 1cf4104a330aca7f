/**
 * The searchable fields of payments (docs/api.md section 8: `GET /payments/search` and
 * `GET /debts/{id}/payments/search`), in the grammar of section 4.
 */
import { exactText, integer, metadataEntry, timestamp, type SearchRegistry } from '@dms/search';

/** Payment search fields and their columns. */
export const PAYMENT_SEARCH_FIELDS: SearchRegistry = {
  status: exactText('payments.status'),
  debt_id: exactText('payments.debt_id'),
  amount: integer('payments.amount'),
  currency: exactText('payments.currency'),
  payment_plan_id: exactText('payments.payment_plan_id'),
  transaction_at: timestamp('payments.transaction_at'),
  created_at: timestamp('payments.created_at'),
  metadata: metadataEntry('payments.metadata'), // payments_search_metadata (GIN jsonb_path_ops), docs/api.md section 15
};
