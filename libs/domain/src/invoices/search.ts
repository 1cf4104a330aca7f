/**
 * The searchable fields of invoices (docs/api.md section 8, `GET /debts/{id}/invoices/search`),
 * in the grammar of section 4. Dates compare as whole UTC days.
 */
import { exactText, metadataEntry, timestamp } from '@dms/search';
import type { SearchRegistry } from '@dms/search';

/** Invoice search fields and their columns. */
export const INVOICE_SEARCH_FIELDS: SearchRegistry = {
  reference: exactText('invoices.reference'),
  status: exactText('invoices.status'),
  due_on: timestamp('invoices.due_on'),
  invoiced_on: timestamp('invoices.invoiced_on'),
  metadata: metadataEntry('invoices.metadata'), // invoices_search_metadata (GIN jsonb_path_ops), docs/api.md section 15
};
