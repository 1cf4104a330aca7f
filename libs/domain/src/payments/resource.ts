/**
 * Payments (docs/api.md sections 5 and 8): money received against a debt, with its outcome. They
 * share the debts' scopes.
 */
import { defineResource } from '../kernel/resource.js';
import { PAYMENT_SEARCH_FIELDS } from './search.js';

/** The `payments` table. */
export const paymentsResource = defineResource({
  object: 'payment',
  noun: 'payment',
  table: 'payments',
  idPrefix: 'pay',
  events: ['payment.created', 'payment.updated', 'payment.succeeded', 'payment.failed', 'payment.canceled', 'payment.refunded', 'payment.promised'],
  search: PAYMENT_SEARCH_FIELDS,
});
