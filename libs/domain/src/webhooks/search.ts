/**
 * The searchable fields of webhook endpoints (docs/api.md section 15: `query` on their lists, GET /webhooks?query=…), in the
 * grammar of section 4, and the index serving each (migration 046_metadata_search).
 */
import { metadataEntry, type SearchRegistry } from '@dms/search';

/** Webhook endpoints: search fields and their columns. */
export const WEBHOOK_ENDPOINT_SEARCH_FIELDS: SearchRegistry = {
  metadata: metadataEntry('webhook_endpoints.metadata'), // webhook_endpoints_search_metadata (GIN jsonb_path_ops)
};
