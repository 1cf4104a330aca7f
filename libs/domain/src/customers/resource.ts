/**
 * Customers (docs/api.md sections 5 and 10): the people and companies who owe debts, with their
 * contact details. Personal data: never logged, visible only to the owning tenant. A deleted
 * customer is kept (its debts keep their history) but hidden.
 */
import { defineResource } from '../kernel/resource.js';
import { CUSTOMER_SEARCH_FIELDS } from './search.js';

/** The `customers` table. */
export const customersResource = defineResource({
  object: 'customer',
  noun: 'customer',
  table: 'customers',
  idPrefix: 'cus',
  events: ['customer.created', 'customer.updated', 'customer.deleted', 'customer.verified', 'customer.locked_out', 'customer.erased'],
  scopes: ['customers:read', 'customers:write'],
  visible: (q) => void q.whereNull('customers.deleted_at'),
  search: CUSTOMER_SEARCH_FIELDS,
});
