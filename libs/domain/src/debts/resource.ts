/**
 * Debts (docs/api.md sections 5, 6, 8 and 9): what a customer owes an organisation, with its
 * lifecycle status and a money summary kept from its line items and succeeded payments. Besides
 * `debt.created` and `debt.updated`, every status a move of the lifecycle (states.ts) can reach has
 * its `debt.<status>` event. A deleted debt is kept but hidden.
 */
import { defineResource } from '../kernel/resource.js';
import { DEBT_SEARCH_FIELDS } from './search.js';
import { DEBT_MACHINE } from './states.js';

/** `debt.<status>` of every status a move leads to, in table order. */
const STATUS_EVENTS = [...new Set(Object.values(DEBT_MACHINE.table).map((rule) => rule.to))].map((s) => `debt.${s}`);

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
