/**
 * The payment plan as other writes see it (docs/api.md section 9): its public form, the debt's
 * active plan under a row lock, and the writes that payments, debt moves and the worker make to
 * it, each with its `payment_plan.*` event in the caller's transaction. Callers lock the debt
 * first, then the plan (one lock order everywhere, so no deadlock).
 */
import type { Knex } from '@dms/db';
import { recordEvent, type EventType } from '../../db/outbox.js';
import { tenantRows } from '../../db/scoped.js';
import { iso } from '../../schemas/common.js';
import { formatDay } from './schedule.js';
import { allocate, allPaid, nextDueOn, type Instalment } from './instalments.js';
import { shownInstalmentStatus, type PlanStatus } from './states.js';
import type { PaymentPlan, PaymentPlanRow } from './schemas.js';

/**
 * Maps a row to the public object; an unpaid instalment whose date has come shows as `due`.
 * @param today `YYYY-MM-DD` (default: the current UTC day)
 */
export function toPaymentPlan(row: PaymentPlanRow, today = formatDay(new Date())): PaymentPlan {
  return {
    id: row.id,
    object: 'payment_plan',
    debt: row.debt_id,
    status: row.status,
    frequency: row.frequency,
    start_on: row.start_on,
    grace_days: row.grace_days,
    amount_total: row.amount_total,
    amount_paid: row.amount_paid,
    schedule: row.schedule.map((i) => ({ ...i, status: shownInstalmentStatus(i.status, i.due_on, today) })),
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The debt's active plan, locked (the debt must already be locked by the caller), or undefined. */
export async function lockActivePlan(trx: Knex.Transaction, tenantId: string, debtId: string): Promise<PaymentPlanRow | undefined> {
  return tenantRows(trx, 'payment_plans', tenantId).where({ 'payment_plans.debt_id': debtId, 'payment_plans.status': 'active' }).forUpdate().first();
}

/** Columns of a plan change: a new schedule (with its derived `next_due_on`), status, amount paid. */
export interface PlanChange {
  schedule?: Instalment[];
  status?: PlanStatus;
  amount_paid?: number;
  frequency?: string;
  start_on?: string;
}

/**
 * Writes `change` to a locked plan and records `event`.
 * @returns the plan after the change
 */
export async function writePlan(trx: Knex.Transaction, tenantId: string, plan: PaymentPlanRow, change: PlanChange, event: EventType): Promise<PaymentPlan> {
  const columns: Record<string, unknown> = { ...change, updated_at: trx.fn.now() };
  if (change.schedule) {
    columns.schedule = JSON.stringify(change.schedule);
    columns.next_due_on = nextDueOn(change.schedule);
  }
  const [row] = await tenantRows(trx, 'payment_plans', tenantId).where('payment_plans.id', plan.id).update(columns).returning('*');
  const object = toPaymentPlan(row as PaymentPlanRow);
  await recordEvent(trx, tenantId, event, object);
  return object;
}

/**
 * Pays `amount` of a succeeded payment into the locked plan's oldest unpaid instalments; the plan
 * completes when all are paid.
 * @returns whether the plan completed
 */
export async function payIntoPlan(trx: Knex.Transaction, tenantId: string, plan: PaymentPlanRow, amount: number): Promise<boolean> {
  const { schedule, applied } = allocate(plan.schedule, amount);
  if (applied === 0) return false;
  const completed = allPaid(schedule);
  await writePlan(
    trx,
    tenantId,
    plan,
    { schedule, amount_paid: plan.amount_paid + applied, ...(completed ? { status: 'completed' as const } : {}) },
    completed ? 'payment_plan.completed' : 'payment_plan.updated',
  );
  return completed;
}

/** Cancels the locked active plan (debt settled, withdrawn, or the client's cancel). */
export function cancelPlan(trx: Knex.Transaction, tenantId: string, plan: PaymentPlanRow): Promise<PaymentPlan> {
  return writePlan(trx, tenantId, plan, { status: 'canceled' }, 'payment_plan.canceled');
}
