/**
 * What a customer may be offered for a balance (docs/api.md section 9
 * "Options"), pure: amounts in integer minor units, dates `YYYY-MM-DD` in UTC.
 *
 * Offers, in order: pay in full; pay later (when `pay_later_permitted`, latest date today + 30
 * days); plans of 2..`max_instalments` instalments, weekly then fortnightly then monthly, fewest
 * instalments first, first payment today + `first_payment_within_days` at the latest, every
 * instalment at least `min_instalment_amount`; a settlement (balance less `max_discount_percent`,
 * rounded up to the minor unit) when `settlement_allowed`.
 *
 * With a statement (`affordability`, docs/api.md section 18): a plan is offered only when its
 * largest instalment costs at most `cap` a month (weekly × 52 / 12, fortnightly × 26 / 12, compared
 * exactly), and the shortest monthly plan within the cap is offered even beyond the policy's
 * `max_instalments` or `min_instalment_amount` (up to `MAX_AFFORDABLE_INSTALMENTS`): the statement
 * is what lets a customer have a plan outside the policy. No plan is offered when the cap is 0.
 *
 * Remainder rule: a plan of n instalments pays floor(balance / n) each, and the first
 * `balance mod n` instalments pay one minor unit more, so they sum exactly to the balance and
 * differ by at most one unit.
 */
import { affordableOffer } from '../income-and-expenditure/affordability.js';
import { fitsMonthly } from '../income-and-expenditure/amounts.js';
import { dueOn, addDays, type Frequency, FREQUENCIES } from './schedule.js';

/** The policy fields of `payment_options_configuration` the offers read. */
export interface OfferPolicy {
  pay_later_permitted?: boolean;
  payment_plans_permitted?: boolean;
  min_payment_amount?: number;
  min_instalment_amount?: number;
  max_instalments?: number;
  settlement_allowed?: boolean;
  max_discount_percent?: number;
}

/** Days ahead the pay-later date and a plan's first payment may fall at the latest. */
export const OFFER_WINDOW_DAYS = 30;

/** The most instalments of a plan offered on a statement beyond the policy: ten years of months. */
export const MAX_AFFORDABLE_INSTALMENTS = 120;

/** What the customer's latest statement affords: `cap`, the largest monthly instalment in minor units (`affordableInstalmentCap`). */
export interface OfferAffordability {
  cap: number;
}

/** One offer shown to the customer. */
export type Offer =
  | { type: 'pay_in_full'; amount: number }
  | { type: 'pay_later'; amount: number; latest_on: string }
  | { type: 'plan'; frequency: Frequency; instalment_count: number; amounts: number[]; first_due_latest_on: string; last_due_on: string }
  | { type: 'settlement'; amount: number; discount: number };

/** Splits `balance` into `n` instalments by the remainder rule above (throws on n < 1). */
export function splitEvenly(balance: number, n: number): number[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('n must be a positive integer');
  const base = Math.floor(balance / n);
  const extra = balance - base * n;
  return Array.from({ length: n }, (_, i) => base + (i < extra ? 1 : 0));
}

/** A plan offer of `n` instalments of `frequency`, the first due by `latest`. */
function planOffer(balance: number, n: number, frequency: Frequency, latest: string): Offer {
  return {
    type: 'plan',
    frequency,
    instalment_count: n,
    amounts: splitEvenly(balance, n),
    first_due_latest_on: latest,
    last_due_on: dueOn(latest, frequency, n - 1),
  };
}

/**
 * The plan offers: those of the policy (2..`max_instalments`, each instalment at least
 * `min_instalment_amount`), kept only within the cap when a statement is given, then the shortest
 * affordable monthly plan if the policy had none that long.
 */
function planOffers(balance: number, policy: OfferPolicy, latest: string, affordability?: OfferAffordability): Offer[] {
  const minInstalment = Math.max(1, policy.min_instalment_amount ?? 1);
  const maxCount = Math.min(policy.max_instalments ?? 12, Math.floor(balance / minInstalment));
  const out: Offer[] = [];
  for (let n = 2; n <= maxCount; n++) {
    // The first instalment is the largest (remainder rule): it decides whether the plan is affordable.
    const largest = Math.ceil(balance / n);
    for (const frequency of FREQUENCIES) {
      if (affordability && !fitsMonthly({ amount: largest, frequency }, affordability.cap)) continue;
      out.push(planOffer(balance, n, frequency, latest));
    }
  }
  const shortest = affordability ? affordableOffer(balance, affordability.cap, MAX_AFFORDABLE_INSTALMENTS)?.instalment_count : undefined;
  if (shortest !== undefined && shortest > Math.max(1, maxCount)) out.push(planOffer(balance, shortest, 'monthly', latest));
  return out;
}

/**
 * The offers for `balance` (minor units, ≥ 0) under `policy` on `today`, capped by the customer's
 * latest statement when `affordability` is given (above). A zero balance gets no offers.
 * Defaults: min_instalment_amount 1, max_instalments 12, max_discount_percent 0.
 */
export function offers(balance: number, policy: OfferPolicy, today: string, affordability?: OfferAffordability): Offer[] {
  if (!Number.isInteger(balance) || balance <= 0) return [];
  const latest = addDays(today, OFFER_WINDOW_DAYS);
  const result: Offer[] = [{ type: 'pay_in_full', amount: balance }];
  if (policy.pay_later_permitted) result.push({ type: 'pay_later', amount: balance, latest_on: latest });
  if (policy.payment_plans_permitted) result.push(...planOffers(balance, policy, latest, affordability));
  const percent = policy.max_discount_percent ?? 0;
  if (policy.settlement_allowed && percent > 0) {
    const discount = Math.floor((balance * percent) / 100);
    if (discount > 0) result.push({ type: 'settlement', amount: balance - discount, discount });
  }
  return result;
}
