/**
 * The searchable fields of payment plans (docs/api.md section 15: `query` on their lists, GET /payment_plans?query=…, GET /debts/{id}/payment_plans?query=…), in the
 * grammar of section 4, and the index serving each (migration 046_metadata_search).
 */
import { exactText, metadataEntry, type SearchRegistry } from '@dms/search';

/** Payment plans: search fields and their columns. */
export const PAYMENT_PLAN_SEARCH_FIELDS: SearchRegistry = {
  status: exactText('payment_plans.status'), // payment_plans_search_status (tenant_id, status, debt_id)
  metadata: metadataEntry('payment_plans.metadata'), // payment_plans_search_metadata (GIN jsonb_path_ops)
};
