/**
 * Contact details (docs/api.md section 10): the ways to reach a customer (email, telephone
 * numbers, postal addresses), objects of their own under the customer. Personal data: never logged.
 * They share the customers' scopes.
 */
import { defineResource } from '../kernel/resource.js';
import { CONTACT_DETAIL_SEARCH_FIELDS } from './search.js';

/** The `customer_contact_details` table; deleted details stay retrievable (their list narrows them out). */
export const contactDetailsResource = defineResource({
  object: 'contact_detail',
  noun: 'contact detail',
  table: 'customer_contact_details',
  idPrefix: 'cd',
  events: ['customer_contact_detail.created', 'customer_contact_detail.updated', 'customer_contact_detail.deleted'],
  search: CONTACT_DETAIL_SEARCH_FIELDS,
});
