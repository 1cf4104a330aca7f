/**
 * The searchable fields of line items (docs/api.md section 15: `query` on their lists, GET /debts/{id}/line_items?query=…), in the
 * grammar of section 4, and the index serving each (migration 046_metadata_search).
 */
import { metadataEntry, type SearchRegistry } from '@dms/search';

/** Line items: search fields and their columns. */
export const LINE_ITEM_SEARCH_FIELDS: SearchRegistry = {
  metadata: metadataEntry('line_items.metadata'), // line_items_search_metadata (GIN jsonb_path_ops)
};
