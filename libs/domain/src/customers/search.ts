/**
 * The searchable fields of customers (`GET /customers/search`, docs/api.md section 4) and the
 * columns behind them. Migrations 003_search_indexes and 015_contact_details index them; the index
 * serving each field is named beside it.
 */
import { containsText, emailOf, metadataEntry, timestamp, type SearchRegistry } from '@dms/search';

/** Customer search fields. */
export const CUSTOMER_SEARCH_FIELDS: SearchRegistry = {
  email: emailOf('customers.id'), // contact_details_email (lower(value)), then the primary key
  full_name: containsText('customers.full_name'), // customers_search_full_name (GIN trigram)
  created_at: timestamp('customers.created_at'), // customers_search_created_at
  metadata: metadataEntry('customers.metadata'), // customers_search_metadata (GIN jsonb_path_ops), docs/api.md section 15
};
