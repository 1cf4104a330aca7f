/**
 * Whether a plan the customer proposes is within the portal's policy (docs/api.md section 18,
 * pure): an instalment at least `min_instalment_amount` and at most `max_instalments` instalments
 * (the same defaults as the offers: 1 and 12). A plan within the policy is taken from the offers;
 * one outside it becomes a proposal for the tenant to decide.
 */
import type { OfferPolicy } from '../payment-plans/offers.js';

/** Instalments needed to pay `balance` (minor units) at `instalmentAmount` each (the last takes the remainder). */
export function instalmentsFor(balance: number, instalmentAmount: number): number {
  return Math.ceil(balance / instalmentAmount);
}

/**
 * True when paying `balance` by `instalmentAmount` (both minor units, > 0) keeps to `policy`:
 * plans permitted (`payment_plans_permitted`, as the offers read it), instalment ≥ `min_instalment_amount` (or the whole balance when smaller), and
 * at most `max_instalments` instalments.
 */
export function withinPolicy(balance: number, instalmentAmount: number, policy: OfferPolicy): boolean {
  if (!policy.payment_plans_permitted) return false;
  const minimum = Math.min(balance, Math.max(1, policy.min_instalment_amount ?? 1));
  return instalmentAmount >= minimum && instalmentsFor(balance, instalmentAmount) <= (policy.max_instalments ?? 12);
}
