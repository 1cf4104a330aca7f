/**
 * Debts (docs/api.md sections 5, 6, 8 and 9): what a customer owes an organisation, with its
 * lifecycle status and a money summary kept from its line items and succeeded payments. Besides
 * `debt.created` and `debt.updated`, every status of the lifecycle (states.ts) has its
 * `debt.<status>` event. A deleted debt is kept but hidden.
 */
import { defineResource } from '../kernel/resource.js';
import { DEBT_SEARCH_FIELDS } from './search.js';
import { DEBT_STATUSES } from './states.js';

/** `debt.<status>` of every status but `initializing` (a new debt's event is `debt.created`); `debt.open` is never produced. */
const STATUS_EVENTS = DEBT_STATUSES.filter((s) => s !== 'initializing').map((s) => `debt.${s}` as const);

/** The `debts` table. */
export const debtsResource = defineResource({
  object: 'debt',
  noun: 'debt',
  table: 'debts',
  idPrefix: 'deb',
  events: ['debt.created', 'debt.updated', ...STATUS_EVENTS],
  scopes: ['debts:read', 'debts:write'],
  visible: (q) => void q.whereNot('debts.status', 'deleted'),
  search: DEBT_SEARCH_FIELDS,
});
