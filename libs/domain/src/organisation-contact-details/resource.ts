/**
 * An organisation's contact details (docs/api.md section 15): how its customers reach the
 * creditor (e-mail, telephone numbers, postal addresses), objects of their own under the
 * organisation, the public API's `/organisations/{id}/contact_details`. They share the
 * organisations' scopes. A detail left out of the whole set given on an organisation update is
 * deleted (`deleted_at`, migration 066): hidden from lists and retrieval, its row kept.
 */
import { defineResource } from '../kernel/resource.js';
import { ORGANISATION_CONTACT_DETAIL_SEARCH_FIELDS } from './search.js';

/** The `organisation_contact_details` table (migrations 065, 066). */
export const organisationContactDetailsResource = defineResource({
  object: 'organisation_contact_detail',
  noun: 'organisation contact detail',
  table: 'organisation_contact_details',
  idPrefix: 'ocd',
  events: ['organisation_contact_detail.created', 'organisation_contact_detail.updated', 'organisation_contact_detail.deleted'],
  visible: (q) => void q.whereNull('organisation_contact_details.deleted_at'),
  search: ORGANISATION_CONTACT_DETAIL_SEARCH_FIELDS,
});
