/**
 * Applies lifecycle moves (lifecycle.ts, docs/api.md sections 6 and 9) to stored debts: under a
 * row lock, in the caller's or a new transaction, with the `debt.<status>` event in the same
 * transaction (outbox). The lock makes concurrent moves on one debt serial, so of two conflicting
 * moves exactly one wins and the other sees the new status and is refused. Moves that depend on
 * the debt's active plan (resume, resolve-dispute back to `paying`; settle, withdraw canceling it)
 * lock the plan after the debt.
 */
import type { Knex } from '@dms/db';
import { recordEvent, type EventType } from '../../db/outbox.js';
import { findOwned, tenantRows } from '../../db/scoped.js';
import { cancelPlan, lockActivePlan } from '../payment-plans/active.js';
import { requireTransition, type DebtMove } from './lifecycle.js';
import type { Debt, DebtRow } from './schemas.js';
import { toDebt } from './store.js';

/** What the status object records about a move (docs/api.md section 9). */
export interface StatusNote {
  reason?: string | null;
  /** The client id, or `system` for the worker. */
  whodunnit: string;
  /** The `info` of a withdrawal, or what caused an automatic move. */
  context?: string | null;
  /** A pause's end (`pause` only). */
  endAt?: string | null;
}

const PLAN_AWARE: readonly DebtMove[] = ['resume', 'resolve-dispute', 'settle', 'withdraw'];
const PLAN_ENDING: readonly DebtMove[] = ['settle', 'withdraw'];

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
  if (plan && PLAN_ENDING.includes(move)) await cancelPlan(trx, tenantId, plan);
  const [row] = await tenantRows(trx, 'debts', tenantId)
    .where('debts.id', locked.id)
    .update({
      ...changes,
      status: to,
      status_reason: note.reason ?? null,
      status_whodunnit: note.whodunnit,
      status_context: note.context ?? null,
      pause_end_at: move === 'pause' ? (note.endAt ?? null) : null,
      status_updated_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    })
    .returning('*');
  const debt = toDebt(row as DebtRow);
  await recordEvent(trx, tenantId, `debt.${to}` as EventType, debt);
  return debt;
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
    const locked = await findOwned<DebtRow>(trx, 'debts', tenantId, id, { forUpdate: true });
    await check?.(trx);
    return moveLockedDebt(trx, tenantId, locked, move, note);
  });
}
