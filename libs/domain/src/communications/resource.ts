/**
 * Communications (docs/api.md section 13): every message to or from a customer about a debt,
 * outbound (made by the collection engine from a strategy step) or inbound (a reply by email, an
 * SMS). They share the communications scopes the templates introduce.
 */
import { defineResource } from '../kernel/resource.js';
import { COMMUNICATION_SEARCH_FIELDS } from './search.js';

/** The `communications` table. */
export const communicationsResource = defineResource({
  object: 'communication',
  noun: 'communication',
  table: 'communications',
  idPrefix: 'com',
  events: ['communication.created', 'communication.sent', 'communication.delivered', 'communication.failed', 'communication.received'],
  search: COMMUNICATION_SEARCH_FIELDS,
});
