/**
 * Organisations (docs/api.md section 5): the creditor brands a tenant collects for. Every debt
 * names the organisation it is owed to.
 */
import { defineResource } from '../kernel/resource.js';
import { ORGANISATION_SEARCH_FIELDS } from './search.js';

/** The `organisations` table. */
export const organisationsResource = defineResource({
  object: 'organisation',
  noun: 'organisation',
  table: 'organisations',
  idPrefix: 'org',
  events: ['organisation.created', 'organisation.updated'],
  scopes: ['organisations:read', 'organisations:write'],
  search: ORGANISATION_SEARCH_FIELDS,
});
