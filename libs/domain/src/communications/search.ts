/**
 * The searchable fields of communications (docs/api.md section 13: `GET /communications/search`),
 * in the grammar of section 4.
 */
import { exactText, timestamp, type SearchRegistry } from '@dms/search';

/** Communication search fields and their columns. */
export const COMMUNICATION_SEARCH_FIELDS: SearchRegistry = {
  status: exactText('communications.status'),
  direction: exactText('communications.direction'),
  delivery_method: exactText('communications.delivery_method'),
  debt_id: exactText('communications.debt_id'),
  customer_id: exactText('communications.customer_id'),
  template_id: exactText('communications.template_id'),
  provider_reference: exactText('communications.provider_reference'),
  created_at: timestamp('communications.created_at'),
};
