/**
 * Proposals (docs/api.md section 18): payment plans a customer proposed outside the portal's
 * policy, for the tenant or an operator to accept or decline. They share the debts' scopes; their
 * writes lock the debt first (proposals/store.ts).
 */
import { defineResource } from '../kernel/resource.js';

/** The `proposals` table (migration 098). */
export const proposalsResource = defineResource({
  object: 'proposal',
  noun: 'proposal',
  table: 'proposals',
  idPrefix: 'prp',
  events: ['proposal.created', 'proposal.accepted', 'proposal.declined'],
});
