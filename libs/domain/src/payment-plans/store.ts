/**
 * The plan rows of a debt (docs/api.md section 9): the public form, the debt's active plan under a
 * row lock, a new plan, and the writes that payments, debt moves and the worker make to a plan,
 * each with its `payment_plan.*` event in the caller's transaction. Status changes are decided by
 * PLAN_MACHINE (states.ts). Callers lock the debt first, then the plan (one lock order everywhere,
 * so no deadlock): the debt's own store (debts/plans.ts, debts/moves.ts) and payments do. Every
 * write records who made it (`whodunnit`, and the `source` that follows from it, kernel/actors.ts),
 * so each event's plan names its actor.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { actorSource } from '../kernel/actors.js';
import { recordEvent } from '../kernel/outbox.js';
import type { EventOf } from '../kernel/resource.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { allocate, allPaid, nextDueOn, type Instalment } from './instalments.js';
import { paymentPlansResource } from './resource.js';
import { formatDay, type Frequency } from './schedule.js';
import { PLAN_MACHINE, shownInstalmentStatus, type PlanMove } from './states.js';
import type { PaymentPlan, PaymentPlanRow } from './schemas.js';

type PlanEvent = EventOf<typeof paymentPlansResource>;

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
    whodunnit: row.whodunnit ?? null,
    source: row.source ?? null,
    ...(row.payment_method_reference
      ? {
          payment_method: {
            provider: row.payment_method_provider!,
            label: row.payment_method_label!,
            authority_canceled_at: iso(row.authority_canceled_at ?? null),
          },
        }
      : {}),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The debt's active plan, locked (the debt must already be locked by the caller), or undefined. */
export async function lockActivePlan(trx: Knex.Transaction, tenantId: string, debtId: string): Promise<PaymentPlanRow | undefined> {
  return tenantRows(trx, paymentPlansResource, tenantId).where({ 'payment_plans.debt_id': debtId, 'payment_plans.status': 'active' }).forUpdate().first();
}

/**
 * Loads the tenant's plan `id`, locked when `forUpdate`.
 * @throws ApiError 404 `resource_missing`
 */
export function findPlan(db: Knex | Knex.Transaction, tenantId: string, id: string, forUpdate = false): Promise<PaymentPlanRow> {
  return findOwned<PaymentPlanRow>(db, paymentPlansResource, tenantId, id, { forUpdate });
}

/** The terms and money of a new plan (its schedule computed by the caller). */
export interface NewPlan {
  debtId: string;
  frequency: Frequency;
  startOn: string;
  graceDays: number;
  /** The debt's `amount_remaining` the plan covers, minor units. */
  amountTotal: number;
  schedule: Instalment[];
  metadata?: Record<string, string>;
  /** The saved method the worker charges on each due date (a continuous payment authority, docs/api.md section 18). */
  paymentMethod?: PlanPaymentMethod;
}

/** A saved payment method of a plan: the provider's name, its reference of the method, and a label (never a card number). */
export interface PlanPaymentMethod {
  provider: string;
  reference: string;
  label: string;
}

/** The actor columns of a plan write by `whodunnit` (kernel/actors.ts). */
function actorColumns(whodunnit: string): { whodunnit: string; source: string } {
  return { whodunnit, source: actorSource(whodunnit) };
}

/**
 * Inserts an active plan of the locked debt and records `payment_plan.created`.
 * @param whodunnit who made it: the client id, `operator:<client id>`, `customer:<cus_id>` or `system`
 */
export async function insertPlan(trx: Knex.Transaction, tenantId: string, plan: NewPlan, whodunnit: string): Promise<PaymentPlan> {
  const [row] = await trx(paymentPlansResource.table)
    .insert({
      id: newId(paymentPlansResource.idPrefix),
      tenant_id: tenantId,
      debt_id: plan.debtId,
      frequency: plan.frequency,
      start_on: plan.startOn,
      grace_days: plan.graceDays,
      amount_total: plan.amountTotal,
      schedule: JSON.stringify(plan.schedule),
      next_due_on: nextDueOn(plan.schedule),
      metadata: JSON.stringify(plan.metadata ?? {}),
      payment_method_provider: plan.paymentMethod?.provider ?? null,
      payment_method_reference: plan.paymentMethod?.reference ?? null,
      payment_method_label: plan.paymentMethod?.label ?? null,
      ...actorColumns(whodunnit),
    })
    .returning('*');
  const created = toPaymentPlan(row as PaymentPlanRow);
  await recordEvent(trx, paymentPlansResource, tenantId, 'payment_plan.created', created);
  return created;
}

/** Columns of a plan change besides its status: a new schedule (with its derived `next_due_on`), amount paid, terms. */
export interface PlanChange {
  schedule?: Instalment[];
  amount_paid?: number;
  frequency?: string;
  start_on?: string;
  /** When the customer canceled the continuous payment authority (the worker charges no more). */
  authority_canceled_at?: Date;
}

/**
 * Applies `move` to a locked plan (PLAN_MACHINE decides its status), writes `change` and records
 * `event`, the plan naming `whodunnit` and its `source`.
 * @returns the plan after the change
 * @throws ApiError 409 `invalid_state_transition` when the plan is not active
 */
export async function writePlan(
  trx: Knex.Transaction,
  tenantId: string,
  plan: PaymentPlanRow,
  move: PlanMove,
  change: PlanChange,
  event: PlanEvent,
  whodunnit: string,
): Promise<PaymentPlan> {
  const columns: Record<string, unknown> = { ...change, ...actorColumns(whodunnit), status: PLAN_MACHINE.require(plan.status, move), updated_at: trx.fn.now() };
  if (change.schedule) {
    columns.schedule = JSON.stringify(change.schedule);
    columns.next_due_on = nextDueOn(change.schedule);
  }
  const [row] = await tenantRows(trx, paymentPlansResource, tenantId).where('payment_plans.id', plan.id).update(columns).returning('*');
  const object = toPaymentPlan(row as PaymentPlanRow);
  await recordEvent(trx, paymentPlansResource, tenantId, event, object);
  return object;
}

/**
 * Pays `amount` of a succeeded payment into the locked plan's oldest unpaid instalments; the plan
 * completes when all are paid. `whodunnit` is the payment's (the worker's charge: `system`).
 * @returns whether the plan completed
 */
export async function payIntoPlan(trx: Knex.Transaction, tenantId: string, plan: PaymentPlanRow, amount: number, whodunnit: string): Promise<boolean> {
  const { schedule, applied } = allocate(plan.schedule, amount);
  if (applied === 0) return false;
  const completed = allPaid(schedule);
  await writePlan(
    trx,
    tenantId,
    plan,
    completed ? 'complete' : 'change',
    { schedule, amount_paid: plan.amount_paid + applied },
    completed ? 'payment_plan.completed' : 'payment_plan.updated',
    whodunnit,
  );
  return completed;
}

/** Cancels the locked active plan (debt settled, withdrawn, or the client's cancel) as `whodunnit`. */
export function cancelPlan(trx: Knex.Transaction, tenantId: string, plan: PaymentPlanRow, whodunnit: string): Promise<PaymentPlan> {
  return writePlan(trx, tenantId, plan, 'cancel', {}, 'payment_plan.canceled', whodunnit);
}
