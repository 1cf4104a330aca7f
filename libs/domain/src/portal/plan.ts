/**
 * The customer's payment plan as the portal shows it (docs/api.md section 18, "Time to pay"): the
 * debt's active plan with its upcoming instalments, the next unpaid one, and the dates the
 * customer may choose for it: a delay of 1 to `MAX_DELAY_DAYS` days, or a new day from the
 * tenant's today up to the day before the instalment after it (the rules `delayNextInstalment`
 * and `changeInstalmentDay` apply; those functions make the change). Each is offered once per
 * instalment. Dates `YYYY-MM-DD`, amounts in minor units.
 */
import type { Knex } from '@dms/db';
import { MAX_DELAY_DAYS } from '../debts/time-to-pay.js';
import { tenantRows } from '../kernel/scoped.js';
import { nextUnpaid, type Instalment } from '../payment-plans/instalments.js';
import { paymentPlansResource } from '../payment-plans/resource.js';
import { addDays, dueOn } from '../payment-plans/schedule.js';
import type { PaymentPlan, PaymentPlanRow } from '../payment-plans/schemas.js';
import { toPaymentPlan } from '../payment-plans/store.js';

/** The plan page's facts: the active plan (or undefined), its next unpaid instalment, and the dates on offer for it. */
export interface PortalPlan {
  plan: PaymentPlan | undefined;
  next: Instalment | undefined;
  /** The tenant's today (its clock: test mode may run it forward). */
  today: string;
  /** Dates the next instalment may be delayed to (1 to 14 days later); empty once it was delayed. */
  delayDates: string[];
  /** Dates the next instalment may move to when changing the day; empty once its day was changed. */
  dayDates: string[];
}

/** The tenant's today, `YYYY-MM-DD` (`tenant_now`). */
export async function tenantToday(db: Knex | Knex.Transaction, tenantId: string): Promise<string> {
  const { rows } = await db.raw(`SELECT to_char((tenant_now(?) AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS today`, [tenantId]);
  return rows[0].today as string;
}

/** Dates a day apart from `from` (inclusive) to `until` (exclusive), without `skip`. */
function daysBetween(from: string, until: string, skip?: string): string[] {
  const out: string[] = [];
  for (let d = from; d < until; d = addDays(d, 1)) if (d !== skip) out.push(d);
  return out;
}

/** The time-to-pay offers of an active plan's next unpaid instalment on `today` (pure). */
export function timeToPayOffers(
  plan: Pick<PaymentPlan, 'frequency'>,
  next: Instalment | undefined,
  today: string,
): Pick<PortalPlan, 'delayDates' | 'dayDates'> {
  if (!next) return { delayDates: [], dayDates: [] };
  const delayDates = next.delayed ? [] : daysBetween(addDays(next.due_on, 1), addDays(next.due_on, MAX_DELAY_DAYS + 1));
  const dayDates = next.day_changed ? [] : daysBetween(today, dueOn(next.due_on, plan.frequency, 1), next.due_on);
  return { delayDates, dayDates };
}

/** The active plan of the tenant's debt `debtId` (the caller has checked the debt is the customer's) and its offers. */
export async function customerPlan(db: Knex | Knex.Transaction, tenantId: string, debtId: string): Promise<PortalPlan> {
  const today = await tenantToday(db, tenantId);
  const row = (await tenantRows(db, paymentPlansResource, tenantId).where({ 'payment_plans.debt_id': debtId, 'payment_plans.status': 'active' }).first()) as
    PaymentPlanRow | undefined;
  if (!row) return { plan: undefined, next: undefined, today, delayDates: [], dayDates: [] };
  const plan = toPaymentPlan(row, today);
  const next = nextUnpaid(row.schedule);
  return { plan, next, today, ...timeToPayOffers(plan, next, today) };
}
