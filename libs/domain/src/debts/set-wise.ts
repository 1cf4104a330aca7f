/**
 * Set-wise writes of debts the caller has locked, for the collection engine's batches (docs/api.md
 * section 13): `moveLockedDebts` makes many status moves in one `UPDATE … FROM (VALUES …)` and
 * records each move's `debt.<status>` event (outbox) in the order given; `deferEngineState` makes
 * `setEngineState` in a transaction collect the engine's bookkeeping, which `flushEngineState`
 * writes in one statement per set of columns before the commit.
 */
import type { Knex } from '@dms/db';
import { recordEvent } from '../kernel/outbox.js';
import type { EventOf } from '../kernel/resource.js';
import { bySignature, updateFromValues } from '../kernel/set-wise.js';
import { debtsResource } from './resource.js';
import type { DebtRow } from './schemas.js';
import { moveColumns, type StatusNote } from './moves.js';
import { PLAN_AWARE, requireTransition, type DebtMove } from './states.js';
import { toDebt, type EngineState } from './store.js';

/** Engine bookkeeping a set-wise write may carry: times and a step, never `'now'`. */
export type EngineColumns = { engine_step?: number; engine_due_at?: Date | null; contacted_at?: Date };

/** SQL types of the debt columns written through `VALUES`. */
const TYPES: Record<string, string> = {
  status: 'text',
  status_reason: 'text',
  status_whodunnit: 'text',
  status_context: 'text',
  pause_end_at: 'timestamptz',
  engine_step: 'integer',
  engine_due_at: 'timestamptz',
  contacted_at: 'timestamptz',
};

/** One move of a locked debt, with the engine's bookkeeping written with it. */
export interface LockedMove {
  locked: DebtRow;
  move: DebtMove;
  note: StatusNote;
  state?: EngineColumns;
}

/**
 * Makes `moves` (at most one per debt; none that depends on a plan or ends by itself) set-wise
 * and records their events in the order given.
 * @returns the debts after their moves, in the order given
 * @throws ApiError 409 `invalid_state_transition` when the table forbids a move (nothing is written)
 * @throws Error for a plan-aware move (use `moveLockedDebt`)
 */
export async function moveLockedDebts(trx: Knex.Transaction, moves: readonly LockedMove[]): Promise<DebtRow[]> {
  const planned = moves.map((m) => {
    if (PLAN_AWARE.includes(m.move)) throw new Error(`moveLockedDebts: '${m.move}' depends on the debt's plan`);
    const to = requireTransition(m.locked.status, m.move);
    return { ...m, to, values: { id: m.locked.id, tenant_id: m.locked.tenant_id, ...moveColumns(m.move, to, m.note), ...m.state } };
  });
  const updated = new Map<string, DebtRow>();
  for (const group of bySignature(planned, (p) => Object.keys(p.values))) {
    for (const [id, row] of await updateFromValues<DebtRow>(
      trx,
      'debts',
      TYPES,
      group.map((p) => p.values),
      'status_updated_at = now(), updated_at = now()',
    )) {
      updated.set(id, row);
    }
  }
  const rows: DebtRow[] = [];
  for (const p of planned) {
    const row = updated.get(p.locked.id)!;
    await recordEvent(trx, debtsResource, row.tenant_id, `debt.${p.to}` as EventOf<typeof debtsResource>, toDebt(row));
    rows.push(row);
  }
  return rows;
}

/** Engine bookkeeping collected per transaction, by debt id. */
const pending = new WeakMap<Knex.Transaction, Map<string, { tenantId: string; state: EngineColumns }>>();

/**
 * Makes `setEngineState` in `trx` collect what it writes (a debt's later call overrides its
 * earlier one column by column) until `flushEngineState`, which must run before the commit. A
 * status move of a debt with collected state must not write engine columns itself.
 */
export function deferEngineState(trx: Knex.Transaction): void {
  if (!pending.has(trx)) pending.set(trx, new Map());
}

/**
 * Collects `state` for `debtId` when `trx` defers (and the state holds no `'now'`).
 * @returns null when collected; else what the caller must write at once (with what was collected
 *   for the debt, which is then dropped, so that nothing older is written after it)
 */
export function collectEngineState(trx: Knex.Transaction, tenantId: string, debtId: string, state: EngineState): EngineState | null {
  const collected = pending.get(trx);
  if (!collected) return state;
  const merged: EngineState = { ...collected.get(debtId)?.state, ...state };
  if (merged.engine_due_at === 'now' || merged.contacted_at === 'now') {
    collected.delete(debtId);
    return merged;
  }
  collected.set(debtId, { tenantId, state: merged as EngineColumns });
  return null;
}

/** Writes the state `trx` collected since `deferEngineState`; `setEngineState` writes at once again afterwards. */
export async function flushEngineState(trx: Knex.Transaction): Promise<void> {
  const collected = pending.get(trx);
  pending.delete(trx);
  if (!collected?.size) return;
  const rows = [...collected].map(([id, { tenantId, state }]) => ({ id, tenant_id: tenantId, ...state }));
  for (const group of bySignature(rows, (r) => Object.keys(r))) await updateFromValues<DebtRow>(trx, 'debts', TYPES, group);
}
