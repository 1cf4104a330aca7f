/**
 * The offers the portal shows for a debt (docs/api.md section 18 "Offers"), pure: amounts in
 * integer minor units, dates `YYYY-MM-DD` (UTC).
 *
 * The options in force are the organisation's `payment_options_configuration` with the debt's
 * `configurations.payment_options` over it, field by field (`effectiveOptions`). Offers, in order:
 * pay in full; pay later (when `pay_later_permitted`, by today + 30 days at the latest); plans of
 * 2..`max_instalments` (default 12) instalments when `payment_plans_permitted`, fewest instalments
 * first and weekly, fortnightly, monthly for each count, every instalment at least
 * `min_instalment_amount`; a settlement when `settlement_allowed` (payment-plans/offers.ts decides
 * pay in full, pay later and the settlement). A plan's instalments are exactly those the plan will
 * have (`buildSchedule`, the API's own: equal instalments, the last taking the remainder), so they
 * sum to the balance. With an income and expenditure statement (`cap`, the monthly share of the
 * disposable income, `debtAffordability`), a plan any of whose instalments costs more than the cap
 * a month is left out.
 */
import { fitsMonthly } from '../income-and-expenditure/amounts.js';
import { offers as policyOffers, OFFER_WINDOW_DAYS, type OfferPolicy } from '../payment-plans/offers.js';
import { addDays, buildSchedule, FREQUENCIES, type Frequency } from '../payment-plans/schedule.js';

/** Most instalments a portal plan has when the options name no `max_instalments`. */
export const DEFAULT_MAX_INSTALMENTS = 12;

/** A plan the customer may choose; `id` (`<frequency>-<count>`) names it in forms. */
export interface PlanOffer {
  type: 'plan';
  id: string;
  frequency: Frequency;
  instalment_count: number;
  /** Each instalment, oldest first (minor units, summing to the balance). */
  amounts: number[];
  /** The latest first payment date. */
  first_due_latest_on: string;
}

/** One offer of the portal. */
export type PortalOffer =
  | { type: 'pay_in_full'; amount: number }
  | { type: 'pay_later'; amount: number; latest_on: string }
  | PlanOffer
  | { type: 'settlement'; amount: number; discount: number };

/** The options in force for a debt: the organisation's, each field the debt gives replacing it. */
export function effectiveOptions(organisation: OfferPolicy | null | undefined, debt: OfferPolicy | null | undefined): OfferPolicy {
  const given = Object.fromEntries(Object.entries(debt ?? {}).filter(([, v]) => v !== undefined && v !== null));
  return { ...(organisation ?? {}), ...given };
}

/** The plan offers of `balance` under `options` (see the module's rules), the first payment by `latest`. */
function planOffers(balance: number, options: OfferPolicy, latest: string, cap: number | undefined): PlanOffer[] {
  const minInstalment = Math.max(1, options.min_instalment_amount ?? 1);
  const maxCount = options.max_instalments ?? DEFAULT_MAX_INSTALMENTS;
  const out: PlanOffer[] = [];
  for (let n = 2; n <= maxCount && Math.floor(balance / n) >= minInstalment; n++) {
    for (const frequency of FREQUENCIES) {
      const amounts = buildSchedule({ amount: balance, frequency, startOn: latest, instalmentCount: n }).map((i) => i.amount);
      if (cap !== undefined && amounts.some((amount) => !fitsMonthly({ amount, frequency }, cap))) continue;
      out.push({ type: 'plan', id: `${frequency}-${n}`, frequency, instalment_count: n, amounts, first_due_latest_on: latest });
    }
  }
  return out;
}

/**
 * The offers for `balance` (minor units) under the options in force on `today`.
 * @param cap the largest monthly instalment the customer's latest statement affords (minor units), when they gave one
 * @returns none for a balance that is not a positive integer
 */
export function portalOffers(balance: number, options: OfferPolicy, today: string, cap?: number): PortalOffer[] {
  if (!Number.isInteger(balance) || balance <= 0) return [];
  const [inFull, ...rest] = policyOffers(balance, { ...options, payment_plans_permitted: false }, today) as PortalOffer[];
  const later = rest.filter((o) => o.type === 'pay_later');
  const settlement = rest.filter((o) => o.type === 'settlement');
  const plans = options.payment_plans_permitted ? planOffers(balance, options, addDays(today, OFFER_WINDOW_DAYS), cap) : [];
  return [inFull!, ...later, ...plans, ...settlement];
}

/** The plan offer named `id` among `offers`, or undefined. */
export function findPlanOffer(offers: readonly PortalOffer[], id: unknown): PlanOffer | undefined {
  return offers.find((o): o is PlanOffer => o.type === 'plan' && o.id === id);
}

/** Whether `day` (`YYYY-MM-DD`) is a real date from `today` to today + 30 days (a first payment or pay-later date). */
export function withinWindow(day: unknown, today: string): day is string {
  if (typeof day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const parsed = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) return false;
  return day >= today && day <= addDays(today, OFFER_WINDOW_DAYS);
}
