/**
 * The searchable fields of payouts (docs/api.md section 14: `GET /payouts/search`), in the grammar
 * of section 10.
 */
import { exactText, integer, timestamp, type SearchRegistry } from '@dms/search';

/** Payout search fields and their columns. */
export const PAYOUT_SEARCH_FIELDS: SearchRegistry = {
  status: exactText('payouts.status'),
  currency: exactText('payouts.currency'),
  organisation_id: exactText('payouts.organisation_id'),
  amount: integer('payouts.amount'),
  payout_date: timestamp('payouts.payout_date'),
  period_end: timestamp('payouts.period_end'),
  created_at: timestamp('payouts.created_at'),
};
