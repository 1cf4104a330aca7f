/**
 * Payment plans (docs/api.md section 9): agreements that the customer pays a debt's remaining
 * balance in instalments. They share the debts' scopes; their writes go through the debt that owns
 * them (debts/plans.ts), which locks the debt first.
 */
import { defineResource } from '../kernel/resource.js';
import { PAYMENT_PLAN_SEARCH_FIELDS } from './search.js';

/** The `payment_plans` table. */
export const paymentPlansResource = defineResource({
  object: 'payment_plan',
  noun: 'payment plan',
  table: 'payment_plans',
  idPrefix: 'pp',
  events: ['payment_plan.created', 'payment_plan.updated', 'payment_plan.completed', 'payment_plan.broken', 'payment_plan.canceled'],
  search: PAYMENT_PLAN_SEARCH_FIELDS,
});
