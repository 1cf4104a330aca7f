/**
 * Income and expenditure fixtures (docs/api.md section 19): a statement body with every entry of
 * every group, as `POST /debts/{id}/income_and_expenditures` takes it.
 */

/** The money groups of a statement and their entries, as docs/api.md section 19 lists them. */
export const STATEMENT_ENTRIES: Record<string, string[]> = {
  income: ['earnings', 'benefits', 'pensions', 'other'],
  fixed_costs: ['housing', 'council_tax', 'utilities', 'childcare', 'insurance', 'transport'],
  flexible_costs: ['food_and_housekeeping', 'personal', 'communications', 'leisure'],
  priority_debts: ['payments'],
  other_debts: ['payments'],
};

/** `{amount, frequency: 'monthly'}`. */
export const monthly = (amount: number) => ({ amount, frequency: 'monthly' });

/** A statement body: household 2 adults, 1 child, 1 vehicle and every entry 0 a month, then `patch` applied group by group. */
export function statementBody(patch: Record<string, Record<string, unknown>> = {}): Record<string, any> {
  const out: Record<string, any> = { household: { adults: 2, children: 1, vehicles: 1 } };
  for (const [g, entries] of Object.entries(STATEMENT_ENTRIES)) out[g] = { ...Object.fromEntries(entries.map((e) => [e, monthly(0)])), ...(patch[g] ?? {}) };
  return out;
}
