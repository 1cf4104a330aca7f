/**
 * The searchable fields of an organisation's contact details (docs/api.md section 15: `query` on
 * `GET /organisations/{id}/contact_details`), in the grammar of section 4, and the index serving
 * each (migration 065_organisation_contact_details).
 */
import { metadataEntry, type SearchRegistry } from '@dms/search';

/** Organisation contact details: search fields and their columns. */
export const ORGANISATION_CONTACT_DETAIL_SEARCH_FIELDS: SearchRegistry = {
  metadata: metadataEntry('organisation_contact_details.metadata'), // organisation_contact_details_search_metadata (GIN jsonb_path_ops)
};
