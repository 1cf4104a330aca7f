/**
 * The searchable fields of communication templates (docs/api.md section 15: `query` on their lists, GET /communication_templates?query=…), in the
 * grammar of section 4, and the index serving each (migration 046_metadata_search).
 */
import { metadataEntry, type SearchRegistry } from '@dms/search';

/** Communication templates: search fields and their columns. */
export const COMMUNICATION_TEMPLATE_SEARCH_FIELDS: SearchRegistry = {
  metadata: metadataEntry('communication_templates.metadata'), // communication_templates_search_metadata (GIN jsonb_path_ops)
};
