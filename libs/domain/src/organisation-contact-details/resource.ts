/**
 * An organisation's contact details (docs/api.md section 15): how its customers reach the
 * creditor (e-mail, telephone numbers, postal addresses), objects of their own under the
 * organisation, the public API's `/organisations/{id}/contact_details`. They share the
 * organisations' scopes.
 */
import { defineResource } from '../kernel/resource.js';
import { ORGANISATION_CONTACT_DETAIL_SEARCH_FIELDS } from './search.js';

/** The `organisation_contact_details` table (migration 065). */
export const organisationContactDetailsResource = defineResource({
  object: 'organisation_contact_detail',
  noun: 'organisation contact detail',
  table: 'organisation_contact_details',
  idPrefix: 'ocd',
  events: ['organisation_contact_detail.created', 'organisation_contact_detail.updated'],
  search: ORGANISATION_CONTACT_DETAIL_SEARCH_FIELDS,
});
