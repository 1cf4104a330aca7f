/**
 * Applies lifecycle moves (states.ts, docs/api.md sections 6, 8 and 9) to stored debts: under a
 * row lock, in the caller's or a new transaction, with the `debt.<status>` event in the same
 * transaction (outbox). The lock makes concurrent moves on one debt serial, so of two conflicting
 * moves exactly one wins and the other sees the new status and is refused. Moves that depend on
 * the debt's active plan (resume, resolve-dispute back to `paying`; settle, withdraw canceling it)
 * lock the plan after the debt. This module is the one writer of a debt's `status` and of its
 * `amount_paid` (the money a payment or refund counts).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { recordEvent } from '../kernel/outbox.js';
import type { EventOf } from '../kernel/resource.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { cancelPlan, lockActivePlan, payIntoPlan } from '../payment-plans/store.js';
import type { PaymentPlanRow } from '../payment-plans/schemas.js';
import { customersResource } from '../customers/resource.js';
import { customerTimeZone } from '../customers/zone.js';
import { debtsResource } from './resource.js';
import type { Debt, DebtRow, OperatorStatusChange } from './schemas.js';
import { DEBT_MACHINE, OPERATOR_MOVES, PLAN_AWARE, PLAN_ENDING, requireTransition, type DebtAction, type DebtMove } from './states.js';
import { toDebt, updateLockedDebt } from './store.js';

/** `whodunnit` of every status move the platform makes on its own (docs/api.md section 9). */
export const SYSTEM_ACTOR = 'system';

/** What the status object records about a move (docs/api.md section 9). */
export interface StatusNote {
  reason?: string | null;
  /** The client id, or `system` for the worker. */
  whodunnit: string;
  /** The `info` of a withdrawal, or what caused an automatic move. */
  context?: string | null;
  /** When the status ends by itself (`pause`, and `protect` into legal protection). */
  endAt?: string | null;
}

/** Moves into a status that may end by itself at `end_at` (a pause, a legal protection, a vulnerability's contact pause). */
const ENDS_BY_ITSELF: readonly DebtMove[] = ['pause', 'protect', 'require-follow-up'];

/** The status columns a move to `to` writes (the times are the statement's). */
export function moveColumns(move: DebtMove, to: string, note: StatusNote) {
  return {
    status: to,
    status_reason: note.reason ?? null,
    status_whodunnit: note.whodunnit,
    status_context: note.context ?? null,
    pause_end_at: ENDS_BY_ITSELF.includes(move) ? (note.endAt ?? null) : null,
  };
}

/**
 * Moves a debt row the caller has locked (`findOwned(…, {forUpdate: true})`) and records its event.
 * @param changes further columns written in the same update (e.g. `amount_paid` of a payment)
 * @returns the debt after the move
 * @throws ApiError 409 `invalid_state_transition` when the table forbids the move
 */
export async function moveLockedDebt(
  trx: Knex.Transaction,
  tenantId: string,
  locked: DebtRow,
  move: DebtMove,
  note: StatusNote,
  changes: Record<string, unknown> = {},
): Promise<Debt> {
  const plan = PLAN_AWARE.includes(move) ? await lockActivePlan(trx, tenantId, locked.id) : undefined;
  const to = requireTransition(locked.status, move, plan !== undefined);
  if (plan && PLAN_ENDING.includes(move)) await cancelPlan(trx, tenantId, plan, note.whodunnit);
  const [row] = await tenantRows(trx, debtsResource, tenantId)
    .where('debts.id', locked.id)
    .update({
      ...changes,
      ...moveColumns(move, to, note),
      status_updated_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    })
    .returning('*');
  const debt = toDebt(row as DebtRow);
  await recordEvent(trx, debtsResource, tenantId, `debt.${to}` as EventOf<typeof debtsResource>, debt);
  return debt;
}

/**
 * Locks the tenant's debt `id` (the lock every write of a debt and its plans and payments takes first).
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's debt)
 */
export function lockDebt(trx: Knex.Transaction, tenantId: string, id: string, param?: string): Promise<DebtRow> {
  return findOwned<DebtRow>(trx, debtsResource, tenantId, id, { forUpdate: true, ...(param ? { param } : {}) });
}

/**
 * Locks the tenant's debt `id` and applies `move` in one transaction.
 * @param check runs on the locked row before the move (e.g. a pause's `end_at` must be future)
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's debt),
 *   409 `invalid_state_transition`
 */
export async function moveDebt(
  db: Knex,
  tenantId: string,
  id: string,
  move: DebtMove,
  note: StatusNote,
  check?: (trx: Knex.Transaction) => Promise<void>,
): Promise<Debt> {
  return db.transaction(async (trx) => {
    const locked = await lockDebt(trx, tenantId, id);
    await check?.(trx);
    return moveLockedDebt(trx, tenantId, locked, move, note);
  });
}

/**
 * The move money causes (pure): succeeded money that clears the balance pays the debt; money that
 * completes the active plan while the debt still owes (line items added since) returns a `paying`
 * debt to `resumed`; a refund reopens a `paid` debt. Otherwise none.
 * @param delta money counted, minor units: > 0 succeeded, < 0 refunded
 */
export function moneyMove(debt: Pick<DebtRow, 'status' | 'amount_total' | 'amount_paid'>, delta: number, planCompleted: boolean): DebtMove | undefined {
  if (delta < 0) return debt.status === 'paid' ? 'refund' : undefined;
  if (debt.amount_paid + delta === debt.amount_total) return 'pay';
  if (planCompleted && debt.status === 'paying') return 'cancel-plan';
  return undefined;
}

/**
 * Counts money on the locked debt (docs/api.md sections 8 and 9): succeeded money (`delta` > 0)
 * pays the oldest instalments of its locked active `plan` first; `amount_paid` moves by `delta`
 * in one update, with the status move money causes (`moneyMove`); money from the customer on a debt
 * the collection engine works establishes contact (`contact_established`, section 12); without a
 * move, `debt.updated`.
 * The database CHECKs (`amount_remaining >= 0`, `amount_paid >= 0`) back the callers' checks.
 * @param delta minor units: > 0 succeeded money, < 0 a refund
 * @returns the debt after the change
 */
export async function countMoney(
  trx: Knex.Transaction,
  tenantId: string,
  debt: DebtRow,
  delta: number,
  note: StatusNote,
  plan?: PaymentPlanRow,
): Promise<Debt> {
  const completed = delta > 0 && plan ? await payIntoPlan(trx, tenantId, plan, delta, note.whodunnit) : false;
  const changes = { amount_paid: debt.amount_paid + delta };
  const move = moneyMove(debt, delta, completed) ?? (delta > 0 && DEBT_MACHINE.allows(debt.status, 'establish-contact') ? 'establish-contact' : undefined);
  if (move === undefined) return updateLockedDebt(trx, tenantId, debt.id, changes);
  const context = move === 'cancel-plan' ? `payment_plan.completed: ${plan!.id}` : note.context;
  return moveLockedDebt(trx, tenantId, debt, move, { ...note, context }, changes);
}

/** The body of a client's lifecycle action (docs/api.md sections 6 and 9). */
export interface ActionInput {
  reason?: string;
  /** `pause` only: when the pause ends by itself: a future time, or a date (the start of that day in the customer's zone). */
  end_at?: string;
  /** `withdraw` only: why, shown as the status `context`. */
  info?: string;
}

/**
 * `POST /debts/{id}/{action}`: applies a client's action to the tenant's debt, recording the
 * client as `whodunnit`.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition`, 422
 *   `business_rule_violation` (param `end_at`) for a pause that would end in the past
 */
export async function actOnDebt(db: Knex, tenantId: string, id: string, action: DebtAction, input: ActionInput, whodunnit: string): Promise<Debt> {
  const endAt = input.end_at === undefined ? undefined : await instantOf(db, tenantId, id, input.end_at);
  const note = { reason: input.reason ?? null, whodunnit, context: input.info ?? null, endAt: endAt ?? null };
  return moveDebt(db, tenantId, id, action, note, endAt === undefined ? undefined : (trx) => requireFuture(trx, tenantId, endAt));
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `end_at` as an instant (RFC 3339): a date-time as given; a date (`2026-12-24`, as the public
 * API's SDK sends it, docs/api.md section 15) as the start of that day in the zone of the debt's
 * customer (customers/zone.ts).
 * @throws ApiError 404 `resource_missing` for a debt that is not the tenant's
 */
export async function instantOf(db: Knex, tenantId: string, debtId: string, endAt: string): Promise<string> {
  if (!DATE_ONLY.test(endAt)) return endAt;
  const debt = await findOwned<DebtRow>(db, debtsResource, tenantId, debtId);
  const customer: { preferred_locale: string | null } | undefined = await tenantRows(db, customersResource, tenantId)
    .where('customers.id', debt.customer_id)
    .first('customers.preferred_locale');
  const { rows } = await db.raw('SELECT (?::date)::timestamp AT TIME ZONE ? AS at', [endAt, customerTimeZone(customer?.preferred_locale)]);
  return (rows[0].at as Date).toISOString();
}

/** Refuses an `end_at` that is not in the future by the tenant's clock (`tenant_now`), as every time-driven rule decides. */
export async function requireFuture(trx: Knex.Transaction, tenantId: string, endAt: string): Promise<void> {
  const { rows } = await trx.raw('SELECT ?::timestamptz > tenant_now(?) AS future', [endAt, tenantId]);
  if (!rows[0].future) throw new ApiError('business_rule_violation', 'end_at must be in the future.', { param: 'end_at' });
}

/**
 * `POST /operator/debts/{id}/status`: an operator moves the tenant's debt into an operations, legal
 * or action-required status, or back to work (`resumed`), with its reason; `whodunnit` is
 * `operator:<client id>`.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` naming the statuses the
 *   move is allowed from, 400 `validation_failed` (param `end_at`) for an `end_at` on any status but
 *   `legal_protection`, 422 `business_rule_violation` (param `end_at`) for one not in the future
 */
export function operatorMove(db: Knex, tenantId: string, id: string, input: OperatorStatusChange, whodunnit: string): Promise<Debt> {
  const endAt = input.end_at;
  if (endAt !== undefined && input.status !== 'legal_protection') {
    const message = 'end_at is only for legal_protection';
    throw new ApiError('validation_failed', message, { param: 'end_at', errors: [{ param: 'end_at', message }] });
  }
  const note = { reason: input.reason, whodunnit, endAt: endAt ?? null };
  return moveDebt(db, tenantId, id, OPERATOR_MOVES[input.status], note, endAt === undefined ? undefined : (trx) => requireFuture(trx, tenantId, endAt));
}

/**
 * Resumes a locked `paused`, `legal_protection` or `follow_up_required` debt at the end of its
 * `end_at` (docs/api.md sections 9, 12 and 18): to `resumed`, or to `paying` while it has an
 * active plan, as the client's `resume` would; whodunnit `system`, context naming the pause's end
 * and, when `movedDays` > 0, how far the plan's unpaid instalments moved. The worker calls it
 * through debts/plans.ts `endTimedStatus`.
 * @returns the context of the change
 */
export async function endPause(trx: Knex.Transaction, tenantId: string, debt: DebtRow, movedDays = 0): Promise<string> {
  const what = { legal_protection: 'legal protection', follow_up_required: 'contact pause' }[debt.status as string] ?? 'pause';
  const moved = movedDays > 0 ? `; unpaid instalments moved ${movedDays} days later` : '';
  const context = `${what} ended: end_at ${(debt.pause_end_at as Date).toISOString()}${moved}`;
  await moveLockedDebt(trx, tenantId, debt, 'resume', { whodunnit: SYSTEM_ACTOR, context });
  return context;
}
