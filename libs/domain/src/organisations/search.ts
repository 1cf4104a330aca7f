/**
 * The searchable fields of organisations (docs/api.md section 15: `query` on their lists, GET /organisations?query=…), in the
 * grammar of section 4, and the index serving each (migration 046_metadata_search).
 */
import { metadataEntry, type SearchRegistry } from '@dms/search';

/** Organisations: search fields and their columns. */
export const ORGANISATION_SEARCH_FIELDS: SearchRegistry = {
  metadata: metadataEntry('organisations.metadata'), // organisations_search_metadata (GIN jsonb_path_ops)
};
