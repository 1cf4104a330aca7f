/**
 * The money side of seeded debts (docs/api.md sections 8 and 9): invoices with their line items,
 * pending, failed, refunded and partly refunded payments, and payment plans in every status
 * (active, completed, broken, canceled), each made through the domain library with the API's body
 * validation, so events, summaries and schedules are exactly what the API writes.
 * Broken plans are broken by the worker's own rule (`breakPlanIfMissed` of the domain), decided two
 * days ahead as `WORKER_CLOCK_OFFSET_SECONDS` would, on plans that start today with no grace days.
 */
import type { Faker } from '@faker-js/faker';
import type { Knex } from '@dms/db';
import { tenantRows, validator } from '@dms/domain/kernel';
import { breakPlanIfMissed, cancelPaymentPlan, createPlan, debtsResource, lockDebt, type Debt, type StatusNote } from '@dms/domain/debts';
import { InvoiceCreate, createInvoice } from '@dms/domain/invoices';
import { PaymentCreate, createPayment, refundPayment, updatePayment } from '@dms/domain/payments';
import { PaymentPlanCreate } from '@dms/domain/payment-plans';

/** What happens to one `prepared` debt's money. */
export const MONEY_STORIES = [
  'invoiced',
  'pending',
  'failed',
  'refunded',
  'partly_refunded',
  'plan_active',
  'plan_completed',
  'plan_broken',
  'plan_canceled',
] as const;
export type MoneyStory = (typeof MONEY_STORIES)[number];

const validate = {
  invoice: validator<InvoiceCreate>(InvoiceCreate),
  payment: validator<PaymentCreate>(PaymentCreate),
  plan: validator<PaymentPlanCreate>(PaymentPlanCreate),
};

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Tells `story` on a `prepared` debt with nothing paid.
 * @returns how many payments it created (the seed's `loaded.payments` counts them)
 * @throws ApiError when the API's rules refuse a step (a seeding bug)
 */
export async function tellMoneyStory(db: Knex, tenantId: string, debt: Debt, story: MoneyStory, faker: Faker, note: StatusNote): Promise<number> {
  const remaining = debt.summary.amount_remaining;
  const share = (fraction: number) => Math.max(1, Math.round(remaining * fraction));
  const pay = (amount: number, extra: Partial<PaymentCreate> = {}) =>
    createPayment(
      db,
      tenantId,
      debt.id,
      validate.payment({ amount, currency: debt.currency, payment_provider: faker.helpers.arrayElement(['stripe', 'gocardless', 'bank_transfer']), ...extra }),
      note,
    );
  const plan = (extra: Partial<PaymentPlanCreate>) =>
    createPlan(
      db,
      tenantId,
      debt.id,
      validate.plan({
        frequency: faker.helpers.arrayElement(['weekly', 'fortnightly', 'monthly']),
        start_on: day(7),
        instalment_count: faker.number.int({ min: 3, max: 12 }),
        ...extra,
      }),
      note,
    );
  switch (story) {
    case 'invoiced':
      await createInvoice(
        db,
        tenantId,
        debt.id,
        validate.invoice({
          reference: `INV-${faker.string.numeric(6)}`,
          invoiced_on: day(-30),
          due_on: day(14),
          description: 'Arrears statement',
          line_items: [
            { kind: 'fee', amount: 1500, description: 'Late payment fee' },
            { kind: 'interest', amount: share(0.02), description: 'Statutory interest' },
          ],
        }),
        note.whodunnit,
      );
      return 0;
    case 'pending':
      await pay(share(0.2), { status: 'pending' });
      return 1;
    case 'failed': {
      const p = await pay(share(0.2), { status: 'pending' });
      await updatePayment(db, tenantId, debt.id, p.id, { status: 'failed' }, note);
      return 1;
    }
    case 'refunded':
    case 'partly_refunded': {
      const p = await pay(share(0.3));
      await refundPayment(db, tenantId, debt.id, p.id, story === 'refunded' ? {} : { amount: Math.max(1, Math.floor(p.amount / 2)) }, note);
      return 1;
    }
    case 'plan_active':
      await plan({});
      return 0;
    case 'plan_completed': {
      const created = await plan({ start_on: day(0) });
      await pay(created.amount_total, { payment_plan_id: created.id });
      return 1;
    }
    case 'plan_broken':
      await plan({ start_on: day(0), grace_days: 0 });
      return 0;
    case 'plan_canceled': {
      const created = await plan({});
      await cancelPaymentPlan(db, tenantId, created.id, { ...note, reason: 'Customer asked to stop the plan' });
      return 0;
    }
  }
}

/**
 * Breaks the tenant's overdue plans (the `plan_broken` stories) by the worker's rule, its clock two
 * days ahead; each break defaults its debt and records the events the worker records.
 * @returns how many plans were broken
 */
export async function breakOverduePlans(db: Knex, tenantId: string): Promise<number> {
  // The worker's rule, decided two days ahead of the database clock (as WORKER_CLOCK_OFFSET_SECONDS would).
  const { rows } = await db.raw(`SELECT ((now() + interval '2 days') AT TIME ZONE 'UTC')::date::text AS today`);
  const today = rows[0].today as string;
  const paying: Array<{ id: string }> = await tenantRows(db, debtsResource, tenantId).where('debts.status', 'paying').select('debts.id');
  let broken = 0;
  for (const { id } of paying) {
    const context = await db.transaction(async (trx) => breakPlanIfMissed(trx, tenantId, await lockDebt(trx, tenantId, id), today));
    if (context !== undefined) broken += 1;
  }
  return broken;
}
