/**
 * Applies lifecycle moves (lifecycle.ts, docs/api.md section 6) to stored debts: under a row lock, in the caller's
 * or a new transaction, with the `debt.<status>` event in the same transaction (outbox). The lock
 * makes concurrent moves on one debt serial, so of two conflicting moves exactly one wins and the
 * other sees the new status and is refused.
 */
import type { Knex } from '@dms/db';
import { recordEvent, type EventType } from '../../db/outbox.js';
import { findOwned, tenantRows } from '../../db/scoped.js';
import { requireTransition, type DebtMove } from './lifecycle.js';
import type { Debt, DebtRow } from './schemas.js';
import { toDebt } from './store.js';

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
  reason: string | null,
  changes: Record<string, unknown> = {},
): Promise<Debt> {
  const to = requireTransition(locked.status, move);
  const [row] = await tenantRows(trx, 'debts', tenantId)
    .where('debts.id', locked.id)
    .update({ ...changes, status: to, status_reason: reason, status_updated_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning('*');
  const debt = toDebt(row as DebtRow);
  await recordEvent(trx, tenantId, `debt.${to}` as EventType, debt);
  return debt;
}

/**
 * Locks the tenant's debt `id` and applies `move` in one transaction.
 * @throws ApiError 404 `resource_missing` (unknown, deleted, or another tenant's debt),
 *   409 `invalid_state_transition`
 */
export async function moveDebt(db: Knex, tenantId: string, id: string, move: DebtMove, reason: string | null): Promise<Debt> {
  return db.transaction(async (trx) => {
    const locked = await findOwned<DebtRow>(trx, 'debts', tenantId, id, { forUpdate: true });
    return moveLockedDebt(trx, tenantId, locked, move, reason);
  });
}
