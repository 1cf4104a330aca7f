/**
 * Line items (docs/api.md section 8): the ledger a debt's balance is made of, immutable (a
 * correction is another item). They share the debts' scopes.
 */
import { defineResource } from '../kernel/resource.js';
import { LINE_ITEM_SEARCH_FIELDS } from './search.js';

/** The `line_items` table. */
export const lineItemsResource = defineResource({
  object: 'line_item',
  noun: 'line item',
  table: 'line_items',
  idPrefix: 'li',
  events: ['line_item.created'],
  search: LINE_ITEM_SEARCH_FIELDS,
});
