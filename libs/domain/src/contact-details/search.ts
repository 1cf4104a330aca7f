/**
 * The searchable fields of contact details (docs/api.md section 15: `query` on their lists, GET /customers/{id}/contact_details?query=…), in the
 * grammar of section 4, and the index serving each (migration 046_metadata_search).
 */
import { metadataEntry, type SearchRegistry } from '@dms/search';

/** Contact details: search fields and their columns. */
export const CONTACT_DETAIL_SEARCH_FIELDS: SearchRegistry = {
  metadata: metadataEntry('customer_contact_details.metadata'), // customer_contact_details_search_metadata (GIN jsonb_path_ops)
};
