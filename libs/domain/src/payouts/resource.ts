/**
 * Payouts (docs/api.md section 14): the money the platform remits to an organisation, per
 * currency, and the balance items it is made of. Tenants read them (`payouts:read`); only the
 * worker and operators (section 12) create and move them.
 */
import { defineResource } from '../kernel/resource.js';
import { PAYOUT_SEARCH_FIELDS } from './search.js';

/** The `payouts` table. */
export const payoutsResource = defineResource({
  object: 'payout',
  noun: 'payout',
  table: 'payouts',
  idPrefix: 'po',
  events: ['payout.created', 'payout.in_transit', 'payout.paid', 'payout.failed'],
  scopes: ['payouts:read'],
  search: PAYOUT_SEARCH_FIELDS,
});

/** The `balance_items` table: immutable lines of payouts (Stripe's balance transactions). */
export const balanceItemsResource = defineResource({
  object: 'balance_item',
  noun: 'balance item',
  table: 'balance_items',
  idPrefix: 'bi',
  events: [],
});

/** The `payout_accounts` table: per organisation and currency, the next run and the carried amount. */
export const payoutAccountsResource = defineResource({
  object: 'payout_account',
  noun: 'payout account',
  table: 'payout_accounts',
  idPrefix: 'pacc',
  events: [],
});
